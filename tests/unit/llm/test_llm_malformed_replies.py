"""Servers that answer 200 with an unusable body: a coded E500 error, bounded retries, no raw exception.

Both clients run over real HTTP against the fakes (`tests/fakes/fake_openai.py`,
`tests/fakes/fake_ollama.py`, no model) switched to send broken bodies; the last test runs the
studio's methods end to end against such a server.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import ollama
import pytest
from openai._models import construct_type
from openai.types.chat import ChatCompletion

from backend.config import Settings
from backend.errors import LLMRequestError, MalformedOutputError, StudioError
from backend.llm.base import ChatMessage
from backend.llm.ollama_client import OllamaLLM
from backend.llm.openai_client import OpenAICompatibleLLM
from backend.llm.retry import MalformedReplyError
from backend.studio import Studio
from tests.conftest import SAMPLES
from tests.fakes import fake_ollama, fake_openai
from tests.fakes.fake_ollama import FakeOllama
from tests.fakes.fake_openai import MODEL, FakeOpenAI

pytestmark = pytest.mark.usefixtures("fast_backoff")

KEY = "sk-malformed-test-4b2e9d"
RAW_NAMES = ("Traceback", "JSONDecodeError", "ValidationError", "IndexError", "AttributeError", "TypeError")
OPENAI_SENT = {
    "invalid_json": "a body that is not JSON",
    "not_an_object": "JSON that is not an object",
    "empty_choices": "an empty `choices` list",
    "no_message": "a choice without a `message`",
    "no_content": "a message without `content`",
}
OLLAMA_SENT = {
    ("chat", "invalid_json"): "a body that is not JSON",
    ("chat", "not_an_object"): "JSON that is not an object",
    ("chat", "no_message"): "off Ollama's schema (message: Field required)",
    ("chat", "no_content"): "a message without `content`",
    ("complete", "invalid_json"): "a body that is not JSON",
    ("complete", "not_an_object"): "JSON that is not an object",
    ("complete", "no_message"): "a reply without `response`",
    ("complete", "no_content"): "a reply without `response`",
}


def openai_client(url: str, retries: int = 0) -> OpenAICompatibleLLM:
    settings = Settings(
        llm_backend="openai",
        llm_model=MODEL,
        openai_base_url=url,
        openai_api_key=KEY,
        llm_max_retries=retries,
    )
    return OpenAICompatibleLLM(settings)


def ollama_client(host: str, retries: int = 0) -> OllamaLLM:
    settings = Settings(llm_backend="ollama", llm_model="llama3.2", ollama_host=host, llm_max_retries=retries)
    return OllamaLLM(settings)


def ask(client: OpenAICompatibleLLM | OllamaLLM, call: str = "chat") -> object:
    if call == "chat":
        return client.chat([ChatMessage("user", "hi")])
    return client.complete("hi")


def assert_clean(error: StudioError, where: str) -> str:
    """Coded, names the server, says what to do, and carries no raw exception along."""
    message = str(error)
    assert isinstance(error, MalformedOutputError) and message.startswith("[E500] ")
    assert where in message and "answered 200 but sent back" in message
    assert "Check the server's log" in message and "embedded model in Settings" in message
    assert not [name for name in RAW_NAMES if name in message], message
    assert error.__cause__ is None and (error.__context__ is None or error.__suppress_context__)
    return message


def test_the_fakes_cover_every_kind() -> None:
    assert set(OPENAI_SENT) == set(fake_openai.MALFORMED_KINDS)
    assert {kind for _, kind in OLLAMA_SENT} == set(fake_ollama.MALFORMED_KINDS)


@pytest.mark.parametrize("kind", fake_openai.MALFORMED_KINDS)
def test_openai_malformed_body_is_a_coded_error(kind: str) -> None:
    with FakeOpenAI(malformed=kind) as server:
        with pytest.raises(MalformedReplyError) as info:
            ask(openai_client(server.url))
        assert server.chat_requests == 1
    message = assert_clean(info.value, f"The server at {server.url} ({MODEL})")
    assert OPENAI_SENT[kind] in message
    assert KEY not in message


@pytest.mark.parametrize(("call", "kind"), sorted(OLLAMA_SENT))
def test_ollama_malformed_body_is_a_coded_error(call: str, kind: str) -> None:
    with FakeOllama() as server:
        server.malformed = kind
        with pytest.raises(MalformedReplyError) as info:
            ask(ollama_client(server.url), call)
        assert len(server.requests) == 1
    message = assert_clean(info.value, f"Ollama at {server.url} (llama3.2)")
    assert OLLAMA_SENT[(call, kind)] in message


def test_openai_garbage_is_retried_within_the_bound_and_says_so() -> None:
    with FakeOpenAI(malformed="invalid_json") as server:
        with pytest.raises(MalformedReplyError, match="gave up after 2 retries") as info:
            ask(openai_client(server.url, retries=2))
        assert server.chat_requests == 3
    assert_clean(info.value, server.url)


def test_ollama_garbage_is_retried_within_the_bound_and_says_so() -> None:
    with FakeOllama() as server:
        server.malformed = "no_message"
        with pytest.raises(MalformedReplyError, match="gave up after 2 retries"):
            ask(ollama_client(server.url, retries=2), "complete")
        assert len(server.requests) == 3


def test_one_garbled_body_is_recovered_by_a_retry() -> None:
    with FakeOpenAI(malformed="empty_choices") as openai_server, FakeOllama() as ollama_server:
        openai_server.malformed_next = 1
        ollama_server.malformed, ollama_server.malformed_next = "invalid_json", 1
        from_openai = ask(openai_client(openai_server.url, retries=2))
        from_ollama = ask(ollama_client(ollama_server.url, retries=2))
        assert openai_server.chat_requests == 2 and len(ollama_server.requests) == 2
    assert from_openai.text and from_openai.retries == 1  # type: ignore[attr-defined]
    assert from_ollama.text == "Echo: hi" and from_ollama.retries == 1  # type: ignore[attr-defined]


def test_a_model_list_that_is_garbage_is_a_status_not_a_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    client = openai_client("http://127.0.0.1:9/v1")
    monkeypatch.setattr(client, "_call", lambda fn, **_: ["not", "a", "page"])
    with pytest.raises(MalformedReplyError, match="a model list without a `data` list"):
        client.list_models()
    status = client.status()
    assert not status.ok and status.detail.startswith("[E500]")


def reply_with(content: object, key: str = "content") -> ChatCompletion:
    message = {"role": "assistant", key: content} if key else {"role": "assistant"}
    body = {"id": "x", "model": MODEL, "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}
    return construct_type(type_=ChatCompletion, value=body)  # as the SDK builds it: no validation


def test_null_or_empty_content_stays_an_empty_reply_and_is_not_malformed() -> None:
    client = openai_client("http://127.0.0.1:9/v1")
    assert client._first_choice(reply_with(None), chat=True) == ("", "stop")
    assert client._first_choice(reply_with(""), chat=True) == ("", "stop")
    with pytest.raises(MalformedReplyError, match="`content` that is not text"):
        client._first_choice(reply_with(42), chat=True)
    with pytest.raises(MalformedReplyError, match="a choice without `text`"):
        client._first_choice(reply_with("x"), chat=False)
    local = ollama_client("http://127.0.0.1:9")
    assert local._text(ollama.Message(role="assistant", content=None), "content") == ""
    assert local._text(ollama.Message(role="assistant", content=""), "content") == ""


def test_an_empty_reply_is_still_reported_as_empty_not_malformed(monkeypatch: pytest.MonkeyPatch) -> None:
    client = openai_client("http://127.0.0.1:9/v1", retries=1)
    monkeypatch.setattr(client, "_call", lambda fn, **_: reply_with(""))
    with pytest.raises(LLMRequestError, match="returned an empty reply 2 time") as info:
        client.chat([ChatMessage("user", "hi")])
    assert not isinstance(info.value, MalformedOutputError)


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The sample documents indexed once for the end-to-end test."""
    path = tmp_path_factory.mktemp("data")
    indexer = Studio(Settings(data_dir=path)).indexer
    for sample in sorted(SAMPLES.iterdir()):
        indexer.index_file(sample.read_bytes(), sample.name)
    yield path


def test_methods_end_to_end_against_a_garbage_server(data_dir: Path) -> None:
    question = "How much does an electric bus cost compared with a diesel bus?"
    with FakeOpenAI(malformed="empty_choices") as server:
        studio = Studio(
            Settings(
                data_dir=data_dir,
                llm_backend="openai",
                llm_model=MODEL,
                openai_base_url=server.url,
                openai_api_key=KEY,
                llm_max_retries=1,
                structure_producer="llm",
                top_k=3,
            )
        )
        with pytest.raises(MalformedOutputError) as raised:
            studio.ask("standard_rag", question)
        assert server.chat_requests == 2, "one answer call, retried once"
        answer = studio.ask("disco_rag", question)
    message = assert_clean(raised.value, server.url)
    assert "an empty `choices` list" in message and "gave up after 1 retries" in message
    assert answer.failed_stage == "generate" and answer.text == "" and answer.passages
    failed = [w for w in answer.warnings if w.startswith("The generate stage failed: [E500] ")]
    assert failed and "an empty `choices` list" in failed[0], answer.warnings
    trees = answer.structures["rst_trees"]
    assert trees and all(t["outcome"]["call_failed"] for t in trees), "garbage is never a cached tree"
    shown = [answer.text, *answer.warnings, str(answer.structures)]
    assert not [t for t in shown for name in RAW_NAMES if name in t]
    assert not [t for t in shown if KEY in t]
