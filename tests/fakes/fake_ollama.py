"""A FAKE of the Ollama HTTP protocol for tests; it is not Ollama and runs no model.

No Ollama server can be installed on the build machines, so the Ollama client is tested
against this stand-in: a stdlib HTTP server on 127.0.0.1 (free port, background thread) that
answers /api/tags, /api/chat and /api/generate with the JSON fields the real server returns
for non-streaming requests, and the real 404 body for an unknown model. Replies are
deterministic echoes, and token counts are whitespace word counts, not a real tokenizer.

Switches for failure tests: `delay_s` (answer slowly), `fail_next` (answer that many requests
with 500), `malformed` (one of MALFORMED_KINDS: /api/chat and /api/generate answer 200 with JSON
headers and a broken body; `malformed_next` limits it to that many requests, None means all).
`requests` records every (path, body) received.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DEFAULT_MODELS = ("llama3.2:latest", "qwen2.5:0.5b")
MALFORMED_KINDS = ("invalid_json", "not_an_object", "no_message", "no_content")


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


class _QuietServer(ThreadingHTTPServer):
    """Ignores clients that hang up mid-reply, as timeout tests do on purpose."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class FakeOllama:
    """Start with `with FakeOllama() as fake:`; `fake.url` is the host to configure."""

    def __init__(self, models: tuple[str, ...] = DEFAULT_MODELS) -> None:
        self.models = list(models)
        self.delay_s = 0.0
        self.fail_next = 0
        self.malformed = ""
        self.malformed_next: int | None = None
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self._lock = threading.Lock()
        self._server = _QuietServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> FakeOllama:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def resolve(self, name: str) -> str | None:
        """The installed name for `name`, which may omit the `:latest` tag, as Ollama does."""
        for installed in self.models:
            if name in (installed, installed.removesuffix(":latest")):
                return installed
        return None

    def take_failure(self) -> bool:
        with self._lock:
            if self.fail_next > 0:
                self.fail_next -= 1
                return True
            return False

    def take_malformed(self) -> str:
        """The malformed kind the next generation request gets, or "" for a proper reply."""
        if self.malformed and self.malformed not in MALFORMED_KINDS:
            raise ValueError(f"unknown malformed kind {self.malformed!r}; known: {MALFORMED_KINDS}")
        with self._lock:
            if not self.malformed or self.malformed_next == 0:
                return ""
            if self.malformed_next is not None:
                self.malformed_next -= 1
            return self.malformed


def _tags(fake: FakeOllama) -> dict[str, Any]:
    return {
        "models": [
            {
                "name": name,
                "model": name,
                "modified_at": "2025-01-01T00:00:00.000000000Z",
                "size": 1_000_000 * (i + 1),
                "digest": f"{i:064x}",
                "details": {
                    "parent_model": "",
                    "format": "gguf",
                    "family": "llama",
                    "families": ["llama"],
                    "parameter_size": "1B",
                    "quantization_level": "Q4_K_M",
                },
            }
            for i, name in enumerate(fake.models)
        ]
    }


def _reply(prompt: str, options: dict[str, Any]) -> tuple[str, int, str]:
    """Echo the prompt's last line, cut at `num_predict` words and at the first stop string."""
    words = f"Echo: {prompt.strip().splitlines()[-1] if prompt.strip() else ''}".split()
    limit = int(options.get("num_predict", 128))
    reason = "length" if len(words) > limit else "stop"
    text = " ".join(words[:limit])
    for stop in options.get("stop") or []:
        text = text.split(stop)[0]
    return text, len(text.split()), reason


def _generation(fake: FakeOllama, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    model = body.get("model", "")
    if not model:
        return 400, {"error": "model is required"}
    if fake.resolve(model) is None:
        return 404, {"error": f'model "{model}" not found, try pulling it first'}
    options = body.get("options") or {}
    if path == "/api/chat":
        prompt = "\n".join(m.get("content", "") for m in body.get("messages", []))
    else:
        prompt = body.get("prompt", "")
    text, eval_count, reason = _reply(prompt, options)
    result: dict[str, Any] = {"model": model, "created_at": _now()}
    if path == "/api/chat":
        result["message"] = {"role": "assistant", "content": text}
    else:
        result["response"] = text
    result.update(
        done=True,
        done_reason=reason,
        total_duration=5_000_000,
        load_duration=1_000_000,
        prompt_eval_count=len(prompt.split()),
        prompt_eval_duration=1_000_000,
        eval_count=eval_count,
        eval_duration=3_000_000,
    )
    if path == "/api/generate" and not body.get("raw"):
        result["context"] = list(range(len(prompt.split()) + eval_count))
    return 200, result


def _malformed(path: str, result: dict[str, Any], kind: str) -> bytes:
    """Break a proper reply: no "message" (chat) or "response" (generate), or no content in it."""
    if kind == "invalid_json":  # cut mid-object
        return json.dumps(result).encode()[:40]
    if kind == "not_an_object":
        return b'"not a reply"'
    broken = dict(result)
    if path == "/api/generate":
        broken.pop("response")
    elif kind == "no_message":
        broken.pop("message")
    else:
        broken["message"] = {"role": "assistant"}
    return json.dumps(broken).encode()


def _handler_for(fake: FakeOllama) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
            pass

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            self._send_bytes(status, json.dumps(payload).encode())

        def _send_bytes(self, status: int, data: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _handle(self, body: dict[str, Any]) -> None:
            fake.requests.append((self.path, body))
            if fake.delay_s:
                time.sleep(fake.delay_s)
            if fake.take_failure():
                self._send(500, {"error": "an internal error (fake failure)"})
            elif self.command == "GET" and self.path == "/api/tags":
                self._send(200, _tags(fake))
            elif self.command == "POST" and self.path in ("/api/chat", "/api/generate"):
                if body.get("stream", True):
                    self._send(400, {"error": "the fake serves non-streaming requests only"})
                else:
                    status, result = _generation(fake, self.path, body)
                    kind = fake.take_malformed() if status == 200 else ""
                    if kind:
                        self._send_bytes(status, _malformed(self.path, result, kind))
                    else:
                        self._send(status, result)
            else:  # the real server answers unknown routes in plain text
                self.send_response(404)
                self.send_header("Content-Type", "text/plain")
                self.end_headers()
                self.wfile.write(b"404 page not found")

        def do_GET(self) -> None:
            self._handle({})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except json.JSONDecodeError:
                self._send(400, {"error": "invalid JSON"})
                return
            self._handle(body)

    return Handler
