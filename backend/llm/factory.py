"""The one place that turns settings into an LLM client, cached so the embedded model loads once."""

from __future__ import annotations

import threading
from collections import OrderedDict

from backend.config import Settings
from backend.errors import StudioError
from backend.llm.base import LLMClient, ServiceStatus

_FIELDS = (
    "llm_backend",
    "llm_model",
    "ollama_host",
    "openai_base_url",
    "openai_api_key",
    "llm_timeout_s",
    "llm_max_retries",
    "llm_context_tokens",
    "llm_max_tokens",
    "llm_temperature",
    "data_dir",
)
"""The settings a client depends on; changing any other setting reuses the client."""

_CACHE_SIZE = 8
_CLIENTS: OrderedDict[tuple, LLMClient] = OrderedDict()
_LOCK = threading.Lock()


def _build(settings: Settings) -> LLMClient:
    """Imports lazily, so a run never loads llama.cpp or an SDK it does not use."""
    if settings.llm_backend == "ollama":
        from backend.llm.ollama_client import OllamaLLM

        return OllamaLLM(settings)
    if settings.llm_backend == "openai":
        from backend.llm.openai_client import OpenAICompatibleLLM

        return OpenAICompatibleLLM(settings)
    from backend.llm.embedded import EmbeddedLLM

    return EmbeddedLLM(settings)


def make_llm(settings: Settings) -> LLMClient:
    """The client for `settings.llm_backend`, shared by every caller with the same LLM settings.

    Raises:
        ConfigError: the embedded model cannot be installed or loaded.
    """
    key = tuple(getattr(settings, name) for name in _FIELDS)
    with _LOCK:
        if key in _CLIENTS:
            _CLIENTS.move_to_end(key)
            return _CLIENTS[key]
        client = _build(settings)
        _CLIENTS[key] = client
        while len(_CLIENTS) > _CACHE_SIZE:
            _CLIENTS.popitem(last=False)
        return client


def llm_status(settings: Settings) -> ServiceStatus:
    """The sidebar's line about the LLM; never raises, every failure becomes `ok=False`."""
    try:
        return make_llm(settings).status()
    except StudioError as exc:
        return ServiceStatus(settings.llm_label, False, str(exc))
    except Exception as exc:  # the sidebar must render whatever a backend throws
        return ServiceStatus(settings.llm_label, False, f"Unexpected {type(exc).__name__}: {exc}")


def list_ollama_models(settings: Settings) -> list[str]:
    """Installed models at `settings.ollama_host`, for the sidebar's model picker.

    Raises:
        ServerUnreachableError: the server did not answer.
    """
    from backend.llm.ollama_client import OllamaLLM

    return OllamaLLM(settings).list_models()
