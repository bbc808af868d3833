"""The OpenAI-compatible client against a REAL server: llama-cpp-python's, on 127.0.0.1.

It serves the embedded GGUF, so the test runs offline; it needs `llama-cpp-python[server]`.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator

import pytest

from backend.config import Settings
from backend.errors import ModelNotFoundError, ServerUnreachableError
from backend.llm import ChatMessage, llm_status
from backend.llm.model_file import ensure_model_file
from backend.llm.openai_client import OpenAICompatibleLLM

pytestmark = pytest.mark.integration

ALIAS = "gemma-3-270m"
START_TIMEOUT_S = 90


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_until_serving(url: str, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        try:
            with urllib.request.urlopen(f"{url}/models", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        if proc.poll() is not None:
            raise RuntimeError(
                f"llama_cpp.server exited with {proc.returncode}: {proc.stderr.read()[-2000:]}"
            )
        if time.monotonic() > deadline:
            raise RuntimeError(f"llama_cpp.server did not answer at {url} within {START_TIMEOUT_S} s")
        time.sleep(0.3)


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    pytest.importorskip("fastapi", reason="needs llama-cpp-python[server]")
    model = ensure_model_file(tmp_path_factory.mktemp("llm-server-data"))
    port = _free_port()
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--model_alias", ALIAS]
    # The GGUF has no chat template; the server's llama-2 fallback makes this model stop at once.
    command += ["--chat_format", "gemma"]
    command += ["--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048", "--verbose", "False"]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        url = f"http://127.0.0.1:{port}/v1"
        _wait_until_serving(url, proc)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _settings(url: str, **overrides) -> Settings:
    return Settings(llm_backend="openai", openai_base_url=url, llm_max_retries=0, **overrides)


def test_status_picks_the_only_served_model(server_url: str) -> None:
    client = OpenAICompatibleLLM(_settings(server_url))
    assert client.list_models() == [ALIAS]
    assert client.model() == ALIAS
    status = llm_status(_settings(server_url))
    assert status.ok, status.detail


def test_complete_returns_text_and_the_servers_token_counts(server_url: str) -> None:
    client = OpenAICompatibleLLM(_settings(server_url, llm_model=ALIAS))
    reply = client.complete("The three branches of government are", max_tokens=16, temperature=0.0)
    assert reply.text.strip()
    assert reply.prompt_tokens > 5
    assert 0 < reply.completion_tokens <= 16
    assert reply.finish_reason in {"length", "stop"}
    assert reply.latency_s > 0


def test_chat_returns_text_and_counts(server_url: str) -> None:
    client = OpenAICompatibleLLM(_settings(server_url, llm_model=ALIAS))
    reply = client.chat(
        [ChatMessage("user", "Tell me about the city of Paris.")], max_tokens=16, temperature=0.0
    )
    assert reply.text.strip()
    assert reply.prompt_tokens > 5
    assert reply.completion_tokens > 0


def test_status_names_the_served_models_for_an_unknown_model(server_url: str) -> None:
    status = OpenAICompatibleLLM(_settings(server_url, llm_model="no-such-model")).status()
    assert not status.ok
    assert f"it serves: {ALIAS}" in status.detail


def test_a_base_url_without_v1_is_reported_as_model_not_found_with_the_hint(server_url: str) -> None:
    client = OpenAICompatibleLLM(_settings(server_url.removesuffix("/v1"), llm_model=ALIAS))
    with pytest.raises(ModelNotFoundError, match="ends in /v1"):
        client.complete("Hello", max_tokens=4)


def test_an_unreachable_base_url_is_reported_with_the_address() -> None:
    url = f"http://127.0.0.1:{_free_port()}/v1"
    client = OpenAICompatibleLLM(_settings(url, llm_model=ALIAS))
    with pytest.raises(ServerUnreachableError, match=r"did not answer \(connection failed\)") as info:
        client.chat([ChatMessage("user", "hi")])
    assert url in str(info.value)
