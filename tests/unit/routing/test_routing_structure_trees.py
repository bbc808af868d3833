"""Structure trees from Markdown, HTML, QASPER section names, PDF outlines and PDF layout cues."""

from __future__ import annotations

from pathlib import Path

import pytest

from backend.eval.qasper import QasperPaper
from backend.ingest.build import build_document
from backend.ingest.loaded import Block
from backend.ingest.loaders import load_file
from backend.routing.pdf_headings import LAYOUT_PRODUCER, OUTLINE_PRODUCER, pdf_heading_cues
from backend.routing.structure_builders import (
    FLAT_PRODUCER,
    tree_from_document,
    tree_from_passages,
    tree_from_qasper,
)
from backend.routing.structure_tree import StructureTree
from tests.unit.routing.helpers import build_sized_pdf, count_words, doc_from_blocks, hand_tree

SAMPLES = Path(__file__).resolve().parents[3] / "assets" / "samples"


def outline(tree: StructureTree) -> list[tuple[int, str, str]]:
    """(depth, type, text) in reading order: the shape a test can compare at a glance."""
    return [(depth, tree.node(i).type, tree.node(i).text) for i, depth in tree.preorder()]


def load(data: bytes, name: str):
    loaded = load_file(data, name, 10**8)
    return build_document(loaded, doc_id="x", name=name, size_bytes=len(data), count_tokens_many=count_words)


def test_markdown_headings_nest_with_short_ids_in_reading_order() -> None:
    md = b"# Report\n\nOpening.\n\n## Costs\n\nBuses cost a lot.\n\n#### Deep\n\nDeep text.\n\n"
    md += b"## Air\n\nCleaner.\n"
    tree = tree_from_document(load(md, "r.md"))
    assert tree.producer == "markdown headings"
    assert outline(tree) == [
        (0, "structure", "Report"),
        (1, "content", "Opening."),
        (1, "structure", "Costs"),
        (2, "content", "Buses cost a lot."),
        (2, "structure", "Deep"),
        (3, "content", "Deep text."),
        (1, "structure", "Air"),
        (2, "content", "Cleaner."),
    ]
    assert [i for i, _ in tree.preorder()] == [str(n) for n in range(8)]
    doc = load(md, "r.md")
    assert [tree.node(i).source_id for i in tree.content_ids()] == [p.id for p in doc.paragraphs]


def test_html_sample_keeps_its_h2_h3_hierarchy() -> None:
    data = (SAMPLES / "beehive-losses.html").read_bytes()
    tree = tree_from_document(load(data, "beehive-losses.html"))
    assert tree.producer == "html headings"
    shape = [(d, t) for d, kind, t in outline(tree) if kind == "structure"]
    assert (1, "Causes we considered") in shape
    assert (2, "Varroa mites") in shape
    causes = next(i for i in tree.structure_ids() if tree.node(i).text == "Causes we considered")
    assert tree.node(tree.node(causes).children[0]).text == "Varroa mites"


def test_text_without_headings_is_one_flat_section() -> None:
    doc = doc_from_blocks([Block("paragraph", "One."), Block("paragraph", "Two.")], title="T")
    tree = tree_from_document(doc)
    assert tree.producer == FLAT_PRODUCER
    assert outline(tree) == [(0, "structure", "T"), (1, "content", "One."), (1, "content", "Two.")]


def test_qasper_section_names_nest_on_their_separator() -> None:
    paper = QasperPaper(
        paper_id="p1",
        title="A Paper",
        abstract="We study things.",
        sections=(
            ("Introduction", ("Intro para.",)),
            ("Method", ("Method overview.",)),
            ("Method ::: Data", ("Data para.",)),
            ("Method ::: Data ::: Cleaning", ("Cleaning para.",)),
            ("Method ::: Model", ("Model para.",)),
            ("Results", ("Results para.",)),
        ),
        questions=(),
    )
    tree = tree_from_qasper(paper)
    assert [(d, t) for d, kind, t in outline(tree) if kind == "structure"] == [
        (0, "A Paper"),
        (1, "Abstract"),
        (1, "Introduction"),
        (1, "Method"),
        (2, "Data"),
        (3, "Cleaning"),
        (2, "Model"),
        (1, "Results"),
    ]
    model = next(i for i in tree.structure_ids() if tree.node(i).text == "Model")
    assert [tree.node(c).source_id for c in tree.node(model).children] == ["s4p0"]


def test_qasper_names_in_markdown_headings_nest_too() -> None:
    """QasperPaper.to_markdown writes "## Method ::: Data" as a flat heading; routing nests it."""
    paper = QasperPaper("p", "T", "Abs.", (("Method", ("M.",)), ("Method ::: Data", ("D.",))), ())
    tree = tree_from_document(load(paper.to_markdown().encode(), "p.md"))
    assert "qasper section names" in tree.producer
    assert [(d, t) for d, kind, t in outline(tree) if kind == "structure"] == [
        (0, "T"),
        (1, "Abstract"),
        (1, "Method"),
        (2, "Data"),
    ]


def test_a_missing_qasper_parent_is_created() -> None:
    paper = QasperPaper("p", "T", "", (("Experiments ::: Setup", ("S.",)),), ())
    tree = tree_from_qasper(paper)
    assert [(d, t) for d, kind, t in outline(tree) if kind == "structure"] == [
        (0, "T"),
        (1, "Experiments"),
        (2, "Setup"),
    ]


def test_pdf_outline_cues_are_read_with_levels() -> None:
    pdf = build_sized_pdf(
        [[("Intro", 11), ("Body text here.", 11)], [("Scope", 11), ("More text.", 11)]],
        outline=[("Intro", 0, 1), ("Scope", 1, 2)],
    )
    cues, producer = pdf_heading_cues(pdf)
    assert producer == OUTLINE_PRODUCER
    assert [(c.text, c.level, c.page) for c in cues] == [("Intro", 1, 1), ("Scope", 2, 2)]


PAPER_PAGES = [
    [
        ("Winter Losses in Two Apiaries", 20),
        ("1 Introduction", 14),
        ("Colonies died over the winter in one apiary.", 11),
        ("1.1 Scope", 12),
        ("We compare two sites with the same beekeepers.", 11),
    ],
    [
        ("2 Results", 14),
        ("The orchard site lost eight of nine hives.", 11),
        ("Acknowledgements", 14),
        ("We thank the garden volunteers.", 11),
    ],
]


def test_layout_cues_use_numbering_for_levels_and_size_for_the_rest() -> None:
    cues, producer = pdf_heading_cues(build_sized_pdf(PAPER_PAGES))
    assert producer == LAYOUT_PRODUCER
    assert [(c.text, c.level, c.source) for c in cues] == [
        ("Winter Losses in Two Apiaries", 0, "title"),
        ("1 Introduction", 1, "numbering"),
        ("1.1 Scope", 2, "numbering"),
        ("2 Results", 1, "numbering"),
        ("Acknowledgements", 1, "font size"),
    ]


def test_layout_cues_rank_unnumbered_sizes() -> None:
    pages = [[("Big Part", 16), ("Text one is here.", 10), ("Smaller Part", 13), ("Text two is here.", 10)]]
    cues, _ = pdf_heading_cues(build_sized_pdf(pages))
    # the largest line stands alone on page one, so it is read as the title
    assert [(c.text, c.level) for c in cues] == [("Big Part", 0), ("Smaller Part", 1)]


def test_a_pdf_set_in_one_size_without_numbers_has_no_cues() -> None:
    pages = [[("Plain line one is here.", 11), ("Plain line two is here.", 11)]]
    assert pdf_heading_cues(build_sized_pdf(pages)) == ([], "")


def test_garbage_bytes_give_no_cues() -> None:
    assert pdf_heading_cues(b"%PDF-1.4 not really") == ([], "")


def test_layout_cues_become_the_tree_of_a_pdf_ingested_without_headings() -> None:
    pdf = build_sized_pdf(PAPER_PAGES)
    doc = load(pdf, "paper.pdf")
    assert doc.tree.heading_count() == 0  # ingestion reads no headings without an outline
    cues, producer = pdf_heading_cues(pdf)
    tree = tree_from_document(doc, cues, producer)
    assert tree.producer == LAYOUT_PRODUCER
    assert tree.node(tree.root).text == "Winter Losses in Two Apiaries"  # the title cue names the root
    headings = [(d, t) for d, kind, t in outline(tree) if kind == "structure"]
    assert headings == [
        (0, "Winter Losses in Two Apiaries"),
        (1, "1 Introduction"),
        (2, "1.1 Scope"),
        (1, "2 Results"),
        (1, "Acknowledgements"),
    ]
    texts = [tree.node(i).text for i in tree.content_ids()]
    assert any("lost eight of nine hives" in t for t in texts)
    assert not any(t.startswith("2 Results") for t in texts)


def test_cues_are_ignored_when_ingestion_found_headings() -> None:
    doc = doc_from_blocks([Block("heading", "H", 2), Block("paragraph", "Text.")], title="T")
    cues, producer = pdf_heading_cues(build_sized_pdf(PAPER_PAGES))
    assert tree_from_document(doc, cues, producer).producer == "markdown headings"


def test_passages_tree_for_the_no_structure_ablation(make_passage) -> None:
    passages = [make_passage("c1", "First chunk."), make_passage("c2", "Second chunk.")]
    tree = tree_from_passages("d", "Doc", passages)
    assert outline(tree) == [
        (0, "structure", "Doc"),
        (1, "content", "First chunk."),
        (1, "content", "Second chunk."),
    ]
    assert [tree.node(i).source_id for i in tree.content_ids()] == ["c1", "c2"]


def test_round_trip_and_validation() -> None:
    tree = hand_tree()
    again = StructureTree.from_dict(tree.to_dict())
    assert again.to_dict() == tree.to_dict()
    broken = tree.to_dict()
    broken["nodes"][3]["parent"] = "99"
    with pytest.raises(ValueError, match=r"does not point back|does not exist"):
        StructureTree.from_dict(broken)
    bad_kind = tree.to_dict()
    bad_kind["nodes"][1]["type"] = "banana"
    with pytest.raises(ValueError, match="type"):
        StructureTree.from_dict(bad_kind)
    heading_under_content = tree.to_dict()
    heading_under_content["nodes"][4]["type"] = "structure"
    with pytest.raises(ValueError, match="heading cannot sit under content"):
        StructureTree.from_dict(heading_under_content)
    with pytest.raises(ValueError, match="schema"):
        StructureTree.from_dict({**tree.to_dict(), "schema_version": 99})
