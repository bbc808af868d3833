from pathlib import Path

import pytest

from backend.config import Settings, load_settings, save_settings
from backend.errors import ConfigError


def test_defaults_are_the_offline_embedded_setup(tmp_path: Path) -> None:
    settings = load_settings({"STUDIO_CONFIG": str(tmp_path / "absent.toml")})
    assert settings.llm_backend == "embedded"
    assert settings.chroma_host == ""
    assert settings.chunk_tokens == 256


def test_environment_overrides_file(tmp_path: Path) -> None:
    config = tmp_path / "studio.toml"
    config.write_text('llm_backend = "ollama"\nllm_model = "qwen3:8b"\ntop_k = 7\n')
    settings = load_settings({"STUDIO_CONFIG": str(config), "STUDIO_TOP_K": "9", "OLLAMA_HOST": "http://h:1"})
    assert (settings.llm_backend, settings.llm_model, settings.top_k) == ("ollama", "qwen3:8b", 9)
    assert settings.ollama_host == "http://h:1"


def test_invalid_values_name_the_field(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="llm_backend"):
        load_settings({"STUDIO_CONFIG": str(tmp_path / "x.toml"), "STUDIO_LLM_BACKEND": "gpt"})
    with pytest.raises(ConfigError, match="top_k"):
        Settings().updated(top_k=0)


def test_broken_config_file_is_explained(tmp_path: Path) -> None:
    config = tmp_path / "studio.toml"
    config.write_text("top_k = = 3")
    with pytest.raises(ConfigError, match="Cannot read the config file"):
        load_settings({"STUDIO_CONFIG": str(config)})


def test_save_round_trips_without_the_secret(tmp_path: Path) -> None:
    settings = Settings(llm_backend="openai", llm_model="m", openai_api_key="sk-secret", top_k=3)
    path = tmp_path / "studio.toml"
    save_settings(settings, path)
    assert "sk-secret" not in path.read_text()
    loaded = load_settings({"STUDIO_CONFIG": str(path)})
    assert loaded.model_dump(exclude={"openai_api_key"}) == settings.model_dump(exclude={"openai_api_key"})


def test_settings_are_frozen_and_updated_returns_a_copy() -> None:
    settings = Settings()
    changed = settings.updated(top_k=8)
    assert settings.top_k == 5 and changed.top_k == 8
    with pytest.raises(ValueError):
        settings.top_k = 3  # type: ignore[misc]


def test_fingerprint_tracks_only_index_settings() -> None:
    base = Settings()
    assert base.index_fingerprint() == base.updated(top_k=9, llm_backend="ollama").index_fingerprint()
    assert base.index_fingerprint() != base.updated(chunk_tokens=128).index_fingerprint()
    assert base.cache_key() != base.updated(openai_api_key="other").cache_key()
