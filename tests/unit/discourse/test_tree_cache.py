"""Chunk-tree cache on disk, pre-parsing a document with progress, and the prompt text forms."""

from __future__ import annotations

from pathlib import Path

from backend.discourse.chunk_parse import ChunkParse, ParseOutcome, TrainedChunkParser
from backend.discourse.parser import SentenceRSTParser
from backend.discourse.rhetorical_graph import Edge, RhetoricalGraph
from backend.discourse.rst_text_form import graph_text, markers_text, tree_text, trees_text
from backend.discourse.rst_tree import RSTNode, RSTTree, Unit
from backend.discourse.tree_cache import TreeCache, preparse_document
from backend.ingest.build import build_document
from backend.ingest.loaders import load_file

TEXT = "Buses are electric now. They cost more to buy. But they are cheaper to run."


class CountingParser:
    """Wraps the trained parser and counts parses, to see the cache at work."""

    def __init__(self, parser: SentenceRSTParser) -> None:
        self.inner = TrainedChunkParser(parser)
        self.calls = 0
        self.key = "test:counting"

    def parse(self, text: str) -> ChunkParse:
        self.calls += 1
        return self.inner.parse(text)


def test_a_parse_is_stored_and_read_back_with_its_outcome(tmp_path: Path, parser: SentenceRSTParser) -> None:
    cache = TreeCache(tmp_path)
    counting = CountingParser(parser)
    first, hit = cache.parse(TEXT, counting)
    assert not hit and counting.calls == 1
    again, hit = cache.parse(TEXT, counting)
    assert hit and counting.calls == 1
    assert again.tree.to_dict() == first.tree.to_dict() and again.outcome == first.outcome


def test_keys_separate_producers_and_texts(tmp_path: Path, parser: SentenceRSTParser) -> None:
    cache = TreeCache(tmp_path)
    counting = CountingParser(parser)
    cache.parse(TEXT, counting)
    assert cache.get(TEXT, "llm:ollama:other") is None
    assert cache.get(TEXT + " More.", counting.key) is None


def test_a_fallback_outcome_is_cached_too(tmp_path: Path) -> None:
    cache = TreeCache(tmp_path)
    tree = RSTTree(
        [Unit("A.", 0, 2), Unit("B.", 3, 5)], [RSTNode(0, 0, 1, "NN", "JOINT")], "p", "disco-rag-intra"
    )
    outcome = ParseOutcome("fallback", "llm:x", "p", (), "The reply lists no numbered EDUs.")
    cache.put("A. B.", "llm:x", ChunkParse(tree, outcome))
    assert cache.get("A. B.", "llm:x").outcome.fallback_reason == "The reply lists no numbered EDUs."


class FlakyParser:
    """Fails its first call as a parser whose server is down does (a call-failed fallback)."""

    key = "test:flaky"

    def __init__(self, parser: SentenceRSTParser) -> None:
        self.inner = TrainedChunkParser(parser)
        self.calls = 0

    def parse(self, text: str) -> ChunkParse:
        self.calls += 1
        parse = self.inner.parse(text)
        if self.calls == 1:
            reason = "the model call failed: [E200] down"
            parse.outcome = ParseOutcome("fallback", self.key, parse.tree.producer, (), reason, True)
        return parse


def test_a_fallback_forced_by_a_failed_call_is_not_cached(tmp_path: Path, parser: SentenceRSTParser) -> None:
    cache = TreeCache(tmp_path)
    flaky = FlakyParser(parser)
    first, hit = cache.parse(TEXT, flaky)
    assert not hit and first.outcome.call_failed and cache.get(TEXT, flaky.key) is None
    second, hit = cache.parse(TEXT, flaky)
    assert not hit and flaky.calls == 2 and second.outcome.status == "parsed"
    assert cache.get(TEXT, flaky.key).outcome.status == "parsed"


def test_a_corrupt_entry_is_a_miss_and_is_rebuilt(tmp_path: Path, parser: SentenceRSTParser) -> None:
    cache = TreeCache(tmp_path)
    counting = CountingParser(parser)
    cache.parse(TEXT, counting)
    for path in (tmp_path / "rst_trees").rglob("*.json"):
        path.write_text("{not json", encoding="utf-8")
    _, hit = cache.parse(TEXT, counting)
    assert not hit and counting.calls == 2
    assert cache.get(TEXT, counting.key) is not None


def test_preparse_reports_progress_and_a_second_run_is_all_cached(
    tmp_path: Path, parser: SentenceRSTParser
) -> None:
    paragraphs = [f"Paragraph {i} says one thing. It adds another thing. Then a third." for i in range(30)]
    data = "\n\n".join(paragraphs).encode()
    doc = build_document(
        load_file(data, "doc.txt", max_bytes=10**6),
        doc_id="d1",
        name="doc.txt",
        size_bytes=len(data),
        count_tokens_many=lambda texts: [len(t.split()) for t in texts],
        chunk_tokens=40,
    )
    assert len(doc.chunks) > 2
    cache, counting = TreeCache(tmp_path), CountingParser(parser)
    seen: list[tuple[str, int, int]] = []
    report = preparse_document(doc, counting, cache, lambda *a: seen.append(a))
    assert seen[0] == ("parse trees", 0, len(doc.chunks)) and seen[-1][1:] == (len(doc.chunks),) * 2
    assert report.parsed == len(doc.chunks) and report.cached == 0
    again = preparse_document(doc, counting, cache)
    assert again.cached == len(doc.chunks) and again.parsed == 0 and counting.calls == len(doc.chunks)


def test_tree_text_is_one_bracketed_line_with_roles_relations_and_edu_openings() -> None:
    units = [
        Unit("Buses are electric now."),
        Unit("They cost more to buy."),
        Unit("But they are cheaper to run."),
    ]
    nodes = [RSTNode(0, 0, 2, "NS", "ELABORATION"), RSTNode(1, 1, 2, "NN", "CONTRAST")]
    tree = RSTTree(units, nodes, "m", "disco-rag-intra")
    assert tree_text(tree, 2, words=3) == (
        '[2] ELABORATION(N 2.1 "Buses are electric…", '
        'S CONTRAST(N 2.2 "They cost more…", N 2.3 "But they are…"))'
    )
    assert tree_text(tree, 2, words=0) == "[2] ELABORATION(N 2.1, S CONTRAST(N 2.2, N 2.3))"


def test_gum_labels_are_shown_with_disco_rag_names() -> None:
    tree = RSTTree([Unit("A."), Unit("B.")], [RSTNode(0, 0, 1, "NS", "causal")], "m", "gum-coarse")
    assert "CAUSE" in trees_text([(1, tree)])


def test_graph_text_lists_related_pairs_only() -> None:
    edges = [
        Edge(0, 1, "SUPPORTS"),
        Edge(1, 0, "UNRELATED"),
        Edge(0, 2, "UNRELATED"),
        Edge(2, 0, "CONTRADICTS"),
    ]
    graph = RhetoricalGraph(3, edges, "m")
    assert graph_text(graph).splitlines() == [
        "[1] -> [2]: SUPPORTS",
        "[3] -> [1]: CONTRADICTS",
        "The other 4 ordered pairs are UNRELATED.",
    ]
    assert graph_text(graph, limit=2) == "[1] -> [2]: SUPPORTS\nThe other 1 ordered pairs are UNRELATED."


def test_markers_text_summarises_none() -> None:
    assert markers_text({(0, 1): "however", (1, 0): "NONE"}) == (
        "[1] -> [2]: however\nThe other 1 ordered pairs have no marker."
    )
