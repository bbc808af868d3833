"""EmbeddedLLM's own logic with a stand-in for llama.cpp; the real model runs in tests/integration."""

import threading
from pathlib import Path

import pytest

from backend.config import Settings
from backend.errors import LLMRequestError
from backend.llm import embedded
from backend.llm.base import ChatMessage, LLMClient
from backend.llm.transcript import TURN_STOP


class StandInLlama:
    """Tokenizes by words and answers a fixed text, recording the calls."""

    def __init__(self, answer: str = " Paris\n") -> None:
        self.answer = answer
        self.calls: list[dict] = []

    def tokenize(self, text: bytes, add_bos: bool = True, special: bool = False) -> list[int]:
        return [0] * (len(text.split()) + int(add_bos))

    def create_completion(self, prompt: str, **kwargs) -> dict:
        self.calls.append({"prompt": prompt, **kwargs})
        return {
            "choices": [{"text": self.answer, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": len(prompt.split()) + 1, "completion_tokens": 2},
        }


@pytest.fixture
def stand_in(monkeypatch: pytest.MonkeyPatch) -> StandInLlama:
    llama = StandInLlama()
    monkeypatch.setattr(embedded, "ensure_model_file", lambda data_dir: Path(data_dir) / "m.gguf")
    monkeypatch.setattr(
        embedded, "load_model", lambda path, n_ctx: embedded.LoadedModel(llama, threading.Lock(), 0.1)
    )
    return llama


def _client(**overrides) -> embedded.EmbeddedLLM:
    return embedded.EmbeddedLLM(Settings(**overrides))


def test_chat_renders_a_transcript_and_strips_the_answer(stand_in):
    client = _client()
    assert isinstance(client, LLMClient)
    reply = client.chat([ChatMessage("user", "Capital of France?")], max_tokens=8, temperature=0.0)
    assert reply.text == "Paris"
    assert reply.prompt_tokens == 6  # five words plus BOS
    assert reply.completion_tokens == 2
    assert reply.finish_reason == "stop"
    assert reply.model == embedded.MODEL_NAME
    call = stand_in.calls[-1]
    assert call["prompt"] == "Question: Capital of France?\nAnswer:"
    assert call["stop"] == [TURN_STOP]
    assert call["max_tokens"] == 8
    assert call["temperature"] == 0.0


def test_complete_is_raw_and_uses_the_settings_defaults(stand_in):
    reply = _client(llm_max_tokens=33, llm_temperature=0.7).complete("Once upon")
    assert reply.text == " Paris\n"
    call = stand_in.calls[-1]
    assert (call["prompt"], call["max_tokens"], call["temperature"], call["stop"]) == (
        "Once upon",
        33,
        0.7,
        None,
    )


def test_a_prompt_that_does_not_fit_names_the_counts(stand_in):
    client = _client(llm_context_tokens=512)
    with pytest.raises(LLMRequestError) as info:
        client.complete("word " * 500, max_tokens=100)
    message = str(info.value)
    assert "501 tokens" in message
    assert "100" in message
    assert "holds 512" in message
    assert "at most 412 tokens" in message
    assert stand_in.calls == []


def test_count_tokens_excludes_bos(stand_in):
    assert _client().count_tokens("three small words") == 3


def test_label_and_status(stand_in):
    client = _client()
    assert client.label == "embedded:gemma-3-270m (base)" == Settings().llm_label
    status = client.status()
    assert status.ok
    assert "base model" in status.detail
