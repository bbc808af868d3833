"""Service health lines for the sidebar."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from backend.llm.base import ServiceStatus
from components.safe_text import escape_markdown


def render_statuses(statuses: Sequence[ServiceStatus]) -> None:
    for status in statuses:
        icon = ":green[:material/check_circle:]" if status.ok else ":red[:material/error:]"
        st.markdown(f"{icon} **{escape_markdown(status.name)}**  \n{escape_markdown(status.detail)}")
