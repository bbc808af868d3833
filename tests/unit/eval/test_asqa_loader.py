"""The ASQA reader on the hand-written fixture and on the other layouts ASQA copies use."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from backend.errors import ConfigError
from backend.eval.asqa import load_asqa
from tests.conftest import ASQA_FIXTURE as FIXTURE


def test_the_official_layout_is_read_with_pairs_aliases_and_long_answers() -> None:
    questions = load_asqa(FIXTURE, "dev")
    assert [q.sample_id for q in questions] == ["-100001", "-100002", "-100003"]
    bridge = questions[0]
    assert bridge.ambiguous_question == "When did the Lakeview bridge open?"
    assert [p.short_answers for p in bridge.qa_pairs] == [("1931", "May 1931"), ("2004",)]
    assert len(bridge.long_answers) == 2 and bridge.long_answers[1].startswith("The original")
    assert bridge.annotations[0].knowledge[1].wikipage == "Lakeview Bridge"


def test_passages_drop_repeats_empty_and_no_context_placeholders() -> None:
    bridge, harbour, tower = load_asqa(FIXTURE)
    # knowledge 1 repeats pair 1's context; pair 2's context is ASQA's "No context provided"
    assert [p.content[:24] for p in bridge.passages()] == [
        "The first Lakeview bridg",
        "Its concrete replacement",
    ]
    assert [p.wikipage for p in harbour.passages()] == [
        "The Quiet Harbour (novel)",
        "The Quiet Harbour (film)",
    ]
    assert tower.passages() == []


def test_markdown_has_one_heading_per_page_and_every_passage() -> None:
    harbour = load_asqa(FIXTURE)[1]
    text = harbour.to_markdown()
    assert text.startswith("# Sources for: Who wrote The Quiet Harbour?")
    assert "## The Quiet Harbour (novel)\n\nThe Quiet Harbour is a 1962 novel" in text
    assert "## The Quiet Harbour (film)\n\nThe 1970 film adaptation was written by Tomas Rieder." in text


def test_a_list_with_sample_ids_and_json_lines_read_the_same(tmp_path: Path) -> None:
    instances = list(json.loads(FIXTURE.read_text())["dev"].values())
    as_list, as_lines = tmp_path / "list.json", tmp_path / "lines.jsonl"
    as_list.write_text(json.dumps(instances))
    as_lines.write_text("\n".join(json.dumps(i) for i in instances) + "\n")
    expected = load_asqa(FIXTURE)
    assert load_asqa(as_list) == expected
    assert load_asqa(as_lines) == expected


def test_a_missing_split_names_the_ones_present(tmp_path: Path) -> None:
    path = tmp_path / "asqa.json"
    path.write_text(json.dumps({"train": {}, "dev": {}}))
    with pytest.raises(ConfigError, match=r"\['dev', 'train'\], not 'test'"):
        load_asqa(path, "test")


def test_files_that_are_not_asqa_are_refused_with_the_expected_shape(tmp_path: Path) -> None:
    qasper_like = tmp_path / "q.json"
    qasper_like.write_text(json.dumps({"1503.00841": {"title": "A paper", "qas": []}}))
    with pytest.raises(ConfigError, match="has no `ambiguous_question`"):
        load_asqa(qasper_like)
    garbage = tmp_path / "g.json"
    garbage.write_text("{not json\n")
    with pytest.raises(ConfigError, match="neither JSON nor JSON lines"):
        load_asqa(garbage)
    with pytest.raises(ConfigError, match="No ASQA file"):
        load_asqa(tmp_path / "absent.json")
