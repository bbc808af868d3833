"""Any OpenAI-compatible server (vLLM, llama.cpp's server, ...) through the `openai` package.

The SDK's own retries are off (`max_retries=0`) so `Settings.llm_max_retries` is the only
bound. The API key goes to the SDK and nowhere else: no message built here contains it, and
server messages are scrubbed of it in case a server echoes it back. The SDK builds replies
without validating them, so the fields read here are checked: a 200 whose body is not a usable
reply (not JSON, no choices, no message or content) is a `MalformedReplyError`.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from typing import Any

import openai

from backend.config import Settings
from backend.errors import (
    ConfigError,
    LLMRequestError,
    ModelNotFoundError,
    ServerUnreachableError,
    StudioError,
)
from backend.llm.base import ChatMessage, Completion, ServiceStatus
from backend.llm.ollama_client import estimate_tokens, excerpt
from backend.llm.retry import MalformedReplyError, ServerBusyError, call_with_retries

_FALLBACK = "or pick the embedded model in Settings."


class OpenAICompatibleLLM:
    """Chat via /chat/completions and raw completion via /completions."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self.base_url = settings.openai_base_url
        self._secret = settings.openai_api_key.get_secret_value()
        self._client = openai.OpenAI(
            base_url=self.base_url, api_key=self._secret, timeout=settings.llm_timeout_s, max_retries=0
        )
        self._model = settings.llm_model
        self._model_lock = threading.Lock()

    @property
    def label(self) -> str:
        return f"openai:{self._settings.llm_model or '(no model chosen)'}"

    @property
    def context_window(self) -> int:
        return self._settings.llm_context_tokens

    def count_tokens(self, text: str) -> int:
        """An estimate (characters / 4, rounded up): the OpenAI API has no tokenize endpoint."""
        return estimate_tokens(text)

    def list_models(self) -> list[str]:
        """Model ids the server serves, sorted.

        Raises:
            ServerUnreachableError: the server did not answer.
        """
        page = self._call(self._client.models.list)
        data = getattr(page, "data", None)
        if not isinstance(data, list):
            raise self._malformed("a model list without a `data` list")
        return sorted(m.id for m in data if isinstance(getattr(m, "id", None), str))

    def model(self) -> str:
        """The configured model, or the server's only model when none is configured.

        Raises:
            ConfigError: none is configured and the server serves several (they are listed).
        """
        with self._model_lock:
            if not self._model:
                served = self.list_models()
                if len(served) != 1:
                    raise ConfigError(
                        f"No model is set for the server at {self.base_url}, and it serves "
                        f"{len(served)}: {', '.join(served) or 'none'}.",
                        "Choose one in Settings (STUDIO_LLM_MODEL).",
                    )
                self._model = served[0]
            return self._model

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
                self._client.chat.completions.create,
                model=self.model(),
                messages=payload,
                **self._sampling(max_tokens, temperature, stop),
            )
            return self._completion(reply, *self._first_choice(reply, chat=True))

        return self._with_retries(attempt)

    def complete(
        self,
        prompt: str,
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
        stop: Sequence[str] | None = None,
    ) -> Completion:
        def attempt() -> Completion:
            reply = self._call(
                self._client.completions.create,
                model=self.model(),
                prompt=prompt,
                **self._sampling(max_tokens, temperature, stop),
            )
            return self._completion(reply, *self._first_choice(reply, chat=False))

        return self._with_retries(attempt)

    def status(self) -> ServiceStatus:
        """Whether the server answers and serves the model; never raises."""
        try:
            served = self.list_models()
            model = self.model()
        except StudioError as exc:
            return ServiceStatus(self.label, False, str(exc))
        if model not in served:
            return ServiceStatus(self.label, False, str(self._missing_model(served)))
        return ServiceStatus(self.label, True, f"The server at {self.base_url} answers and serves {model}.")

    # --- internals

    def _sampling(
        self, max_tokens: int | None, temperature: float | None, stop: Sequence[str] | None
    ) -> dict[str, Any]:
        params: dict[str, Any] = {
            "max_tokens": max_tokens or self._settings.llm_max_tokens,
            "temperature": self._settings.llm_temperature if temperature is None else temperature,
        }
        if stop:
            params["stop"] = list(stop)
        return params

    def _completion(self, reply: Any, text: str, finish_reason: str | None) -> Completion:
        """Token counts are the server's `usage`, or 0 where a server reports none."""
        usage = getattr(reply, "usage", None)
        model = getattr(reply, "model", None)
        return Completion(
            text=text,
            model=model if isinstance(model, str) and model else self._model,
            prompt_tokens=_count(usage, "prompt_tokens"),
            completion_tokens=_count(usage, "completion_tokens"),
            latency_s=0.0,  # call_with_retries measures the whole call
            finish_reason=finish_reason or "",
        )

    def _first_choice(self, reply: Any, *, chat: bool) -> tuple[str, str | None]:
        """The first choice's text and finish reason; null text is an empty reply, a missing one malformed."""
        if isinstance(reply, str):  # the SDK hands back the body as text when it is not labelled JSON
            raise self._malformed(f"text instead of a JSON completion: {excerpt(reply)}")
        if not isinstance(reply, openai.BaseModel):  # a JSON list, string, number or null
            raise self._malformed("JSON that is not an object")
        choices = getattr(reply, "choices", None)
        if not isinstance(choices, list):
            raise self._malformed("no `choices` list")
        if not choices:
            raise self._malformed("an empty `choices` list")
        choice = choices[0]
        holder, key = (getattr(choice, "message", None), "content") if chat else (choice, "text")
        if not isinstance(holder, openai.BaseModel):
            raise self._malformed("a choice without a `message`" if chat else "a choice that is no object")
        if key not in holder.model_fields_set:
            raise self._malformed(f"a {'message' if chat else 'choice'} without `{key}`")
        text = getattr(holder, key)
        if text is not None and not isinstance(text, str):
            raise self._malformed(f"a `{key}` that is not text ({type(text).__name__})")
        finish = getattr(choice, "finish_reason", None)
        return text or "", finish if isinstance(finish, str) else None

    def _malformed(self, sent: str) -> MalformedReplyError:
        return MalformedReplyError(
            self._scrub(
                f"The server at {self.base_url} ({self._model or 'default model'}) answered 200 "
                f"but sent back {sent}, not a usable reply."
            ),
            "Check the server's log and that the base URL is its OpenAI-compatible /v1 endpoint "
            f"(not a proxy or web page), {_FALLBACK}",
        )

    def _with_retries(self, attempt: Callable[[], Completion]) -> Completion:
        return call_with_retries(
            attempt,
            max_retries=self._settings.llm_max_retries,
            where=f"The server at {self.base_url} ({self._model or 'default model'})",
        )

    def _missing_model(self, served: list[str]) -> ModelNotFoundError:
        return ModelNotFoundError(
            f"The server at {self.base_url} does not serve {self._model!r} "
            f"(it serves: {', '.join(served) or 'nothing'}).",
            f"Choose a served model in Settings, check that the base URL ends in /v1, {_FALLBACK}",
        )

    def _served_or_none(self) -> list[str]:
        """The served models for an error message; a raw call, so a 404 here cannot recurse."""
        try:
            return sorted(m.id for m in self._client.models.list().data)
        except (openai.OpenAIError, ValueError, TypeError, AttributeError):  # or a body that is no list
            return []

    def _scrub(self, text: str) -> str:
        return text.replace(self._secret, "***") if len(self._secret) >= 4 else text

    def _call(self, fn: Callable[..., Any], **kwargs: Any) -> Any:
        """Call the SDK, mapping its exceptions to the app's error catalogue."""
        try:
            return fn(**kwargs)
        except openai.APITimeoutError:
            raise ServerUnreachableError(
                f"The server at {self.base_url} did not answer within {self._settings.llm_timeout_s:g} s.",
                f"Check that it is running and not overloaded, raise the timeout in Settings, {_FALLBACK}",
            ) from None
        except openai.APIConnectionError:
            raise ServerUnreachableError(
                f"The server at {self.base_url} did not answer (connection failed).",
                f"Start it (e.g. `vllm serve <model>`), check the base URL in Settings, {_FALLBACK}",
            ) from None
        except openai.NotFoundError:
            raise self._missing_model(self._served_or_none()) from None
        except openai.APIStatusError as exc:
            what = f"The server at {self.base_url} answered {exc.status_code}: {self._scrub(exc.message)}."
            if exc.status_code >= 500 or exc.status_code == 429:
                raise ServerBusyError(
                    what, "Retry later, or check the server's log.", exc.status_code
                ) from None
            if exc.status_code in (401, 403):
                raise LLMRequestError(what, "Check the API key in Settings (OPENAI_API_KEY).") from None
            raise LLMRequestError(what, "Check the model name and the request settings.") from None
        except openai.APIResponseValidationError:  # the SDK's own schema check (rare: strict mode is off)
            raise self._malformed("JSON off the API's schema") from None
        except json.JSONDecodeError as exc:
            raise self._malformed(f"a body that is not JSON ({exc.msg}): {excerpt(exc.doc)}") from None


def _count(usage: Any, name: str) -> int:
    """A token count from `usage`, or 0 where a server reports none or something that is no count."""
    value = getattr(usage, name, None)
    return value if isinstance(value, int) else 0
