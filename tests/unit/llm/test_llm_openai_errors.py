"""How OpenAICompatibleLLM maps the SDK's exceptions; a real server runs in tests/integration."""

import httpx2
import openai
import pytest
from pydantic import SecretStr

from backend.config import Settings
from backend.errors import (
    ConfigError,
    LLMRequestError,
    ModelNotFoundError,
    ServerUnreachableError,
)
from backend.llm.base import ChatMessage, LLMClient
from backend.llm.openai_client import OpenAICompatibleLLM
from backend.llm.retry import ServerBusyError

URL = "http://127.0.0.1:9/v1"
KEY = "sk-secret-value-1234"
REQUEST = httpx2.Request("POST", f"{URL}/chat/completions")


def _client(**overrides) -> OpenAICompatibleLLM:
    values = {"llm_backend": "openai", "llm_model": "m", "openai_base_url": URL, "openai_api_key": KEY}
    return OpenAICompatibleLLM(Settings(**{**values, **overrides}))


def _status_error(cls: type[openai.APIStatusError], code: int, message: str) -> openai.APIStatusError:
    return cls(message, response=httpx2.Response(code, request=REQUEST), body=None)


def _raiser(exc: Exception):
    def fn(**kwargs):
        raise exc

    return fn


def test_is_an_llm_client():
    assert isinstance(_client(), LLMClient)


@pytest.mark.parametrize(
    ("exc", "error_type", "text"),
    [
        (openai.APITimeoutError(request=REQUEST), ServerUnreachableError, "did not answer within 120 s"),
        (openai.APIConnectionError(request=REQUEST), ServerUnreachableError, "connection failed"),
        (_status_error(openai.InternalServerError, 503, "busy"), ServerBusyError, "answered 503: busy"),
        (_status_error(openai.RateLimitError, 429, "slow down"), ServerBusyError, "answered 429"),
        (
            _status_error(openai.BadRequestError, 400, "bad max_tokens"),
            LLMRequestError,
            "400: bad max_tokens",
        ),
        (_status_error(openai.AuthenticationError, 401, "no"), LLMRequestError, "Check the API key"),
    ],
)
def test_sdk_errors_map_to_the_catalogue(exc, error_type, text):
    with pytest.raises(error_type) as info:
        _client()._call(_raiser(exc))
    assert text in str(info.value)
    assert URL in str(info.value)


def test_not_found_is_model_not_found_and_does_not_recurse():
    client = _client(llm_timeout_s=1)
    with pytest.raises(ModelNotFoundError) as info:
        client._call(_raiser(_status_error(openai.NotFoundError, 404, "no model m")))
    assert "does not serve 'm'" in str(info.value)
    assert "/v1" in str(info.value)


def test_the_api_key_never_appears_in_messages():
    echo = _status_error(openai.AuthenticationError, 401, f"invalid key {KEY}")
    with pytest.raises(LLMRequestError) as info:
        _client()._call(_raiser(echo))
    assert KEY not in str(info.value)
    assert "***" in str(info.value)
    assert KEY not in repr(Settings(openai_api_key=SecretStr(KEY)))


def test_unreachable_server_after_bounded_retries(closed_port_url, fast_backoff):
    client = _client(openai_base_url=f"{closed_port_url}/v1", llm_max_retries=1)
    with pytest.raises(ServerUnreachableError, match="gave up after 1 retries") as info:
        client.chat([ChatMessage("user", "hi")])
    assert closed_port_url in str(info.value)
    status = client.status()
    assert not status.ok
    assert closed_port_url in status.detail


def test_no_model_and_several_served_asks_to_choose(monkeypatch):
    client = _client(llm_model="")
    monkeypatch.setattr(client, "list_models", lambda: ["a", "b"])
    with pytest.raises(ConfigError, match="serves 2: a, b"):
        client.model()


def test_no_model_and_one_served_picks_it(monkeypatch):
    client = _client(llm_model="")
    monkeypatch.setattr(client, "list_models", lambda: ["only"])
    assert client.model() == "only"
