"""The stages Disco-RAG and its baselines share: retrieval, chunk trees, the graph, and their records.

Each stage returns what it built, a `StageCost` (calls, tokens, wall-clock seconds, cache hits) and
a JSON-ready record for `Answer.structures`, which names who produced each structure and, where
a fallback happened, why. Who builds structure is decided once per run by
`choose_structure_llm`: an LLM that passed the format probe (or was forced in the settings), or
the trained producers.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from backend.background_jobs import JOBS, Job, JobKey, JobRegistry
from backend.config import Settings
from backend.discourse.chunk_parse import ChunkParser, TrainedChunkParser
from backend.discourse.graph_builder import llm_graph, trained_graph
from backend.discourse.llm_rst_parser import LLMChunkParser
from backend.discourse.rhetorical_graph import RhetoricalGraph
from backend.discourse.rst_text_form import graph_text, trees_text
from backend.discourse.rst_tree import RSTTree
from backend.discourse.tree_cache import PreparseReport, TreeCache, preparse_document
from backend.generation.answer import Answer, StageCost
from backend.generation.discourse_prompts import Section
from backend.ingest.document import Document
from backend.llm.base import LLMClient
from backend.llm.capability import StructureChoice, choose_structure_llm
from backend.pipelines.registry import RunContext
from backend.retrieval.search import Passage, retrieve_chunks


def retrieve(question: str, ctx: RunContext, queries: Sequence[str] = ()) -> tuple[list[Passage], StageCost]:
    """Top-k chunks for the question; extra `queries` are merged in by best score per chunk."""
    started = time.perf_counter()
    best: dict[str, Passage] = {}
    for query in [question, *queries]:
        found = retrieve_chunks(
            query,
            embedder=ctx.embedder,
            store=ctx.store,
            library=ctx.library,
            k=ctx.settings.top_k,
            doc_ids=ctx.doc_ids,
        )
        for passage in found:
            known = best.get(passage.chunk_id)
            if known is None or (passage.score or 0.0) > (known.score or 0.0):
                best[passage.chunk_id] = passage
    ranked = sorted(best.values(), key=lambda p: -(p.score or 0.0))[: ctx.settings.top_k]
    return ranked, StageCost("retrieve", latency_s=time.perf_counter() - started)


def no_passages(method: str, question: str, ctx: RunContext, costs: list[StageCost]) -> Answer:
    warning = "No passages were found: the selected documents are empty or not indexed."
    return Answer(method, question, "", [], [], ctx.llm.label, costs, [warning])


def chunk_parser_for(choice: StructureChoice) -> ChunkParser:
    """The LLM parser (trained fallback) when an LLM builds structure, else the trained parser."""
    return TrainedChunkParser() if choice.llm is None else LLMChunkParser(choice.llm)


@dataclass
class TreeStage:
    trees: list[RSTTree]
    records: list[dict[str, Any]]
    cost: StageCost


def parse_trees(passages: Sequence[Passage], parser: ChunkParser, cache: TreeCache, reason: str) -> TreeStage:
    """Each passage's tree from the cache or the parser; one record per passage for the UI."""
    started = time.perf_counter()
    cost = StageCost("parse trees")
    trees, records = [], []
    for number, passage in enumerate(passages, start=1):
        parse, hit = cache.parse(passage.text, parser)
        for completion in [] if hit else parse.completions:
            cost.add(completion)
        cost.cache_hits += hit
        trees.append(parse.tree)
        records.append(
            {
                "number": number,
                "chunk_id": passage.chunk_id,
                "place": passage.place,
                "producer": parse.tree.producer,
                "outcome": parse.outcome.to_dict(),
                "cache_hit": hit,
                "choice": reason,
                "tree": parse.tree.to_dict(),
            }
        )
    cost.latency_s = time.perf_counter() - started
    return TreeStage(trees, records, cost)


@dataclass
class GraphStage:
    graph: RhetoricalGraph
    record: dict[str, Any]
    cost: StageCost
    warnings: list[str] = field(default_factory=list)


def build_graph(passages: Sequence[Passage], choice: StructureChoice) -> GraphStage:
    """The listwise graph over the passages by the chosen producer, with its record and cost."""
    started = time.perf_counter()
    texts = [p.text for p in passages]
    build = trained_graph(texts) if choice.llm is None else llm_graph(choice.llm, texts)
    cost = StageCost("graph")
    for completion in build.completions:
        cost.add(completion)
    cost.latency_s = time.perf_counter() - started
    graph = build.graph
    record = {
        "graph": graph.to_dict(),
        "producer": graph.producer,
        "requested": graph.metadata.get("requested", graph.producer),
        "fallback_reason": graph.metadata.get("fallback_reason", ""),
        "not_predicted": graph.metadata.get("not_predicted", []),
        "choice": choice.reason,
        "warnings": list(build.warnings),
        "chunks": [
            {"number": i, "place": p.place, "preview": " ".join(p.text.split()[:40])}
            for i, p in enumerate(passages, start=1)
        ],
    }
    return GraphStage(graph, record, cost, list(build.warnings))


def structure_sections(
    n: int, words: int | None, trees: Sequence[RSTTree] | None, graph: RhetoricalGraph | None, plan: str = ""
) -> list[Section]:
    """Prompt sections for the first n passages; `words` None leaves the trees out."""
    sections: list[Section] = []
    if trees and words is not None:
        sections.append(("rst_trees", trees_text(list(enumerate(trees[:n], start=1)), words)))
    if graph is not None and n > 1:
        sections.append(("rhetorical_graph", graph_text(graph, n)))
    if plan:
        sections.append(("plan", plan))
    return sections


def current_chunk_parser(settings: Settings, llm: LLMClient) -> tuple[ChunkParser, StructureChoice]:
    choice = choose_structure_llm(settings, llm)
    return chunk_parser_for(choice), choice


def _preparse_key(settings: Settings, doc_id: str, parser: ChunkParser) -> JobKey:
    """Document and producer asked, within one data folder (tests and settings may use several)."""
    return ("preparse", str(settings.data_dir), doc_id, parser.key)


def start_preparse(
    settings: Settings, llm: LLMClient, doc: Document, jobs: JobRegistry = JOBS
) -> Job[PreparseReport]:
    """`preparse` in a background job, which outlives the page that started it; the job already
    running for this document and producer is returned instead of a second one. Trees parsed
    before a cancel or failure stay cached, so starting again resumes cheaply."""
    parser, _ = current_chunk_parser(settings, llm)
    cache = TreeCache(settings.data_dir)
    return jobs.start(
        _preparse_key(settings, doc.id, parser),
        lambda progress: preparse_document(doc, parser, cache, progress),
    )


def preparse_job(
    settings: Settings, llm: LLMClient, doc_id: str, jobs: JobRegistry = JOBS
) -> Job[PreparseReport] | None:
    """The latest pre-parse job of `doc_id` with the current producer, running or ended, if any."""
    parser, _ = current_chunk_parser(settings, llm)
    return jobs.get(_preparse_key(settings, doc_id, parser))
