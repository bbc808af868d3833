"""Curate router training examples (question, retrieval subtree, behaviour) with a stronger model.

The paper's recipe, question-only: retrieve the top-k passages for each question, light the
retrieval subtree of each retrieved document, and ask a capable model for ONE routing step on
it. The reply is parsed with the same tolerant parser the router uses; only replies with valid
behaviours or a refusal are kept, in canonical form. Questions come from a text file (one per
line) or from QASPER (`--qasper`, answer text is never shown to the model). Documents are the
library's, or the QASPER papers indexed into a scratch data dir.

    python -m scripts.curate_router_examples --backend ollama --model qwen2.5:14b \\
        --qasper ../shared/data/qasper/qasper-dev-v0.3.json --papers 50 --out data/router_examples.jsonl

Any configured server works (`--backend ollama|openai`, `--base-url`); the embedded base model
is refused, since its replies would teach the router nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from backend.config import load_settings
from backend.errors import StudioError
from backend.eval.qasper import load_qasper
from backend.generation.answerer import is_base_model
from backend.retrieval.search import retrieve_chunks
from backend.routing.document_trees import structure_tree_for
from backend.routing.lighting import initial_lighting, match_passages, render_subtree
from backend.routing.router_prompt import router_messages
from backend.routing.router_reply import format_behaviours, parse_router_reply
from backend.studio import Studio


def _questions(args: argparse.Namespace, studio: Studio) -> Iterator[tuple[str, list[str] | None]]:
    """(question, document ids to search or None for the whole library)."""
    if args.qasper:
        papers = [p for p in load_qasper(args.qasper) if p.questions][: args.papers]
        for paper in papers:
            report = studio.indexer.index_file(paper.to_markdown().encode("utf-8"), f"{paper.paper_id}.md")
            for question in paper.questions:
                yield question.question, [report.doc_id]
    else:
        for line in Path(args.questions).read_text(encoding="utf-8").splitlines():
            if line.strip():
                yield line.strip(), None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", choices=["ollama", "openai"], required=True)
    parser.add_argument("--model", required=True, help="the curating model on that server")
    parser.add_argument("--base-url", default="", help="Ollama host or OpenAI-compatible base URL")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--questions", type=Path, help="a text file, one question per line (library documents)"
    )
    source.add_argument("--qasper", type=Path, help="a QASPER JSON file (papers indexed into a scratch dir)")
    parser.add_argument("--papers", type=int, default=20)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()

    changes = {"llm_backend": args.backend, "llm_model": args.model}
    if args.base_url:
        changes["ollama_host" if args.backend == "ollama" else "openai_base_url"] = args.base_url
    settings = load_settings().updated(**changes)
    scratch = tempfile.TemporaryDirectory() if args.qasper else None
    if scratch is not None:
        settings = settings.updated(data_dir=Path(scratch.name), chroma_host="")
    studio = Studio(settings)
    if is_base_model(studio.llm):
        print("The embedded base model cannot curate routing behaviours; name an Ollama or OpenAI model.")
        return 2
    counts: Counter[str] = Counter()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as out:
        for question, doc_ids in _questions(args, studio):
            passages = retrieve_chunks(
                question,
                embedder=studio.embedder,
                store=studio.store,
                library=studio.library,
                k=settings.top_k,
                doc_ids=doc_ids,
            )
            for doc_id in dict.fromkeys(p.doc_id for p in passages):
                doc = studio.library.get(doc_id)
                tree = structure_tree_for(doc, studio.library)
                spans = {p.id: (p.start, p.end) for p in doc.paragraphs}
                lit = initial_lighting(
                    tree, match_passages(tree, spans, [p for p in passages if p.doc_id == doc_id])
                )
                view = render_subtree(tree, lit, max_words=120)
                messages = router_messages(
                    question, view.text, allow_expand=True, allow_refuse=True, use_structure=True
                )
                try:
                    reply = studio.llm.chat(messages, max_tokens=96, temperature=0.0).text
                except StudioError as error:
                    print(f"skipped a call: {error}", file=sys.stderr)
                    counts["failed"] += 1
                    continue
                parsed = parse_router_reply(
                    reply, visible=view.visible, collapsed=view.collapsed, known=tree.nodes
                )
                if not parsed.usable:
                    counts["unusable"] += 1
                    continue
                kinds = {b.kind for b in parsed.behaviours} or {"refuse"}
                counts.update(kinds)
                example = {
                    "question": question,
                    "subtree": view.text,
                    "behaviour": format_behaviours(list(parsed.behaviours), parsed.refused),
                    "raw_reply": reply,
                    "doc_id": doc_id,
                    "tree_producer": tree.producer,
                    "curator": studio.llm.label,
                }
                out.write(json.dumps(example, ensure_ascii=False) + "\n")
                counts["kept"] += 1
    print(
        f"wrote {counts['kept']} examples to {args.out}: "
        + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    )
    if scratch is not None:
        scratch.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
