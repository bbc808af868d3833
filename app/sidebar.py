"""The shared sidebar: service health and the settings form."""

from __future__ import annotations

import streamlit as st

from app.state import current_settings, load_studio, replace_settings
from backend.config import config_file_path, save_settings
from backend.errors import StudioError
from backend.llm.factory import list_ollama_models
from components.safe_text import escape_markdown
from components.status import render_statuses

BACKENDS = {
    "embedded": "Embedded (Gemma 3 270M, offline)",
    "ollama": "Ollama",
    "openai": "OpenAI-compatible (vLLM…)",
}

PRODUCERS = {
    "auto": "Auto: the LLM if it passes the format check",
    "llm": "Always the LLM",
    "trained": "Trained models only (offline)",
}


def _render_structure_producer() -> None:
    """Says who builds RST trees, graphs and routes, and lets the user re-run the model check."""
    st.subheader("Discourse structure")
    try:
        studio = load_studio()
        recheck = st.button(
            "Re-check the model", key="sidebar_recheck", help="Probe the LLM's formats again."
        )
        choice = studio.structure_choice(recheck=recheck)
    except StudioError as error:
        st.caption(f"Trained producers (the model cannot be checked: {error})")
        return
    icon = ":material/smart_toy:" if choice.llm is not None else ":material/model_training:"
    st.markdown(f"{icon} {escape_markdown(choice.reason)}")


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
        try:
            render_statuses(load_studio().statuses())
        except StudioError as error:
            st.error(str(error))
        _render_structure_producer()
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
            changes["structure_producer"] = st.selectbox(
                "Discourse structure built by",
                list(PRODUCERS),
                index=list(PRODUCERS).index(settings.structure_producer),
                format_func=PRODUCERS.get,
                key="sidebar_producer",
                help="Auto asks the model three format questions and uses it only if it answers all exactly.",
            )
            if backend != "embedded":
                changes["parser_llm_model"] = st.text_input(
                    "Parser model (empty: the answering model)",
                    settings.parser_llm_model,
                    key="sidebar_parser_model",
                    help="A smaller model on the same server for RST trees, graphs and routing.",
                )
            changes["top_k"] = st.number_input(
                "Passages per question (k)", 1, 50, settings.top_k, key="sidebar_k"
            )
            changes["embedding_model"] = st.text_input(
                "Embedding model (sentence-transformers name or folder)",
                settings.embedding_model,
                key="sidebar_embedder",
                help="A new embedder or chunk size uses new collections; re-index on the Library page.",
            )
            changes["chunk_tokens"] = st.number_input(
                "Chunk size (tokens)", 32, 2048, settings.chunk_tokens, key="sidebar_chunk_tokens"
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
