"""An Ollama server through the `ollama` package, with its failures turned into errors that name the fix.

The request asks for `num_ctx` explicitly: Ollama's own default context is small and it cuts
longer prompts silently, which would make `context_window` a lie. A 200 whose body is not a
usable reply (not JSON, off-schema, no message or content) is a `MalformedReplyError`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from typing import Any

import httpx
import ollama
import pydantic

from backend.config import Settings
from backend.errors import LLMRequestError, ModelNotFoundError, ServerUnreachableError, StudioError
from backend.llm.base import ChatMessage, Completion, ServiceStatus
from backend.llm.retry import MalformedReplyError, ServerBusyError, call_with_retries

_FALLBACK = "or pick the embedded model in Settings."


def estimate_tokens(text: str) -> int:
    """About four characters per token for English text with common BPE vocabularies."""
    return math.ceil(len(text) / 4)


def excerpt(text: str, limit: int = 80) -> str:
    """The start of a server's body, quoted, so a message shows what came back without flooding."""
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else f"{flat[:limit]}...")


def model_matches(wanted: str, installed: str) -> bool:
    """Ollama resolves a name without a tag to `:latest`."""
    return installed in (wanted, f"{wanted}:latest")


class OllamaLLM:
    """Chat and raw generation on an Ollama server."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self.host = settings.ollama_host
        self.model = settings.llm_model
        self._client = ollama.Client(host=self.host, timeout=settings.llm_timeout_s)

    @property
    def label(self) -> str:
        return f"ollama:{self.model or '(no model chosen)'}"

    @property
    def context_window(self) -> int:
        return self._settings.llm_context_tokens

    def count_tokens(self, text: str) -> int:
        """An estimate (characters / 4, rounded up): Ollama has no tokenize endpoint in every version."""
        return estimate_tokens(text)

    def list_models(self) -> list[str]:
        """Names of the installed models, sorted.

        Raises:
            ServerUnreachableError: the server did not answer.
        """
        response = self._call(self._client.list)
        return sorted(m.model for m in response.models if m.model)

    def chat(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
        stop: Sequence[str] | None = None,
    ) -> Completion:
        payload = [{"role": m.role, "content": m.content} for m in messages]

        def attempt() -> Completion:
            reply = self._call(
                self._client.chat,
                model=self._require_model(),
                messages=payload,
                options=self._options(max_tokens, temperature, stop),
            )
            return self._completion(reply, self._text(reply.message, "content"))

        return self._with_retries(attempt)

    def complete(
        self,
        prompt: str,
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
        stop: Sequence[str] | None = None,
    ) -> Completion:
        """Continue `prompt` as is: `raw=True` skips the model's prompt template."""

        def attempt() -> Completion:
            reply = self._call(
                self._client.generate,
                model=self._require_model(),
                prompt=prompt,
                raw=True,
                options=self._options(max_tokens, temperature, stop),
            )
            return self._completion(reply, self._text(reply, "response"))

        return self._with_retries(attempt)

    def status(self) -> ServiceStatus:
        """Whether the server answers and has the configured model; never raises."""
        try:
            installed = self.list_models()
        except StudioError as exc:
            return ServiceStatus(self.label, False, str(exc))
        if not self.model:
            choice = ", ".join(installed) or f"none installed; run `ollama pull <name>` first, {_FALLBACK}"
            return ServiceStatus(
                self.label, False, f"Ollama at {self.host} answers; choose a model: {choice}"
            )
        if not any(model_matches(self.model, name) for name in installed):
            return ServiceStatus(self.label, False, str(self._missing_model(installed)))
        return ServiceStatus(self.label, True, f"Ollama at {self.host} answers and has {self.model}.")

    # --- internals

    def _options(
        self, max_tokens: int | None, temperature: float | None, stop: Sequence[str] | None
    ) -> dict[str, Any]:
        options: dict[str, Any] = {
            "num_ctx": self.context_window,
            "num_predict": max_tokens or self._settings.llm_max_tokens,
            "temperature": self._settings.llm_temperature if temperature is None else temperature,
        }
        if stop:
            options["stop"] = list(stop)
        return options

    def _completion(self, reply: Any, text: str) -> Completion:
        return Completion(
            text=text,
            model=reply.model or self.model,
            prompt_tokens=reply.prompt_eval_count or 0,
            completion_tokens=reply.eval_count or 0,
            latency_s=0.0,  # call_with_retries measures the whole call
            finish_reason=reply.done_reason or "",
        )

    def _with_retries(self, attempt: Callable[[], Completion]) -> Completion:
        return call_with_retries(attempt, max_retries=self._settings.llm_max_retries, where=self._where)

    @property
    def _where(self) -> str:
        return f"Ollama at {self.host} ({self.model or 'no model chosen'})"

    def _malformed(self, sent: str) -> MalformedReplyError:
        return MalformedReplyError(
            f"{self._where} answered 200 but sent back {sent}, not a usable reply.",
            "Check the server's log, that OLLAMA_HOST points at Ollama itself (not a proxy or another "
            f"service) and that Ollama is up to date, {_FALLBACK}",
        )

    def _text(self, holder: pydantic.BaseModel, key: str) -> str:
        """The text at `key`: null is an empty reply (retried as such), a missing key a malformed one."""
        if key not in holder.model_fields_set:
            raise self._malformed(f"{'a message' if key == 'content' else 'a reply'} without `{key}`")
        return getattr(holder, key) or ""

    def _require_model(self) -> str:
        if not self.model:
            raise LLMRequestError(
                f"No Ollama model is chosen for {self.host}.",
                "Pick one in Settings (the list shows the installed models).",
            )
        return self.model

    def _missing_model(self, installed: list[str]) -> ModelNotFoundError:
        have = ", ".join(installed) if installed else "no models"
        return ModelNotFoundError(
            f"Ollama at {self.host} has no model {self.model!r} (installed: {have}).",
            f"Run `ollama pull {self.model}` on that machine, pick an installed model, {_FALLBACK}",
        )

    def _installed_or_none(self) -> list[str]:
        """The installed models for an error message; a raw call, so a 404 here cannot recurse."""
        try:
            return sorted(m.model for m in self._client.list().models if m.model)
        except (ConnectionError, httpx.HTTPError, ollama.ResponseError, ValueError, TypeError):
            return []  # ValueError, TypeError: an unreadable body (see _call)

    def _call(self, fn: Callable[..., Any], **kwargs: Any) -> Any:
        """Call the SDK, mapping its exceptions to the app's error catalogue."""
        try:
            return fn(**kwargs)
        except ConnectionError:  # the SDK's translation of httpx.ConnectError
            raise ServerUnreachableError(
                f"Ollama at {self.host} did not answer (connection refused).",
                f"Start it with `ollama serve`, check OLLAMA_HOST, {_FALLBACK}",
            ) from None
        except httpx.TimeoutException:
            raise ServerUnreachableError(
                f"Ollama at {self.host} did not answer within {self._settings.llm_timeout_s:g} s.",
                f"Check that it is running and not overloaded, raise the timeout in Settings, {_FALLBACK}",
            ) from None
        except httpx.TransportError as exc:
            raise ServerUnreachableError(
                f"The connection to Ollama at {self.host} failed ({type(exc).__name__}: {exc}).",
                f"Check that it is running and reachable, {_FALLBACK}",
            ) from None
        except ollama.ResponseError as exc:
            raise self._response_error(exc) from None
        except json.JSONDecodeError as exc:
            raise self._malformed(f"a body that is not JSON ({exc.msg}): {excerpt(exc.doc)}") from None
        except pydantic.ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "the body"
            raise self._malformed(f"JSON off Ollama's schema ({where}: {first['msg']})") from None
        except TypeError:  # the SDK unpacks the body as `cls(**body)`: a list, string or null
            raise self._malformed("JSON that is not an object") from None

    def _response_error(self, exc: ollama.ResponseError) -> StudioError:
        if exc.status_code == 404 and str(exc.error).startswith("model"):  # 'model "x" not found, ...'
            return self._missing_model(self._installed_or_none())
        what = f"Ollama at {self.host} answered {exc.status_code}: {exc.error}."
        if exc.status_code >= 500 or exc.status_code == 429:
            return ServerBusyError(what, "Retry later, or check the server's log.", exc.status_code)
        return LLMRequestError(what, "Check the model name and the request settings.")
