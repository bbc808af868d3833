import pytest

from backend.errors import ConfigError
from backend.pipelines import get_method, method_names
from backend.pipelines.registry import register


def test_foundation_methods_are_registered() -> None:
    assert {"standard_rag", "full_context"} <= set(method_names())
    assert get_method("standard_rag").title == "Standard RAG"


def test_unknown_method_lists_the_known_ones() -> None:
    with pytest.raises(ConfigError, match="standard_rag"):
        get_method("nope")


def test_duplicate_names_are_rejected() -> None:
    class Twin:
        name = "standard_rag"

    with pytest.raises(ValueError, match="twice"):
        register(Twin)
