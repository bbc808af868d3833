"""RST parsing on GUM dev: RST-Parseval of the trained parser and its baselines, per document, resumable.

One code path for `python -m scripts.eval_rst_parser`, `python -m scripts.evaluate rst` and the
Evaluate page. Each parser row predicts paragraph trees and a tree over paragraphs
(backend/discourse/gum_eval.py); each document is scored at paragraph and document level, root
included and excluded, and its matched/gold/predicted counts are kept, so the micro-averaged
F1 over any set of documents is the sum of their counts (the same figure as scoring them all
at once). Baselines: right/left-branching and gold spans with the majority train label, the
majority label on the parser's own spans, the gold paragraphs-first oracle, and the parser with
only its transition scorer's label heads. With an LLM choice (`llm=`), the LLM chunk parser's rows
too (backend/eval/rst_llm.py): all paragraphs, and apart the ones it parsed and its fallbacks.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from backend.discourse.gum import DEFAULT_GUM_DIR, GumDocument, GumSplit, load_split
from backend.discourse.gum_eval import (
    DocumentParser,
    branching_parser,
    gold_paragraphs_parser,
    score,
    trained_parser,
)
from backend.discourse.parser import DEFAULT_WEIGHTS, DocumentParse, SentenceRSTParser
from backend.discourse.rst_tree import RSTNode, RSTTree
from backend.discourse.training import cached_vectors
from backend.errors import ConfigError
from backend.eval.rst_llm import LLMRows, chunk_parser
from backend.eval.rst_parseval import METRICS, ParsevalScores, parseval
from backend.eval.run_files import (
    RECORDS,
    append_record,
    finished_keys,
    open_run,
    read_records,
    write_summary,
)
from backend.llm.capability import StructureChoice
from backend.progress import ProgressFn, no_progress
from backend.retrieval.embedder import get_embedder

KIND = "rst"
KEY = ("doc_id", "parser", "level", "include_root")
LEVELS = ("paragraph", "document")
PARSERS: dict[str, str] = {
    "right_branching": "right-branching inside and across paragraphs, majority train label",
    "left_branching": "left-branching inside and across paragraphs, majority train label",
    "gold_spans_majority": "gold spans, majority train label",
    "majority_on_parser_spans": "the trained parser's spans, majority train label",
    "oracle_paragraphs_first": "gold paragraph trees joined by the gold tree over paragraphs",
    "parser_heads_only": "the trained parser with its transition scorer's label heads only",
    "trained": "the trained sentence-level parser (committed weights)",
}
"""Parser rows by key, in table order; labels in results name the majority label and weights."""
LLM_PARSERS: dict[str, str] = {
    "llm": "the LLM chunk parser's paragraph trees, fallbacks included (the trained parser's trees), "
    "joined by the trained parser's tree over paragraphs",
    "llm_parsed": "paragraph level, only the paragraphs the LLM parsed",
    "llm_fallback": "paragraph level, only the paragraphs that fell back: the trained parser's trees",
}
"""Rows an LLM choice adds, by key (the notes printed under the tables)."""
LLM_LEVELS: dict[str, tuple[str, ...]] = {
    "llm": LEVELS,
    "llm_parsed": ("paragraph",),
    "llm_fallback": ("paragraph",),
}
"""The levels each LLM row is scored at: the subsets have no tree over paragraphs of their own."""


@dataclass(frozen=True)
class ParserRow:
    key: str
    label: str
    predict: DocumentParser


@dataclass
class RstInputs:
    """GUM splits, the dev documents to score, the trained parser and every parser row."""

    train: GumSplit
    dev: GumSplit
    docs: list[GumDocument]
    trained: SentenceRSTParser
    rows: list[ParserRow]


@dataclass
class RstRecord:
    """One document, parser, level and root setting: Parseval match counts, not yet divided."""

    doc_id: str
    parser: str
    label: str
    level: str
    include_root: bool
    span: int
    nuclearity: int
    relation: int
    full: int
    gold: int
    predicted: int
    trees: int


def majority_labels(docs: Sequence[GumDocument]) -> tuple[str, str]:
    """The most frequent (nuclearity, relation) pair of the gold train nodes."""
    nodes = [n for d in docs for t in [*d.paragraph_trees, d.paragraphs_tree] for n in t.nodes]
    return Counter((n.nuclearity, n.relation) for n in nodes).most_common(1)[0][0]


def majority_relabelled(
    nuclearity: str, relation: str, spans: DocumentParser | None = None
) -> DocumentParser:
    """Spans from `spans` (gold when None), every node labelled with the majority pair."""

    def relabel(tree: RSTTree) -> RSTTree:
        nodes = [RSTNode(n.start, n.split, n.end, nuclearity, relation) for n in tree.nodes]
        return RSTTree(tree.units, nodes, "majority-labels")

    def predict(doc: GumDocument) -> DocumentParse:
        parse = spans(doc) if spans else DocumentParse(doc.paragraph_trees, doc.paragraphs_tree)
        return DocumentParse([relabel(t) for t in parse.paragraph_trees], relabel(parse.document_tree))

    return predict


def parser_rows(
    train_docs: Sequence[GumDocument], trained: SentenceRSTParser, vectors: dict[str, np.ndarray]
) -> list[ParserRow]:
    """Every row of `PARSERS`; `vectors` maps each dev document id to its sentence vectors."""
    nuclearity, relation = majority_labels(train_docs)
    predict = trained_parser(trained, vectors)
    heads_only = trained_parser(SentenceRSTParser(trained.model, trained.meta), vectors)
    pair = f"({nuclearity}, {relation})"
    return [
        ParserRow(
            "right_branching", f"right-branching {pair}", branching_parser("right", nuclearity, relation)
        ),
        ParserRow("left_branching", f"left-branching {pair}", branching_parser("left", nuclearity, relation)),
        ParserRow(
            "gold_spans_majority", "gold spans + majority labels", majority_relabelled(nuclearity, relation)
        ),
        ParserRow(
            "majority_on_parser_spans",
            "majority class on parser spans",
            majority_relabelled(nuclearity, relation, predict),
        ),
        ParserRow("oracle_paragraphs_first", "oracle: gold paragraphs-first", gold_paragraphs_parser()),
        ParserRow("parser_heads_only", "parser, transition-head labels", heads_only),
        ParserRow("trained", trained.producer, predict),
    ]


def load_inputs(
    gum_dir: Path = DEFAULT_GUM_DIR,
    cache_dir: Path = Path("data/cache"),
    weights: Path = DEFAULT_WEIGHTS,
    limit: int | None = None,
) -> RstInputs:
    """Read GUM train (for the majority label) and dev, embed dev sentences (cached) and load the parser.

    Raises:
        ConfigError: no GUM splits under `gum_dir`, or no weights file.
    """
    try:
        train, dev = (load_split(name, gum_dir) for name in ("train", "dev"))
    except FileNotFoundError as error:
        raise ConfigError(
            str(error), "Point --gum-dir (or the page's GUM folder) at ../shared/data/gum."
        ) from None
    if not Path(weights).is_file():
        raise ConfigError(
            f"No parser weights at {weights}.", "Train them with python -m scripts.train_rst_parser."
        )
    docs = dev.documents[:limit] if limit else list(dev.documents)
    trained = SentenceRSTParser.load(weights)
    vectors = cached_vectors(docs, Path(cache_dir) / "gum-dev-minilm", get_embedder().encode)
    return RstInputs(train, dev, docs, trained, parser_rows(train.documents, trained, vectors))


def _record(
    doc_id: str, key: str, label: str, level: str, include_root: bool, found: ParsevalScores
) -> RstRecord:
    matched = (found.matched[m] for m in METRICS)
    return RstRecord(
        doc_id, key, label, level, include_root, *matched, found.gold, found.predicted, found.trees
    )


def score_parse(doc: GumDocument, key: str, label: str, parse: DocumentParse) -> list[RstRecord]:
    """The document's Parseval counts for one parse, at both levels, root included and excluded."""
    records = []
    for include_root in (True, False):
        scores = score([doc], lambda _doc: parse, include_root)
        records += [_record(doc.doc_id, key, label, level, include_root, scores[level]) for level in LEVELS]
    return records


def score_document(doc: GumDocument, row: ParserRow) -> list[RstRecord]:
    """The document's Parseval counts for one parser row."""
    return score_parse(doc, row.key, row.label, row.predict(doc))


def score_llm_document(doc: GumDocument, rows: LLMRows) -> list[RstRecord]:
    """The LLM rows' counts for one document from one LLM parse; subsets at paragraph level only."""
    parse, outcomes = rows.parse(doc)
    records = score_parse(doc, "llm", rows.label("llm"), parse)
    for key, fell_back in (("llm_parsed", False), ("llm_fallback", True)):
        pairs = [
            (gold, pred)
            for gold, pred, outcome in zip(doc.paragraph_trees, parse.paragraph_trees, outcomes, strict=True)
            if outcome is not None and (outcome.status == "fallback") is fell_back
        ]
        for include_root in (True, False):
            found = parseval(pairs, include_root)
            records.append(_record(doc.doc_id, key, rows.label(key), "paragraph", include_root, found))
    return records


def llm_rows(inputs: RstInputs, choice: StructureChoice) -> LLMRows:
    """The LLM rows for `choice`; fallbacks and the tree over paragraphs come from the trained parser."""
    trained = next(row.predict for row in inputs.rows if row.key == "trained")
    return LLMRows(chunk_parser(choice, inputs.trained), trained)


def llm_paragraph_counts(records: Sequence[RstRecord]) -> dict[str, int]:
    """Multi-sentence paragraphs the LLM parsed and those that fell back, over `records`."""
    return {
        key: sum(r.trees for r in records if r.parser == key and r.include_root)
        for key in ("llm_parsed", "llm_fallback")
    }


def run_rst_eval(
    out_dir: Path,
    *,
    gum_dir: Path = DEFAULT_GUM_DIR,
    cache_dir: Path = Path("data/cache"),
    weights: Path = DEFAULT_WEIGHTS,
    parsers: Sequence[str] = tuple(PARSERS),
    llm: StructureChoice | None = None,
    limit: int | None = None,
    progress: ProgressFn = no_progress,
) -> list[RstRecord]:
    """Score `parsers` on the first `limit` dev documents (None: all), skipping those already in `out_dir`.

    With `llm`, the LLM rows too; the run's settings then record the model's label ("none" when the
    choice found no capable model and every paragraph falls back).
    """
    unknown = [p for p in parsers if p not in PARSERS]
    if unknown or not parsers:
        raise ConfigError(
            f"Unknown parser row(s): {', '.join(map(repr, unknown)) or '(none given)'}.",
            f"Choose from: {', '.join(PARSERS)}.",
        )
    params: dict[str, Any] = {
        "gum_dir": str(Path(gum_dir).resolve()),
        "weights": str(Path(weights).resolve()),
    }
    if llm is not None:
        params["llm"] = llm.llm.label if llm.llm else "none"
    open_run(out_dir, KIND, params)
    progress("loading GUM, embeddings and the parser", 0, 0)
    inputs = load_inputs(gum_dir, cache_dir, weights, limit)
    records_path = out_dir / RECORDS
    done = finished_keys(records_path, KEY)

    def finished(doc_id: str, levels_of: dict[str, tuple[str, ...]]) -> bool:
        return all(
            (doc_id, parser, level, root) in done
            for parser, levels in levels_of.items()
            for level in levels
            for root in (True, False)
        )

    def save(records: list[RstRecord]) -> None:
        for record in records:
            if (record.doc_id, record.parser, record.level, record.include_root) not in done:
                append_record(records_path, asdict(record))

    jobs: list[tuple[dict[str, tuple[str, ...]], Callable[[GumDocument], list[RstRecord]]]] = [
        ({row.key: LEVELS}, lambda doc, row=row: score_document(doc, row))
        for row in inputs.rows
        if row.key in parsers
    ]
    if llm is not None:
        rows = llm_rows(inputs, llm)
        jobs.append((LLM_LEVELS, lambda doc: score_llm_document(doc, rows)))
    total = len(inputs.docs) * len(jobs)
    count = sum(finished(d.doc_id, levels) for d in inputs.docs for levels, _ in jobs)
    progress("rst", count, total)
    for doc in inputs.docs:
        for levels, scorer in jobs:
            if finished(doc.doc_id, levels):
                continue
            save(scorer(doc))
            count += 1
            progress("rst", count, total)
    records = load_rst_records(out_dir)
    write_summary(out_dir, summarise_rst(records), {**params, "documents": [d.doc_id for d in inputs.docs]})
    return records


def load_rst_records(out_dir: Path) -> list[RstRecord]:
    records = []
    for row in read_records(out_dir / RECORDS):
        try:
            records.append(RstRecord(**row))
        except TypeError:
            continue
    return records


def total_scores(records: Sequence[RstRecord]) -> ParsevalScores:
    """The records' counts summed: micro-averaged Parseval over their documents."""
    matched = {m: sum(getattr(r, m) for r in records) for m in METRICS}
    return ParsevalScores(
        matched,
        sum(r.gold for r in records),
        sum(r.predicted for r in records),
        sum(r.trees for r in records),
    )


def summarise_rst(records: Sequence[RstRecord]) -> list[dict[str, float | int | str]]:
    """F1 in percent per parser, level and root setting (parser order of first appearance).

    `trees` counts the trees scored; a row with none (an LLM subset no paragraph fell into) has no
    F1 and is left out.
    """
    rows = []
    for parser in dict.fromkeys(r.parser for r in records):
        mine = [r for r in records if r.parser == parser]
        for include_root in (True, False):
            for level in LEVELS:
                picked = [r for r in mine if r.level == level and r.include_root == include_root]
                if not sum(r.trees for r in picked):
                    continue
                row: dict[str, float | int | str] = {
                    "parser": parser,
                    "label": picked[0].label,
                    "level": level,
                    "root": "included" if include_root else "excluded",
                }
                row.update(total_scores(picked).as_row())
                row["documents"] = len({r.doc_id for r in picked if r.trees})
                row["trees"] = sum(r.trees for r in picked)
                rows.append(row)
    return rows
