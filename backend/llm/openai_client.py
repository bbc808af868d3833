"""Any OpenAI-compatible server (vLLM, llama.cpp's server, ...) through the `openai` package.

The SDK's own retries are off (`max_retries=0`) so `Settings.llm_max_retries` is the only
bound. The API key goes to the SDK and nowhere else: no message built here contains it, and
server messages are scrubbed of it in case a server echoes it back.
"""

from __future__ import annotations

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
from backend.llm.ollama_client import estimate_tokens
from backend.llm.retry import ServerBusyError, call_with_retries

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
        return sorted(m.id for m in page.data)

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
            choice = reply.choices[0]
            return self._completion(reply, choice.message.content or "", choice.finish_reason)

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
            choice = reply.choices[0]
            return self._completion(reply, choice.text or "", choice.finish_reason)

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
        usage = reply.usage
        return Completion(
            text=text,
            model=reply.model or self._model,
            prompt_tokens=usage.prompt_tokens if usage else 0,
            completion_tokens=usage.completion_tokens if usage else 0,
            latency_s=0.0,  # call_with_retries measures the whole call
            finish_reason=finish_reason or "",
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
        except openai.OpenAIError:
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
