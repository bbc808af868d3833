"""Tree files on disk, tree ids, and the selection record's JSON form."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from backend.errors import MalformedOutputError
from backend.retrieval.dual_selection import dual_select
from backend.retrieval.selection_record import SelectionRecord, TreeUsed, make_record
from backend.retrieval.tree_files import TreeFiles, TreeKey
from tests.unit.retrieval.conftest import QUERY, leaves_tree, make_doc, with_scores


def test_tree_ids_change_with_what_shapes_the_tree_and_ignore_tau_when_merge_only() -> None:
    doc = make_doc("One sentence here. Another one there.")
    merge_only = TreeKey("disretrieval", "minilm", "parser-v2")
    assert merge_only.tree_id(doc) == TreeKey("disretrieval", "minilm", "parser-v2", None, 99).tree_id(doc)
    summarised = TreeKey("disretrieval", "minilm", "parser-v2", "ollama:qwen", 50)
    ids = {
        merge_only.tree_id(doc),
        summarised.tree_id(doc),
        TreeKey("disretrieval", "minilm", "parser-v2", "ollama:qwen", 0).tree_id(doc),
        TreeKey("bisection", "minilm").tree_id(doc),
        merge_only.tree_id(make_doc("One sentence here. Another one there!", doc_id="doc2")),
    }
    assert len(ids) == 5 and all(i.startswith(("disretrieval-", "bisection-")) for i in ids)


def test_tree_files_round_trip_and_are_removed_with_their_document(tmp_path: Path) -> None:
    files = TreeFiles(tmp_path)
    tree = leaves_tree(["a b", "c"], [(0, 1)], tree_id="disretrieval-abc")
    files.put(tree)
    assert files.get("doc1", tree.tree_id) == tree and files.tree_ids("doc1") == [tree.tree_id]
    (files.root / "doc1" / f"{tree.tree_id}.json").write_text("{torn", encoding="utf-8")
    assert files.get("doc1", tree.tree_id) is None, "an unreadable file is a miss, rebuilt later"
    files.remove_document("doc1")
    assert files.tree_ids("doc1") == [] and not files.exists("doc1", tree.tree_id)
    with pytest.raises(KeyError):
        files.put(leaves_tree(["a"], tree_id="../escape"))


def test_selection_record_round_trips_and_rejects_unknown_trees() -> None:
    tree = leaves_tree(["a b", "c d", "e"], [(0, 1), (3, 2)], tree_id="t1")
    item = with_scores(tree, [0.2, 0.9, 0.1, 0.5, 0.3])
    selection = dual_select([item], QUERY, 3, 2)
    used = TreeUsed("t1", "doc1", "d.md", "disretrieval", "parser", tree.producers(), None, None, 5, True)
    record = make_record("disretrieval", [item], [used], selection, 2, "merge-only")
    again = SelectionRecord.from_dict(json.loads(json.dumps(record.to_dict())))
    assert again == record and again.words == 3
    assert [s.node for s in again.selected] == sorted(s.node for s in again.selected)
    broken = record.to_dict()
    broken["visits"][0]["tree_id"] = "elsewhere"
    with pytest.raises(MalformedOutputError):
        SelectionRecord.from_dict(broken)
