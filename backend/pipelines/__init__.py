"""Answering methods; importing a method's module registers it, in the order menus list them."""
# ruff: noqa: I001  (the import order is the menu order: baselines, then each paper, then combined)

from backend.pipelines import standard_rag, full_context, extractive_answer  # noqa: F401
from backend.pipelines import disco_rag, discourse_baselines  # noqa: F401
from backend.pipelines import disretrieval, rdr2, combined  # noqa: F401
from backend.generation.answer import Answer, Citation, StageCost
from backend.pipelines.registry import RunContext, get_method, method_names

__all__ = ["Answer", "Citation", "RunContext", "StageCost", "get_method", "method_names"]
