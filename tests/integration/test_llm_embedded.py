"""The real embedded model (Gemma 3 270M base through llama-cpp-python), loaded once per process."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from backend.config import Settings
from backend.errors import LLMRequestError
from backend.llm import ChatMessage, llm_status, make_llm
from backend.llm import embedded as embedded_module
from backend.llm.embedded import EmbeddedLLM

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return Settings(data_dir=tmp_path_factory.mktemp("llm-data"), llm_context_tokens=2048)


@pytest.fixture(scope="module")
def llm(settings: Settings) -> EmbeddedLLM:
    client = make_llm(settings)
    assert isinstance(client, EmbeddedLLM)
    return client


def test_the_model_file_is_written_into_the_data_dir(settings: Settings, llm: EmbeddedLLM) -> None:
    path = Path(settings.data_dir) / "models" / "gemma-3-270m-q4_k_m.gguf"
    assert path.stat().st_size == 253_113_024
    assert not list(path.parent.glob("*.tmp"))


def test_complete_generates_text_with_token_counts(llm: EmbeddedLLM) -> None:
    reply = llm.complete("The three branches of government are", max_tokens=16, temperature=0.0)
    assert reply.text.strip()
    assert reply.prompt_tokens == llm.count_tokens("The three branches of government are") + 1  # BOS
    assert 0 < reply.completion_tokens <= 16
    assert reply.latency_s > 0
    assert reply.finish_reason in {"length", "stop"}


def test_chat_answers_a_transcript(llm: EmbeddedLLM) -> None:
    reply = llm.chat(
        [ChatMessage("system", "Answer briefly."), ChatMessage("user", "What is the capital of France?")],
        max_tokens=12,
        temperature=0.0,
    )
    assert reply.text == reply.text.strip() != ""
    assert "Question:" not in reply.text
    assert reply.prompt_tokens > 10
    assert reply.completion_tokens > 0


def test_two_threads_share_the_model_safely(llm: EmbeddedLLM) -> None:
    messages = [ChatMessage("user", "Name a large animal.")]
    expected = llm.chat(messages, max_tokens=12, temperature=0.0).text
    results: list[str] = []
    errors: list[BaseException] = []

    def ask() -> None:
        try:
            results.append(make_llm(llm._settings).chat(messages, max_tokens=12, temperature=0.0).text)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=ask) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors
    assert results == [expected, expected]  # greedy decoding: interleaved calls would differ


def test_the_model_loads_once(settings: Settings, llm: EmbeddedLLM) -> None:
    assert make_llm(settings) is llm
    again = EmbeddedLLM(settings)  # a fresh client, e.g. after an unrelated settings change
    assert again.model is llm.model
    keys = [
        key
        for key in embedded_module._MODELS
        if key[0] == str(llm._settings.data_dir / "models" / "gemma-3-270m-q4_k_m.gguf")
    ]
    assert len(keys) == 1


def test_a_prompt_longer_than_the_context_is_refused_with_counts(llm: EmbeddedLLM) -> None:
    prompt = "discourse " * 3000
    tokens = llm.count_tokens(prompt)
    assert tokens > llm.context_window
    with pytest.raises(LLMRequestError, match=rf"prompt has {tokens + 1} tokens.*holds 2048"):
        llm.complete(prompt, max_tokens=10)


def test_status_is_ok(settings: Settings, llm: EmbeddedLLM) -> None:
    status = llm_status(settings)
    assert status.ok
    assert status.name == "embedded:gemma-3-270m (base)"


def test_the_bundled_base_model_fails_the_capability_probe(settings: Settings, llm: EmbeddedLLM) -> None:
    """The probe really runs on a re-check, and the base model cannot keep to the formats."""
    from backend.llm.capability import capability, choose_structure_llm

    report = capability(llm, refresh=True)
    assert len(report.checks) == 3 and not report.error
    assert not report.follows_formats
    assert choose_structure_llm(settings, llm).llm is None
