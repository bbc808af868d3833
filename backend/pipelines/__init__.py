"""Answering methods; importing a method's module registers it."""

from backend.generation.answer import Answer, Citation, StageCost
from backend.pipelines import extractive_answer, full_context, standard_rag  # noqa: F401  (registration)
from backend.pipelines.registry import RunContext, get_method, method_names

__all__ = ["Answer", "Citation", "RunContext", "StageCost", "get_method", "method_names"]
