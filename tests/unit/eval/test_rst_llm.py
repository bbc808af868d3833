"""The LLM chunk parser scored on GUM paragraphs: projection to sentences, label mapping, fallbacks.

Every LLM reply here is hand-written in this file (ScriptedLLM), never produced by a model. The
GUM-like document is hand-written too: one three-sentence paragraph (four EDUs) and one
one-sentence paragraph.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from backend.discourse.chunk_parse import TRAINED_PRODUCER, TrainedChunkParser
from backend.discourse.gum import GumDocument, load_split
from backend.discourse.gum_eval import trained_parser
from backend.discourse.llm_rst_parser import LLMChunkParser
from backend.discourse.parser import DEFAULT_WEIGHTS, SentenceRSTParser
from backend.eval import rst_run
from backend.eval.rst_llm import NO_LLM_KEY, LLMRows, NoLLMParser, paragraph_tree
from backend.eval.rst_run import llm_paragraph_counts, run_rst_eval, score_llm_document, summarise_rst
from backend.eval.run_files import MANIFEST
from backend.llm.capability import StructureChoice
from tests.fakes.discourse_llm import JUNK
from tests.fakes.scripted_llm import ScriptedLLM
from tests.unit.discourse.conftest import fake_embed

DIS = """( Root (span 1 5)
  ( Nucleus (span 1 4) (rel2par span)
    ( Nucleus (span 1 2) (rel2par span)
      ( Nucleus (leaf 1) (rel2par span) (text _!It rained all day ,_!) )
      ( Satellite (leaf 2) (rel2par causal-result) (text _!so we stayed in ._!) )
    )
    ( Satellite (span 3 4) (rel2par elaboration-additional)
      ( Nucleus (leaf 3) (rel2par joint-sequence) (text _!We read books ._!) )
      ( Nucleus (leaf 4) (rel2par joint-sequence) (text _!Then we slept ._!) )
    )
  )
  ( Satellite (leaf 5) (rel2par evaluation-comment) (text _!The end ._!) )
)
"""
CONLLU = """# newpar
# text = It rained all day, so we stayed in.
1\tIt\n2\trained\n3\tall\n4\tday\n5\t,\n6\tso\n7\twe\n8\tstayed\n9\tin\n10\t.

# text = We read books.
1\tWe\n2\tread\n3\tbooks\n4\t.

# text = Then we slept.
1\tThen\n2\twe\n3\tslept\n4\t.

# newpar
# text = The end.
1\tThe\n2\tend\n3\t.
"""
EDUS = """EDUS:
[1] It rained all day,
[2] so we stayed in.
[3] We read books.
[4] Then we slept.
TREE:
"""
RIGHT = (
    EDUS
    + """[1-4] = [1-2] N + [3-4] S : ELABORATION
[1-2] = [1] N + [2] S : RESULT
[3-4] = [3] N + [4] N : SEQUENCE
END OF TREE"""
)
WRONG = (
    EDUS
    + """[1-4] = [1-3] N + [4] S : CAUSE
[1-3] = [1] N + [2-3] S : ELABORATION
[2-3] = [2] N + [3] N : JOINT
END OF TREE"""
)


def write_gum(root: Path) -> Path:
    for split in ("train", "dev"):
        (root / split / "rst").mkdir(parents=True)
        (root / split / "conllu").mkdir(parents=True)
        (root / split / "rst" / "tiny.dis").write_text(DIS)
        (root / split / "conllu" / "tiny.conllu").write_text(CONLLU)
    return root


@pytest.fixture(scope="module")
def fake_parser() -> SentenceRSTParser:
    return SentenceRSTParser.load_default(embed=fake_embed)


@pytest.fixture
def doc(tmp_path: Path) -> GumDocument:
    (tiny,) = load_split("dev", write_gum(tmp_path)).documents
    return tiny


def rows_for(reply: str, doc: GumDocument, parser: SentenceRSTParser) -> tuple[LLMRows, ScriptedLLM]:
    llm = ScriptedLLM(reply)
    outer = trained_parser(parser, {doc.doc_id: fake_embed(doc.sentences)})
    return LLMRows(LLMChunkParser(llm, TrainedChunkParser(parser)), outer), llm


def f1(summary: list[dict], parser: str, level: str = "paragraph") -> dict:
    return next(
        r for r in summary if r["parser"] == parser and r["level"] == level and r["root"] == "included"
    )


def test_a_right_tree_projects_onto_the_gold_sentence_tree(
    doc: GumDocument, fake_parser: SentenceRSTParser
) -> None:
    rows, llm = rows_for(RIGHT, doc, fake_parser)
    records = score_llm_document(doc, rows)
    summary = summarise_rst(records)
    assert len(llm.prompts) == 1, "the one-sentence paragraph is not sent"
    for parser in ("llm", "llm_parsed"):
        assert all(f1(summary, parser)[m] == 100.0 for m in ("span", "nuclearity", "relation", "full"))
    assert llm_paragraph_counts(records) == {"llm_parsed": 1, "llm_fallback": 0}
    assert not any(r["parser"] == "llm_fallback" for r in summary), "no fallback: no row"
    assert f1(summary, "llm")["trees"] == 2 and f1(summary, "llm_parsed")["trees"] == 1
    assert "llm:ollama:scripted" in f1(summary, "llm")["label"]
    assert {r["level"] for r in summary if r["parser"] == "llm"} == {"paragraph", "document"}


def test_a_wrong_tree_scores_lower(doc: GumDocument, fake_parser: SentenceRSTParser) -> None:
    rows, _ = rows_for(WRONG, doc, fake_parser)
    row = f1(summarise_rst(score_llm_document(doc, rows)), "llm_parsed")
    # root (0-2) NS causal vs gold NS elaboration; (0-1) vs gold (1-2): half the spans, no relation
    assert (row["span"], row["nuclearity"], row["relation"], row["full"]) == (50.0, 50.0, 0.0, 0.0)


def test_garbage_is_counted_as_a_fallback_and_scored_as_the_trained_tree(
    doc: GumDocument, fake_parser: SentenceRSTParser
) -> None:
    rows, _ = rows_for(JUNK, doc, fake_parser)
    records = score_llm_document(doc, rows)
    assert llm_paragraph_counts(records) == {"llm_parsed": 0, "llm_fallback": 1}
    assert list(rows.reasons.values()) == [1] and "numbered EDUs" in next(iter(rows.reasons))
    summary = summarise_rst(records)
    assert f1(summary, "llm_fallback")["trees"] == 1
    assert not any(r["parser"] == "llm_parsed" for r in summary)
    parse, outcomes = rows.parse(doc)
    assert [o.status if o else None for o in outcomes] == ["fallback", None]
    assert parse.paragraph_trees[0].producer.startswith(TRAINED_PRODUCER)


def test_a_sentence_boundary_inside_an_edu_splits_last_as_nn_joint(
    doc: GumDocument, fake_parser: SentenceRSTParser
) -> None:
    reply = (
        "EDUS:\n[1] It rained all day, so we stayed in. We read books.\n[2] Then we slept.\n"
        "TREE:\n[1-2] = [1] N + [2] S : EVIDENCE\nEND OF TREE"
    )
    parser = LLMChunkParser(ScriptedLLM(reply), TrainedChunkParser(fake_parser))
    tree, outcome = paragraph_tree(parser, doc.paragraphs()[0], doc.paragraph_trees[0].units)
    assert outcome.status == "parsed"
    assert [(n.start, n.split, n.end, n.nuclearity, n.relation) for n in tree.nodes] == [
        (0, 1, 2, "NS", "explanation"),
        (0, 0, 1, "NN", "joint"),
    ]


def test_without_a_capable_llm_every_paragraph_falls_back(
    doc: GumDocument, fake_parser: SentenceRSTParser
) -> None:
    outer = trained_parser(fake_parser, {doc.doc_id: fake_embed(doc.sentences)})
    rows = LLMRows(NoLLMParser("the probe failed", TrainedChunkParser(fake_parser)), outer)
    records = score_llm_document(doc, rows)
    assert llm_paragraph_counts(records) == {"llm_parsed": 0, "llm_fallback": 1}
    assert rows.reasons == {"the probe failed": 1}
    assert NO_LLM_KEY in f1(summarise_rst(records), "llm")["label"]


def test_llm_rows_resume_and_record_the_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rst_run, "get_embedder", lambda: SimpleNamespace(encode=fake_embed))
    monkeypatch.setattr("backend.retrieval.embedder.get_embedder", lambda: SimpleNamespace(encode=fake_embed))
    llm = ScriptedLLM(RIGHT)
    options = {
        "gum_dir": write_gum(tmp_path / "gum"),
        "cache_dir": tmp_path / "cache",
        "weights": DEFAULT_WEIGHTS,
        "parsers": ["right_branching"],
        "llm": StructureChoice(llm, "scripted"),
    }
    out = tmp_path / "run"
    events: list[tuple[int, int]] = []
    first = run_rst_eval(out, **options, progress=lambda s, d, t: events.append((d, t)))
    assert events[-1] == (2, 2) and len(llm.prompts) == 1
    assert json.loads((out / MANIFEST).read_text())["params"]["llm"] == "ollama:scripted"
    again = run_rst_eval(out, **options)
    assert len(again) == len(first) == 4 + 4 + 2 + 2 and len(llm.prompts) == 1, "nothing asked again"
