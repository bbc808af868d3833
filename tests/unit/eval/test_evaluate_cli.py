"""The Evaluate CLI's arguments: the four kinds, and the old invocation without a kind."""

from __future__ import annotations

from pathlib import Path

import pytest

from scripts.evaluate import parse_args


def test_the_old_invocation_without_a_kind_is_a_qa_run() -> None:
    args = parse_args(["--methods", "standard_rag,extractive", "--papers", "2", "--out", "results/x"])
    assert args.kind == "qa" and args.methods == "standard_rag,extractive" and args.papers == 2
    assert args.out == Path("results/x") and args.per_paper == 3


def test_each_kind_has_its_own_options_and_defaults() -> None:
    retrieval = parse_args(["retrieval", "--budgets", "200, 400", "--out", "r"])
    assert retrieval.budgets == [200, 400] and retrieval.methods.startswith("disretrieval,bisection")
    rst = parse_args(["rst", "--limit", "3", "--parsers", "trained", "--out", "r"])
    assert rst.limit == 3 and rst.parsers == "trained"
    asqa = parse_args(["asqa", "--dataset", "a.json", "--allow-weak-model", "--out", "r"])
    assert asqa.allow_weak_model and asqa.split == "dev" and asqa.methods == "standard_rag"
    assert not parse_args(["asqa", "--dataset", "a.json", "--out", "r"]).allow_weak_model


def test_bad_budgets_and_a_missing_asqa_file_are_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse_args(["retrieval", "--budgets", "200,lots", "--out", "r"])
    assert "whole numbers" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        parse_args(["asqa", "--out", "r"])
