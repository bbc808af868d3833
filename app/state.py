"""Session settings and the shared, cached studio services."""

from __future__ import annotations

import streamlit as st

from backend.config import Settings, load_settings
from backend.errors import StudioError
from backend.studio import Studio

_SETTINGS_KEY = "studio_settings"


def current_settings() -> Settings:
    """This browser session's settings, first read from the config file and environment."""
    if _SETTINGS_KEY not in st.session_state:
        st.session_state[_SETTINGS_KEY] = load_settings()
    return st.session_state[_SETTINGS_KEY]


def replace_settings(settings: Settings) -> None:
    st.session_state[_SETTINGS_KEY] = settings


@st.cache_resource(show_spinner="Loading models and opening the store…")
def _studio(settings_key: str, _settings: Settings) -> Studio:
    return Studio(_settings)


def load_studio() -> Studio:
    """The studio for the current settings (raises StudioError if it cannot start)."""
    settings = current_settings()
    return _studio(settings.cache_key(), settings)


def studio_or_stop() -> Studio:
    """The studio for the current settings; explains and stops the page if it cannot start."""
    try:
        return load_studio()
    except StudioError as error:
        st.error(f"{error} You can change the settings in the sidebar.")
        st.stop()
        raise
