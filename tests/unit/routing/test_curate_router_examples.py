"""scripts/curate_router_examples.py on a tiny library, with the curating model replaced by a fake.

The curator is `tests/fakes/scripted_llm.ScriptedLLM`: every reply below is hand-written for its
question (a clean answer, a messy one with an invalid id, a refusal, prose with no behaviour, a
failed call), never produced by a model. Retrieval and the structure tree are real (MiniLM,
embedded Chroma). The file written is read back with the fine-tuning script's own loader.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import scripts.curate_router_examples as curate
from backend.config import Settings
from backend.errors import LLMRequestError
from backend.routing.router_prompt import router_messages
from backend.studio import Studio
from scripts.finetune_router_lora import load_examples
from tests.fakes.scripted_llm import ScriptedLLM

DOC = (
    "# Bus report\n\n## Costs\n\nAn electric bus costs 750,000 dollars. A diesel bus costs less.\n\n"
    "## Winter\n\nRange drops by a third in the cold.\n"
)
REPLIES = {
    "How much does an electric bus cost?": "The price is in [ANSWER] 2.",
    "What happens to range in the cold?": "answer: #4, also [EXPAND] 1; [ANSWER] 3",
    "Who built the depot?": "Cannot answer",
    "Is the bus red?": "The bus is lovely, I think.",
    "Where is the depot?": None,  # the call fails
}
Curate = Callable[[ScriptedLLM], tuple[int, Path]]


def hand_written_reply(prompt: str) -> str:
    """The reply written above for the question in `prompt`; None stands for a failed call."""
    question = next(q for q in REPLIES if f"Question: {q}" in prompt)
    reply = REPLIES[question]
    if reply is None:
        raise LLMRequestError("The curating server answered 500.", "Try again later.")
    return reply


@pytest.fixture(scope="module")
def studio(tmp_path_factory: pytest.TempPathFactory) -> Studio:
    studio = Studio(Settings(data_dir=tmp_path_factory.mktemp("data"), top_k=1))
    studio.indexer.index_file(DOC.encode(), "bus.md")
    return studio


@pytest.fixture
def curate_with(studio: Studio, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Curate]:
    """Runs the script's main() on REPLIES' questions with `llm` as the curator; returns (code, out file)."""

    def run(llm: ScriptedLLM) -> tuple[int, Path]:
        studio.llm = llm  # replaces the cached client the script would ask
        monkeypatch.setattr(curate, "load_settings", lambda: studio.settings)
        monkeypatch.setattr(curate, "Studio", lambda _settings: studio)
        questions = tmp_path / "questions.txt"
        questions.write_text("\n".join(REPLIES) + "\n\n", encoding="utf-8")
        out = tmp_path / "examples" / "router.jsonl"
        argv = ["curate", "--backend", "ollama", "--model", "curator", "--questions", str(questions)]
        monkeypatch.setattr(sys, "argv", [*argv, "--out", str(out)])
        return curate.main(), out

    yield run
    studio.__dict__.pop("llm", None)


def test_examples_hold_question_view_and_canonical_behaviour(
    curate_with: Curate, capsys: pytest.CaptureFixture[str]
) -> None:
    llm = ScriptedLLM(hand_written_reply, label="ollama:curator-test")
    code, out = curate_with(llm)
    assert code == 0
    examples = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [e["question"] for e in examples] == list(REPLIES)[:3]
    cost, cold, refused = examples
    assert cost["subtree"] == (
        "0: Bus report\n  1: Costs\n    2: An electric bus costs 750,000 dollars. A diesel bus costs less.\n"
        "  3: Winter [collapsed]"
    )
    assert cost["behaviour"] == "[ANSWER] 2" and cost["raw_reply"] == "The price is in [ANSWER] 2."
    assert (
        cold["subtree"]
        == "0: Bus report\n  1: Costs [collapsed]\n  3: Winter\n    4: Range drops by a third in the cold."
    )
    assert cold["behaviour"] == "[ANSWER] 4\n[EXPAND] 1", "heading 3 named as an answer is dropped"
    assert refused["behaviour"] == "Cannot answer"
    assert {e["tree_producer"] for e in examples} == {"markdown headings"}
    assert {e["curator"] for e in examples} == {"ollama:curator-test"}
    # the view stored is the one the curator was shown
    assert all(e["subtree"] in prompt for e, prompt in zip(examples, llm.prompts[:3], strict=True))
    printed = capsys.readouterr()
    assert "skipped a call: [E" in printed.err and "500" in printed.err
    assert (
        f"wrote 3 examples to {out}: answer 2, expand 1, failed 1, kept 3, refuse 1, unusable 1"
        in printed.out
    )


def test_the_fine_tuning_loader_reads_the_file_and_rebuilds_the_curation_prompt(curate_with: Curate) -> None:
    llm = ScriptedLLM(hand_written_reply, label="ollama:curator-test")
    _, out = curate_with(llm)
    examples = load_examples(out)
    assert [e["behaviour"] for e in examples] == ["[ANSWER] 2", "[ANSWER] 4\n[EXPAND] 1", "Cannot answer"]
    shown = {p for p in llm.prompts if "Is the bus red?" not in p and "Where is the depot?" not in p}
    for example in examples:
        # finetune_router_lora.encode builds its prompt this way: training sees what curation saw
        messages = router_messages(
            example["question"], example["subtree"], allow_expand=True, allow_refuse=True, use_structure=True
        )
        assert messages[-1].content in shown


def test_the_embedded_base_model_is_refused_before_any_call(curate_with: Curate) -> None:
    base = ScriptedLLM("never used", label="embedded:gemma-3-270m (base)")
    code, out = curate_with(base)
    assert code == 2 and base.prompts == [] and not out.exists()
