"""Gemma 3 270M (base, Q4_K_M) in-process through llama-cpp-python: the offline default.

The model loads once per process (keyed by file and context size) and every call holds that
model's lock, because a llama.cpp context is not thread-safe and Streamlit sessions share it.
It is a base model without a chat template, so `chat` renders a plain transcript and runs a
completion. Treat its answers as plumbing for offline runs and tests, not as quality output.
"""

from __future__ import annotations

import atexit
import dataclasses
import os
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from backend.config import Settings
from backend.errors import ConfigError, LLMRequestError
from backend.llm.base import ChatMessage, Completion, ServiceStatus
from backend.llm.model_file import ensure_model_file
from backend.llm.retry import call_with_retries
from backend.llm.transcript import render_transcript, with_turn_stop

EMBEDDED_LABEL = "embedded:gemma-3-270m (base)"
MODEL_NAME = "gemma-3-270m-q4_k_m"


@dataclass
class LoadedModel:
    """One llama.cpp model and the lock every call on it must hold."""

    llama: Any
    lock: threading.Lock
    load_s: float


_MODELS: dict[tuple[str, int], LoadedModel] = {}
_LOAD_LOCK = threading.Lock()


@atexit.register
def _close_models() -> None:
    """Free llama.cpp models before interpreter teardown, when their destructors would fail noisily."""
    with _LOAD_LOCK:
        for model in _MODELS.values():
            model.llama.close()
        _MODELS.clear()


def load_model(path: str, n_ctx: int) -> LoadedModel:
    """The process-wide model for `path` with an `n_ctx`-token context, loading it on first use."""
    with _LOAD_LOCK:
        key = (path, n_ctx)
        if key not in _MODELS:
            try:
                from llama_cpp import Llama
            except ImportError:
                raise ConfigError(
                    "llama-cpp-python is not installed, so the embedded model cannot run.",
                    "Run `pip install -r requirements.txt`, or pick Ollama or an OpenAI-compatible "
                    "server in Settings.",
                ) from None
            started = time.perf_counter()
            llama = Llama(model_path=path, n_ctx=n_ctx, n_threads=os.cpu_count() or 2, verbose=False)
            _MODELS[key] = LoadedModel(llama, threading.Lock(), time.perf_counter() - started)
        return _MODELS[key]


class EmbeddedLLM:
    """The bundled base model; exact token counts from its own tokenizer."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        path = ensure_model_file(settings.data_dir)
        self.model = load_model(str(path), settings.llm_context_tokens)

    @property
    def label(self) -> str:
        return EMBEDDED_LABEL

    @property
    def context_window(self) -> int:
        return self._settings.llm_context_tokens

    def count_tokens(self, text: str) -> int:
        """Exact tokens of `text` alone (no BOS), so callers can fit prompts to the context."""
        with self.model.lock:
            return len(self.model.llama.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def chat(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
        stop: Sequence[str] | None = None,
    ) -> Completion:
        """Answer the last user turn of a plain-text transcript (see `transcript.py`), stripped."""
        reply = self.complete(
            render_transcript(messages),
            max_tokens=max_tokens,
            temperature=temperature,
            stop=with_turn_stop(stop),
        )
        return dataclasses.replace(reply, text=reply.text.strip())

    def complete(
        self,
        prompt: str,
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
        stop: Sequence[str] | None = None,
    ) -> Completion:
        """Continue `prompt`.

        Raises:
            LLMRequestError: the prompt plus `max_tokens` does not fit the context (the message
                names both counts), llama.cpp failed, or the replies stayed empty.
        """
        max_tokens = max_tokens or self._settings.llm_max_tokens
        temperature = self._settings.llm_temperature if temperature is None else temperature
        return call_with_retries(
            lambda: self._generate(prompt, max_tokens, temperature, list(stop or [])),
            max_retries=self._settings.llm_max_retries,
            where=f"The embedded model ({EMBEDDED_LABEL})",
        )

    def _generate(self, prompt: str, max_tokens: int, temperature: float, stop: list[str]) -> Completion:
        llama = self.model.llama
        n_ctx = self.context_window
        with self.model.lock:
            prompt_tokens = len(llama.tokenize(prompt.encode("utf-8"), add_bos=True, special=True))
            if prompt_tokens + max_tokens > n_ctx:
                raise LLMRequestError(
                    f"The prompt has {prompt_tokens} tokens and the reply may take {max_tokens}, "
                    f"but the embedded model's context holds {n_ctx}.",
                    f"Shorten the prompt to at most {max(n_ctx - max_tokens, 0)} tokens (measure with "
                    "count_tokens), lower max_tokens, or raise llm_context_tokens in Settings.",
                )
            started = time.perf_counter()
            try:
                out = llama.create_completion(
                    prompt, max_tokens=max_tokens, temperature=temperature, stop=stop or None
                )
            except (RuntimeError, ValueError) as exc:
                raise LLMRequestError(
                    f"The embedded model failed on a {prompt_tokens}-token prompt: {exc}.",
                    "Try a shorter prompt; if it persists, delete the models folder in the data "
                    "directory so the model file is written again.",
                ) from None
            latency = time.perf_counter() - started
        choice, usage = out["choices"][0], out["usage"]
        return Completion(
            text=choice["text"],
            model=MODEL_NAME,
            prompt_tokens=int(usage["prompt_tokens"]),
            completion_tokens=int(usage["completion_tokens"]),
            latency_s=latency,
            finish_reason=choice.get("finish_reason") or "",
        )

    def status(self) -> ServiceStatus:
        return ServiceStatus(
            name=EMBEDDED_LABEL,
            ok=True,
            detail=(
                f"Running in-process ({self.context_window}-token context, loaded in "
                f"{self.model.load_s:.1f} s). A small base model: it continues text and does not "
                "follow instructions; configure Ollama or an OpenAI-compatible server for real answers."
            ),
        )
