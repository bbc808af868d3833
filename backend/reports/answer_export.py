"""An answer with everything that built it, as JSON and as one self-contained HTML file.

The HTML has inline CSS only (no scripts, no external links) and escapes every piece of document
and model text, so a report opens anywhere, offline, and cannot run code. Each structure (trees,
graph, plan, trajectory, selected nodes) is drawn by the caller's drawing for its key (the UI
layer supplies them, since the backend never imports it) and kept as JSON under the drawing.
"""

from __future__ import annotations

import dataclasses
import html
import json
import logging
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from backend.generation.answer import Answer

EXPORT_SCHEMA = 1
log = logging.getLogger(__name__)

StructureDrawing = Callable[[Any], str]


def _plain(value: Any) -> Any:
    """JSON-ready copy: dataclasses and objects with `to_dict` become dicts, tuples lists."""
    if hasattr(value, "to_dict") and callable(value.to_dict):
        return _plain(value.to_dict())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def answer_to_dict(answer: Answer) -> dict[str, Any]:
    data = _plain(answer)
    data["citations"] = [
        {"number": c.number, "source": c.source, "similarity": c.similarity, "chunk_id": c.passage.chunk_id}
        for c in answer.citations
    ]
    data["total_tokens"] = answer.total_tokens
    data["total_latency_s"] = round(answer.total_latency_s, 4)
    return {"schema_version": EXPORT_SCHEMA, "exported_at": datetime.now(UTC).isoformat(), "answer": data}


def answer_to_json(answer: Answer) -> str:
    return json.dumps(answer_to_dict(answer), ensure_ascii=False, indent=2)


_CSS = """
body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1f2328}
h1{font-size:1.4rem} h2{font-size:1.1rem;margin-top:2rem;border-bottom:1px solid #d0d7de}
.answer{border:1px solid #d0d7de;border-radius:6px;padding:1rem;background:#f6f8fa;white-space:pre-wrap}
.meta{color:#57606a;font-size:.9rem} .warn{color:#9a6700}
table{border-collapse:collapse} td,th{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:left}
pre{white-space:pre-wrap;background:#f6f8fa;padding:.75rem;border-radius:6px;font-size:.8rem}
h3{font-size:1rem;margin-top:1.2rem}
"""


def _structure_html(key: str, value: Any, draw: StructureDrawing | None) -> str:
    """The drawing, then the JSON; a drawing that fails leaves the JSON and says so."""
    body = html.escape(json.dumps(_plain(value), ensure_ascii=False, indent=1))
    if draw is None:
        return f"<pre>{body}</pre>"
    try:
        drawing = draw(value)
    except Exception:
        log.exception("Could not draw structure %r for the HTML report", key)
        drawing = '<p class="warn">This structure could not be drawn; its JSON follows.</p>'
    return f"{drawing}<details><summary>JSON</summary><pre>{body}</pre></details>"


def answer_to_html(answer: Answer, drawings: Mapping[str, StructureDrawing] | None = None) -> str:
    """`drawings[key]` turns `answer.structures[key]` into safe HTML; keys without one show JSON."""
    e = html.escape
    parts = [
        f"<h1>{e(answer.question)}</h1>",
        f'<p class="meta">Method <b>{e(answer.method)}</b> · produced by <code>{e(answer.producer)}</code> · '
        f"{answer.total_tokens} tokens · {answer.total_latency_s:.2f} s</p>",
        f'<div class="answer">{e(answer.text) or "<i>No answer text.</i>"}</div>',
    ]
    parts += [f'<p class="warn">{e(w)}</p>' for w in answer.warnings]
    if answer.citations:
        parts.append("<h2>Sources cited</h2><ul>")
        parts += [f"<li>[{c.number}] {e(c.passage.place)} · {e(c.source)}</li>" for c in answer.citations]
        parts.append("</ul>")
    parts.append(f"<h2>Passages read ({len(answer.passages)})</h2>")
    for number, passage in enumerate(answer.passages, start=1):
        parts.append(
            f"<details><summary>[{number}] {e(passage.place)}</summary><p>{e(passage.text)}</p></details>"
        )
    if answer.costs:
        parts.append("<h2>Cost</h2><table><tr><th>stage</th><th>calls</th><th>prompt</th>"
                     "<th>completion</th><th>seconds</th></tr>")  # fmt: skip
        parts += [
            f"<tr><td>{e(c.stage)}</td><td>{c.calls}</td><td>{c.prompt_tokens}</td>"
            f"<td>{c.completion_tokens}</td><td>{c.latency_s:.2f}</td></tr>"
            for c in answer.costs
        ]
        parts.append("</table>")
    for key, value in answer.structures.items():
        parts.append(f"<h2>{e(key.replace('_', ' ').capitalize())}</h2>")
        parts.append(_structure_html(key, value, (drawings or {}).get(key)))
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{e(answer.question[:80])}</title><style>{_CSS}</style></head><body>"
        + "\n".join(parts)
        + "</body></html>"
    )
