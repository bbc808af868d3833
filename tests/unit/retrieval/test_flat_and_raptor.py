"""Flat baselines' units, RAPTOR clustering and collapsed-tree search, and evidence passages."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from backend.retrieval.doc_units import word_chunks
from backend.retrieval.evidence_spans import kept_end, selection_passages
from backend.retrieval.flat_baselines import build_flat_chunks, flat_select
from backend.retrieval.raptor import cluster_layer, collapsed_select
from backend.retrieval.selection import IndexedTree
from tests.unit.retrieval.conftest import QUERY, leaves_tree, make_doc, with_scores

SENTENCE = "This sentence has exactly eight words in it."


def test_chunks_keep_sentences_whole_stay_in_a_paragraph_and_hold_at_most_100_words() -> None:
    doc = make_doc("\n\n".join([" ".join([SENTENCE] * 30), " ".join([SENTENCE] * 3)]))
    chunks = word_chunks(doc)
    assert [len(c.text.split()) for c in chunks] == [96, 96, 48, 24]
    assert {c.paragraph for c in chunks[:3]} == {0} and chunks[3].paragraph == 1
    sentence_ends = {s.end for s in doc.sentences}
    assert all(c.end in sentence_ends for c in chunks)


def test_flat_selection_is_best_first_within_the_budget() -> None:
    doc = make_doc("\n\n".join(" ".join([SENTENCE] * n) for n in (2, 3, 1)))
    tree = build_flat_chunks(doc, "fc")
    item = with_scores(tree, [0.2, 0.9, 0.5])
    selection = flat_select([item], QUERY, 30)
    assert [(u.node, u.words) for u in selection.units] == [(1, 24), (2, 6)]
    passages = selection_passages([item], [doc], selection)
    assert [p.text for p in passages] == [" ".join([SENTENCE] * 3), "This sentence has exactly eight words"]


def test_adjacent_sentences_of_one_paragraph_become_one_passage() -> None:
    doc = make_doc("One two three. Four five six. Seven eight.\n\nNine ten eleven.")
    tree = leaves_tree([doc.sentence_text(s) for s in doc.sentences], tree_id="fs")
    placed = [
        replace(n, start_char=s.start, end_char=s.end) for n, s in zip(tree.nodes, doc.sentences, strict=True)
    ]
    tree = tree.with_nodes(placed)
    item = with_scores(tree, [0.9, 0.8, 0.1, 0.7])
    passages = selection_passages([item], [doc], flat_select([item], QUERY, 9))
    assert [p.text for p in passages] == ["One two three. Four five six.", "Nine ten eleven."]
    assert passages[0].start == 0 and passages[0].chunk_id == "fs:0-1"


def test_kept_end_cuts_after_the_last_kept_word() -> None:
    text = "alpha  beta gamma"
    assert text[: kept_end(text, 0, len(text), 2)] == "alpha  beta"


def test_clustering_finds_well_separated_groups() -> None:
    rng = np.random.default_rng(0)
    centres = np.eye(3, 16) * 10
    vectors = np.concatenate([c + rng.normal(0, 0.1, (8, 16)) for c in centres])
    groups = cluster_layer(vectors.astype(np.float32), [10] * 24)
    assert groups == [list(range(0, 8)), list(range(8, 16)), list(range(16, 24))]
    # the same points as 100-word chunks: each 800-word group is over the limit and is split again
    smaller = cluster_layer(vectors.astype(np.float32), [100] * 24, max_words=500)
    assert len(smaller) > 3 and all(sum(100 for _ in g) <= 500 or len(g) <= 2 for g in smaller)
    assert sorted(i for g in smaller for i in g) == list(range(24))


def test_collapsed_search_adds_a_merged_clusters_leaves_and_a_summary_as_itself() -> None:
    tree = leaves_tree(["a b", "c d", "e f"], [(0, 2)])
    item = with_scores(tree, [0.1, 0.5, 0.2, 0.9])
    selection = collapsed_select([item], QUERY, 100)
    assert [(u.node, u.kind, u.selected_by) for u in selection.units] == [
        (0, "leaf", 3),
        (2, "leaf", 3),
        (1, "leaf", 1),
    ]
    summary = replace(tree.nodes[3], text="sum", producer="summary:scripted")
    summarised = tree.with_nodes([*tree.nodes[:3], summary])
    selection = collapsed_select([IndexedTree(summarised, item.vectors)], QUERY, 100)
    assert selection.units[0].kind == "summary" and selection.units[0].node == 3
