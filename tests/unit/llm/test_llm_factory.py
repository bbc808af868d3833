import pytest

from backend.config import Settings
from backend.errors import ConfigError, ServerUnreachableError
from backend.llm import factory, list_ollama_models, llm_status, make_llm
from backend.llm.ollama_client import OllamaLLM
from backend.llm.openai_client import OpenAICompatibleLLM


def test_backend_choice_and_caching_by_llm_settings():
    ollama = Settings(llm_backend="ollama", llm_model="x")
    client = make_llm(ollama)
    assert isinstance(client, OllamaLLM)
    assert make_llm(ollama.updated(top_k=9)) is client  # not an LLM setting
    assert make_llm(ollama.updated(llm_model="y")) is not client
    assert isinstance(make_llm(Settings(llm_backend="openai", llm_model="x")), OpenAICompatibleLLM)


def test_the_cache_is_bounded():
    for i in range(factory._CACHE_SIZE + 3):
        make_llm(Settings(llm_backend="ollama", llm_model=f"m{i}"))
    assert len(factory._CLIENTS) <= factory._CACHE_SIZE


def test_status_never_raises(monkeypatch, closed_port_url):
    def broken(settings):
        raise ConfigError("llama-cpp-python is not installed.", "Install it.")

    monkeypatch.setattr(factory, "_build", broken)
    status = llm_status(Settings(data_dir="elsewhere"))
    assert not status.ok
    assert "not installed" in status.detail

    monkeypatch.setattr(factory, "_build", lambda settings: 1 / 0)
    assert "ZeroDivisionError" in llm_status(Settings(data_dir="elsewhere2")).detail


def test_status_of_a_down_server(closed_port_url):
    status = llm_status(Settings(llm_backend="ollama", llm_model="x", ollama_host=closed_port_url))
    assert not status.ok
    assert closed_port_url in status.detail


def test_list_ollama_models(fake_ollama, closed_port_url):
    assert list_ollama_models(Settings(ollama_host=fake_ollama.url)) == ["llama3.2:latest", "qwen2.5:0.5b"]
    with pytest.raises(ServerUnreachableError):
        list_ollama_models(Settings(ollama_host=closed_port_url))
