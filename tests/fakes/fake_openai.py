"""A FAKE OpenAI-compatible server for tests; it is not vLLM and runs no model.

A stdlib HTTP server on 127.0.0.1 (free port, background thread) that answers `GET /v1/models`
and `POST /v1/chat/completions` with the JSON fields the real API returns for non-streaming
requests. Replies come from `tests/fakes/stage_llm.StageLLM`, so every pipeline stage gets a
reply in its own format. With `reject_key=True` every chat request is refused with 401 and a
message that echoes the Authorization header, as servers that report a bad key do: the test
for API-key secrecy needs a server that hands the key back.

`malformed` names one of MALFORMED_KINDS: chat requests then get a 200 with JSON headers and a
broken body, as a crashing worker or a cutting proxy sends (`malformed_next` limits it to that
many requests; None means all). `chat_requests` counts the chat requests received.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from backend.llm.base import ChatMessage
from tests.fakes.stage_llm import StageLLM

MODEL = "fake-instruct"
MALFORMED_KINDS = ("invalid_json", "not_an_object", "empty_choices", "no_message", "no_content")


class FakeOpenAI:
    """Start with `with FakeOpenAI() as fake:`; `fake.url` is the base URL to configure."""

    def __init__(self, reject_key: bool = False, malformed: str = "") -> None:
        if malformed and malformed not in MALFORMED_KINDS:
            raise ValueError(f"unknown malformed kind {malformed!r}; known: {', '.join(MALFORMED_KINDS)}")
        self.reject_key = reject_key
        self.malformed = malformed
        self.malformed_next: int | None = None
        self.chat_requests = 0
        self.authorizations: list[str] = []
        self._stages = StageLLM()
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def reply(self, messages: list[dict[str, str]]) -> str:
        chat = [ChatMessage(m["role"], m["content"]) for m in messages]  # type: ignore[arg-type]
        with self._lock:
            return self._stages.chat(chat).text

    def take_malformed(self) -> str:
        """Count one chat request; the malformed kind it gets, or "" for a proper reply."""
        with self._lock:
            self.chat_requests += 1
            if not self.malformed or self.malformed_next == 0:
                return ""
            if self.malformed_next is not None:
                self.malformed_next -= 1
            return self.malformed


def _completion_body(text: str, prompt_words: int) -> dict[str, Any]:
    """A non-streaming chat.completion object with the fields the real API returns."""
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": MODEL,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt_words,
            "completion_tokens": len(text.split()),
            "total_tokens": prompt_words + len(text.split()),
        },
    }


def _malformed_body(kind: str) -> bytes:
    """A broken chat.completion body; each kind breaks one thing a client reads."""
    if kind == "invalid_json":  # cut mid-object
        return json.dumps(_completion_body("cut off", 1)).encode()[:40]
    if kind == "not_an_object":
        return b'["not", "a", "completion"]'
    body = _completion_body("unused", 1)
    if kind == "empty_choices":
        body["choices"] = []
    elif kind == "no_message":
        del body["choices"][0]["message"]
    elif kind == "no_content":
        del body["choices"][0]["message"]["content"]
    return json.dumps(body).encode()


def _handler_for(fake: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_: Any) -> None:  # keep test output clean
            return

        def _send(self, code: int, body: dict[str, Any]) -> None:
            self._send_bytes(code, json.dumps(body).encode())

        def _send_bytes(self, code: int, data: bytes) -> None:
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path.rstrip("/") != "/v1/models":
                self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
                return
            model = {"id": MODEL, "object": "model", "created": 0, "owned_by": "fake"}
            self._send(200, {"object": "list", "data": [model]})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            authorization = self.headers.get("Authorization", "")
            fake.authorizations.append(authorization)
            if fake.reject_key:
                message = f"Incorrect API key provided: {authorization}"
                self._send(401, {"error": {"message": message, "type": "invalid_request_error"}})
                return
            kind = fake.take_malformed()
            if kind:
                self._send_bytes(200, _malformed_body(kind))
                return
            text = fake.reply(body["messages"])
            words = sum(len(m["content"].split()) for m in body["messages"])
            self._send(200, _completion_body(text, words))

    return Handler
