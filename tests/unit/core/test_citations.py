from backend.generation.citations import cited_numbers, resolve_citations
from backend.retrieval.search import Passage


def _passages(n: int) -> list[Passage]:
    return [Passage(f"c{i}", "d", "doc.pdf", f"text {i}", 0, 5, (i,)) for i in range(1, n + 1)]


def test_markers_in_order_without_repeats() -> None:
    assert cited_numbers("A [2]. B [1, 3]; again [2] and [4;5].") == [2, 1, 3, 4, 5]


def test_non_markers_are_ignored() -> None:
    assert cited_numbers("see [a], [ ], [1a] and [12345]") == []


def test_invalid_numbers_are_dropped_and_reported() -> None:
    citations, warnings = resolve_citations("Yes [1] and [9] and [0].", _passages(2))
    assert [c.number for c in citations] == [1]
    assert citations[0].passage.chunk_id == "c1"
    assert any("[9]" in w for w in warnings) and any("[0]" in w for w in warnings)


def test_uncited_answer_has_no_citations() -> None:
    assert resolve_citations("No markers here.", _passages(3)) == ([], [])


def test_place_names_document_and_pages() -> None:
    passage = Passage("c", "d", "report.pdf", "t", 10, 20, (3, 4))
    assert passage.place == "report.pdf, pp. 3-4, chars 10-20"
