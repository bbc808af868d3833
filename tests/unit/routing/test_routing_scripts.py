"""The optional LoRA script without a GPU: example loading, loss masking, the missing-package message.

`WordTokenizer` below is a stand-in written for this test (one id per word), not a real tokenizer.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from scripts.finetune_router_lora import _require, encode, load_examples


class WordTokenizer:
    eos_token = "<eos>"

    def apply_chat_template(self, chat, tokenize: bool, add_generation_prompt: bool) -> str:
        return " ".join(m["content"] for m in chat) + " <assistant>"

    def __call__(self, text: str, add_special_tokens: bool = False) -> dict[str, list[int]]:
        return {"input_ids": [hash(w) % 1000 for w in text.split()]}


def test_examples_are_loaded_and_malformed_lines_skipped(tmp_path: Path) -> None:
    path = tmp_path / "ex.jsonl"
    good = {"question": "q?", "subtree": "0: T", "behaviour": "[ANSWER] 3"}
    path.write_text(
        "\n".join([json.dumps(good), "{not json", json.dumps({"question": "q"})]), encoding="utf-8"
    )
    assert load_examples(path) == [good]


def test_the_loss_covers_only_the_behaviour() -> None:
    row = encode(
        {"question": "q?", "subtree": "0: T\n  1: p", "behaviour": "[ANSWER] 1"}, WordTokenizer(), 4096
    )
    target = 2  # "[ANSWER]" and "1<eos>", one id per word
    assert len(row["input_ids"]) == len(row["labels"])
    assert row["labels"][-target:] == row["input_ids"][-target:]
    assert set(row["labels"][:-target]) == {-100}


def test_a_long_prompt_is_cut_from_the_front_to_fit() -> None:
    row = encode(
        {"question": "q?", "subtree": "word " * 500, "behaviour": "Cannot answer"}, WordTokenizer(), 64
    )
    assert len(row["input_ids"]) == 64


def test_missing_peft_is_explained(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    monkeypatch.setitem(sys.modules, "peft", None)  # makes `import peft` raise ImportError
    with pytest.raises(SystemExit) as stop:
        _require()
    assert stop.value.code == 2
    assert "pip install peft transformers" in capsys.readouterr().err
