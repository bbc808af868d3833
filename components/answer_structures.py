"""Draws what a method built on the way to its answer, one renderer per kind of structure.

Methods put their structures in `Answer.structures` under a key; each key below names the
component that draws it. Unknown keys are listed, not dropped, so a new method is never silent.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from backend.pipelines import Answer

Renderer = Callable[[Any, Answer], None]

RENDERERS: dict[str, tuple[str, Renderer]] = {}


def renderer(key: str, title: str) -> Callable[[Renderer], Renderer]:
    """Register the function that draws `Answer.structures[key]` under a tab called `title`."""

    def wrap(fn: Renderer) -> Renderer:
        RENDERERS[key] = (title, fn)
        return fn

    return wrap


def render_structures(answer: Answer) -> None:
    if not answer.structures:
        return
    keys = [k for k in answer.structures if k in RENDERERS]
    unknown = [k for k in answer.structures if k not in RENDERERS]
    if keys:
        st.markdown("**How the answer was built**")
        tabs = st.tabs([RENDERERS[k][0] for k in keys])
        for tab, key in zip(tabs, keys, strict=True):
            with tab:
                RENDERERS[key][1](answer.structures[key], answer)
    if unknown:
        st.caption("Also recorded (no viewer yet): " + ", ".join(unknown))
