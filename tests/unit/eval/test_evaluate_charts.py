"""The Evaluate CLI writes the page's plots into the run folder as one offline HTML file.

Summary rows here are hand-written in the shape each kind's `summarise` returns; no run happens.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import scripts.evaluate as evaluate
from backend.eval.retrieval_run import RetrievalRecord, summarise_retrieval
from components.eval_charts import CHARTS_HTML, PLOTTED, run_figures
from tests.conftest import REPO_ROOT

QA_ROWS = [
    {"method": m, "questions": 3, "errors": 0, **dict.fromkeys(PLOTTED["qa"], score)}
    for m, score in (("standard_rag", 0.4), ("extractive", 0.2))
]


def test_a_run_writes_every_plot_into_one_self_contained_html_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(evaluate, "qa", lambda _args: QA_ROWS)
    out = tmp_path / "my-run"
    out.mkdir()  # a real run creates its folder first
    evaluate.main(["qa", "--out", str(out)])
    html = (out / CHARTS_HTML).read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and "<title>qa run my-run</title>" in html
    assert html.count('class="plotly-graph-div"') == len(PLOTTED["qa"])
    assert html.count("plotly.js v") == 1, "plotly.js is inlined once"
    assert not re.search(r"<script[^>]*\ssrc=", html), "no script is fetched: the file opens offline"
    assert all(f"{metric} (my-run) per method" in html for metric in PLOTTED["qa"])
    assert f"and {CHARTS_HTML}" in capsys.readouterr().out


def test_a_run_with_nothing_scored_writes_no_plot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(evaluate, "qa", lambda _args: [])
    evaluate.main(["qa", "--out", str(tmp_path)])
    assert not (tmp_path / CHARTS_HTML).exists()


def test_each_kind_gets_the_page_figures() -> None:
    records = [
        RetrievalRecord("p", "q", method, budget, 0.5, 0.6, 0.4, 0, budget)
        for method in ("disretrieval", "flatten_chunk")
        for budget in (200, 400)
    ]
    lines = run_figures("retrieval", summarise_retrieval(records), "r")
    assert [f.layout.title.text for f in lines] == ["f1 (r) by word budget", "recall (r) by word budget"]
    assert {trace.name for trace in lines[0].data} == {"disretrieval", "flatten_chunk"}
    rst_rows = [
        {
            "parser": "trained",
            "label": "trained",
            "level": level,
            "root": root,
            **dict.fromkeys(PLOTTED["rst"], 50.0),
        }
        for level in ("paragraph", "document")
        for root in ("included", "excluded")
    ]
    bars = run_figures("rst", rst_rows, "g")
    assert len(bars) == 2 * len(PLOTTED["rst"]) and bars[1].layout.title.text == "span (g), root excluded"


def test_the_chart_module_does_not_import_streamlit() -> None:
    """scripts/evaluate.py imports it, so it must stay importable without the app."""
    code = "import sys, components.eval_charts; sys.exit('streamlit' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, check=False).returncode == 0
