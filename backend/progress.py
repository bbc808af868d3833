"""The progress callback shape shared by every long-running backend step."""

from __future__ import annotations

from collections.abc import Callable

ProgressFn = Callable[[str, int, int], None]
"""Called as `progress(stage, done, total)`; `total` may be 0 when unknown."""


def no_progress(stage: str, done: int, total: int) -> None:
    """Default callback for callers that do not display progress."""
