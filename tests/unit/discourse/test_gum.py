from pathlib import Path

from backend.discourse.gum import load_split, parse_dis, read_conllu

DIS = """( Root (span 1 4)
  ( Nucleus (span 1 2) (rel2par span)
    ( Nucleus (leaf 1) (rel2par span) (text _!It rained ,_!) )
    ( Satellite (leaf 2) (rel2par causal-result) (text _!so we stayed ._!) )
  )
  ( Satellite (span 3 4) (rel2par elaboration-additional)
    ( Nucleus (leaf 3) (rel2par joint-list) (text _!We read ._!) )
    ( Nucleus (leaf 4) (rel2par joint-list) (text _!We slept ._!) )
  )
)
"""
CONLLU = """# newpar
# text = It rained, so we stayed.
1\tIt\n2\trained\n3\t,\n4\tso\n5\twe\n6\tstayed\n7\t.

# text = We read.
1\tWe\n2\tread\n3\t.

# newpar
# text = We slept.
1\tWe\n2\tslept\n3\t.
"""


def write_split(root: Path, name: str, dis: str, conllu: str) -> None:
    (root / "dev" / "rst").mkdir(parents=True, exist_ok=True)
    (root / "dev" / "conllu").mkdir(parents=True, exist_ok=True)
    (root / "dev" / "rst" / f"{name}.dis").write_text(dis)
    (root / "dev" / "conllu" / f"{name}.conllu").write_text(conllu)


def test_small_document_converts_with_lca_labels(tmp_path: Path) -> None:
    write_split(tmp_path, "tiny", DIS, CONLLU)
    (doc,) = load_split("dev", tmp_path).documents
    assert doc.sentences == ["It rained, so we stayed.", "We read.", "We slept."]
    assert doc.paragraph_starts == [0, 2]
    tree = doc.document_tree
    assert [(n.span, n.split, n.nuclearity, n.relation) for n in tree.nodes] == [
        ((0, 2), 0, "NS", "elaboration"),
        ((1, 2), 1, "NN", "joint"),
    ]
    # Paragraph 1 (sentences 0-1) is not a subtree: its tree takes the root's labels (LCA).
    assert [(n.nuclearity, n.relation) for n in doc.paragraph_trees[0].nodes] == [("NS", "elaboration")]
    assert doc.paragraph_trees[1].root is None
    assert [(n.span, n.relation) for n in doc.paragraphs_tree.nodes] == [((0, 1), "joint")]


def test_misaligned_documents_are_skipped_and_counted(tmp_path: Path) -> None:
    write_split(tmp_path, "bad", DIS, CONLLU.replace("slept", "woke"))
    split = load_split("dev", tmp_path)
    assert split.documents == []
    assert split.skipped == [("bad", "EDU 4 tokens do not match the CoNLL-U words at word 10")]


def test_real_gum_document(gum_dir: Path) -> None:
    name = "GUM_academic_exposure"
    root = parse_dis((gum_dir / "dev" / "rst" / f"{name}.dis").read_text(encoding="utf-8"))
    texts, words, starts = read_conllu(gum_dir / "dev" / "conllu" / f"{name}.conllu")
    assert (root.start, root.end) == (0, 109)  # (span 1 110)
    assert texts[0] == "Introduction" and starts[:2] == [0, 1]
    split = load_split("dev", gum_dir)
    doc = next(d for d in split.documents if d.doc_id == name)
    assert len(doc.sentences) == len(texts) == len(words)
    assert len(doc.document_tree.nodes) == len(texts) - 1
    assert sum(len(t.units) for t in doc.paragraph_trees) == len(texts)


def test_dev_split_counts_match_the_readme(gum_dir: Path) -> None:
    split = load_split("dev", gum_dir)
    docs = split.documents
    assert split.skipped == []
    assert len(docs) == 30
    assert sum(len(d.sentences) for d in docs) == 1575
    assert sum(len(d.paragraph_trees) for d in docs) == 584
    assert sum(len(t.units) > 1 for d in docs for t in d.paragraph_trees) == 320
