"""Language-model clients behind one interface: embedded llama.cpp, Ollama, OpenAI-compatible."""

from backend.llm.base import ChatMessage, Completion, LLMClient, ServiceStatus
from backend.llm.factory import list_ollama_models, llm_status, make_llm
from backend.llm.retry import ServerBusyError
from backend.llm.transcript import render_transcript

__all__ = [
    "ChatMessage",
    "Completion",
    "LLMClient",
    "ServerBusyError",
    "ServiceStatus",
    "list_ollama_models",
    "llm_status",
    "make_llm",
    "render_transcript",
]
