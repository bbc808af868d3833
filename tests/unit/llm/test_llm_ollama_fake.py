"""The Ollama client against tests/fakes/fake_ollama.py, a fake of the protocol (not a real Ollama)."""

import pytest

from backend.config import Settings
from backend.errors import LLMRequestError, ModelNotFoundError, ServerUnreachableError
from backend.llm.base import ChatMessage, LLMClient
from backend.llm.ollama_client import OllamaLLM
from backend.llm.retry import ServerBusyError

pytestmark = pytest.mark.usefixtures("fast_backoff")


def _client(host: str, model: str = "llama3.2", **overrides) -> OllamaLLM:
    settings = Settings(llm_backend="ollama", llm_model=model, ollama_host=host, **overrides)
    return OllamaLLM(settings)


def test_is_an_llm_client(fake_ollama):
    assert isinstance(_client(fake_ollama.url), LLMClient)


def test_chat_returns_text_counts_and_sends_the_context_size(fake_ollama):
    client = _client(fake_ollama.url, llm_context_tokens=4096)
    reply = client.chat(
        [ChatMessage("system", "Be brief."), ChatMessage("user", "what is a nucleus")],
        max_tokens=50,
        temperature=0.0,
        stop=["\n\n"],
    )
    assert reply.text == "Echo: what is a nucleus"
    assert reply.model == "llama3.2"
    assert reply.prompt_tokens == 6
    assert reply.completion_tokens == 5
    assert reply.finish_reason == "stop"
    assert reply.retries == 0
    path, body = fake_ollama.requests[-1]
    assert path == "/api/chat"
    assert body["stream"] is False
    assert body["options"] == {"num_ctx": 4096, "num_predict": 50, "temperature": 0.0, "stop": ["\n\n"]}


def test_complete_uses_raw_generate_and_reports_length(fake_ollama):
    reply = _client(fake_ollama.url).complete("one two three four", max_tokens=2)
    assert reply.text == "Echo: one"
    assert reply.finish_reason == "length"
    path, body = fake_ollama.requests[-1]
    assert path == "/api/generate"
    assert body["raw"] is True


def test_list_models_and_status(fake_ollama):
    client = _client(fake_ollama.url)
    assert client.list_models() == ["llama3.2:latest", "qwen2.5:0.5b"]
    status = client.status()
    assert status.ok, status.detail
    assert status.name == "ollama:llama3.2"


def test_status_without_a_model_lists_the_choices(fake_ollama):
    status = _client(fake_ollama.url, model="").status()
    assert not status.ok
    assert "llama3.2:latest, qwen2.5:0.5b" in status.detail


def test_missing_model_names_installed_models_and_the_pull_command(fake_ollama):
    client = _client(fake_ollama.url, model="mistral")
    with pytest.raises(ModelNotFoundError) as info:
        client.chat([ChatMessage("user", "hi")])
    message = str(info.value)
    assert fake_ollama.url in message
    assert "llama3.2:latest, qwen2.5:0.5b" in message
    assert "ollama pull mistral" in message
    assert not client.status().ok
    assert "ollama pull mistral" in client.status().detail


def test_no_model_chosen_is_a_request_error(fake_ollama):
    with pytest.raises(LLMRequestError, match="No Ollama model is chosen"):
        _client(fake_ollama.url, model="").complete("hi")


def test_server_down_names_the_url_and_the_next_step(closed_port_url):
    client = _client(closed_port_url, llm_max_retries=1)
    with pytest.raises(ServerUnreachableError) as info:
        client.chat([ChatMessage("user", "hi")])
    message = str(info.value)
    assert f"Ollama at {closed_port_url} did not answer (connection refused)" in message
    assert "ollama serve" in message
    assert "gave up after 1 retries" in message
    status = client.status()
    assert not status.ok
    assert closed_port_url in status.detail


def test_500s_are_retried_within_the_bound(fake_ollama):
    fake_ollama.fail_next = 2
    reply = _client(fake_ollama.url, llm_max_retries=2).complete("hello there")
    assert reply.retries == 2
    assert len(fake_ollama.requests) == 3


def test_500s_beyond_the_bound_fail_with_the_status_code(fake_ollama):
    fake_ollama.fail_next = 10
    with pytest.raises(ServerBusyError, match="answered 500") as info:
        _client(fake_ollama.url, llm_max_retries=2).complete("hello")
    assert info.value.status_code == 500
    assert len(fake_ollama.requests) == 3


def test_slow_server_times_out_as_unreachable(fake_ollama):
    fake_ollama.delay_s = 1.0
    with pytest.raises(ServerUnreachableError, match=r"did not answer within 0.2 s"):
        _client(fake_ollama.url, llm_timeout_s=0.2, llm_max_retries=1).complete("hello")
    assert len(fake_ollama.requests) == 2
