"""The shared sidebar: service health and the settings form."""

from __future__ import annotations

import streamlit as st

from app.state import current_settings, replace_settings, studio_or_stop
from backend.config import config_file_path, save_settings
from backend.errors import StudioError
from backend.llm.factory import list_ollama_models
from components.status import render_statuses

BACKENDS = {
    "embedded": "Embedded (Gemma 3 270M, offline)",
    "ollama": "Ollama",
    "openai": "OpenAI-compatible (vLLM…)",
}


def _model_field(backend: str, current: str, settings) -> str:
    if backend == "ollama":
        try:
            models = list_ollama_models(settings)
        except StudioError as error:
            st.caption(str(error))
            models = []
        if models:
            index = models.index(current) if current in models else 0
            return st.selectbox("Ollama model", models, index=index, key="sidebar_ollama_model")
    if backend == "embedded":
        return ""
    return st.text_input("Model name", value=current, key="sidebar_model")


def render_sidebar() -> None:
    settings = current_settings()
    with st.sidebar:
        st.subheader("Services")
        studio = studio_or_stop()
        render_statuses(studio.statuses())
        with st.expander("Settings"):
            backend = st.selectbox(
                "Language model",
                list(BACKENDS),
                index=list(BACKENDS).index(settings.llm_backend),
                format_func=BACKENDS.get,
                key="sidebar_backend",
            )
            changes: dict = {"llm_backend": backend}
            if backend == "ollama":
                changes["ollama_host"] = st.text_input(
                    "Ollama URL", settings.ollama_host, key="sidebar_ollama"
                )
            if backend == "openai":
                changes["openai_base_url"] = st.text_input(
                    "Server base URL", settings.openai_base_url, key="sidebar_base_url"
                )
            changes["llm_model"] = _model_field(backend, settings.llm_model, settings.updated(**changes))
            changes["top_k"] = st.number_input(
                "Passages per question (k)", 1, 50, settings.top_k, key="sidebar_k"
            )
            changes["chroma_host"] = st.text_input(
                "Chroma server host (empty: embedded store)", settings.chroma_host, key="sidebar_chroma"
            )
            changes["chroma_port"] = st.number_input(
                "Chroma server port", 1, 65535, settings.chroma_port, key="sidebar_chroma_port"
            )
            left, right = st.columns(2)
            if left.button("Apply", key="sidebar_apply", type="primary"):
                try:
                    replace_settings(settings.updated(**changes))
                except StudioError as error:
                    st.error(str(error))
                else:
                    st.rerun()
            if right.button("Save", key="sidebar_save", help=f"Write the settings to {config_file_path()}"):
                save_settings(settings, config_file_path())
                st.success(f"Saved to {config_file_path()}")
