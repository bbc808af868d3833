"""A FAKE OpenAI-compatible server for tests; it is not vLLM and runs no model.

A stdlib HTTP server on 127.0.0.1 (free port, background thread) that answers `GET /v1/models`
and `POST /v1/chat/completions` with the JSON fields the real API returns for non-streaming
requests. Replies come from `tests/fakes/stage_llm.StageLLM`, so every pipeline stage gets a
reply in its own format. With `reject_key=True` every chat request is refused with 401 and a
message that echoes the Authorization header, as servers that report a bad key do: the test
for API-key secrecy needs a server that hands the key back.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from backend.llm.base import ChatMessage
from tests.fakes.stage_llm import StageLLM

MODEL = "fake-instruct"


class FakeOpenAI:
    """Start with `with FakeOpenAI() as fake:`; `fake.url` is the base URL to configure."""

    def __init__(self, reject_key: bool = False) -> None:
        self.reject_key = reject_key
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


def _handler_for(fake: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_: Any) -> None:  # keep test output clean
            return

        def _send(self, code: int, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
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
            text = fake.reply(body["messages"])
            words = sum(len(m["content"].split()) for m in body["messages"])
            self._send(
                200,
                {
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
                        "prompt_tokens": words,
                        "completion_tokens": len(text.split()),
                        "total_tokens": words + len(text.split()),
                    },
                },
            )

    return Handler
