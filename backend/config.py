"""The one settings object: defaults, then an optional TOML file, then environment variables.

Settings are frozen; the sidebar builds a new object with `Settings.updated` instead of
mutating, and `index_fingerprint` joins every cache key that depends on them.
"""

from __future__ import annotations

import hashlib
import json
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError

from backend.errors import ConfigError

LLMBackend = Literal["embedded", "ollama", "openai"]

ENV_VARS: dict[str, str] = {
    "STUDIO_DATA_DIR": "data_dir",
    "STUDIO_LLM_BACKEND": "llm_backend",
    "STUDIO_LLM_MODEL": "llm_model",
    "OLLAMA_HOST": "ollama_host",
    "STUDIO_OPENAI_BASE_URL": "openai_base_url",
    "OPENAI_API_KEY": "openai_api_key",
    "STUDIO_LLM_TIMEOUT_S": "llm_timeout_s",
    "STUDIO_LLM_MAX_RETRIES": "llm_max_retries",
    "STUDIO_LLM_CONTEXT_TOKENS": "llm_context_tokens",
    "STUDIO_LLM_MAX_TOKENS": "llm_max_tokens",
    "STUDIO_EMBEDDING_MODEL": "embedding_model",
    "CHROMA_HOST": "chroma_host",
    "CHROMA_PORT": "chroma_port",
    "STUDIO_CHUNK_TOKENS": "chunk_tokens",
    "STUDIO_TOP_K": "top_k",
    "STUDIO_MAX_UPLOAD_MB": "max_upload_mb",
    "STUDIO_STRUCTURE_PRODUCER": "structure_producer",
    "STUDIO_PARSER_LLM_MODEL": "parser_llm_model",
    "STUDIO_DISR_TAU_WORDS": "disr_tau_words",
    "STUDIO_DISR_WORD_BUDGET": "disr_word_budget",
    "STUDIO_DISR_SUBTREE_K": "disr_subtree_k",
    "STUDIO_RDR2_MAX_EXPANSIONS": "rdr2_max_expansions",
}
"""Environment variable -> settings field; the README documents the same table."""

CONFIG_FILE_ENV = "STUDIO_CONFIG"
DEFAULT_CONFIG_FILE = "studio.toml"
BUNDLED_EMBEDDER = "bundled:all-MiniLM-L6-v2"
NOT_RESULT_FIELDS = frozenset(
    {
        "data_dir",
        "chroma_host",
        "chroma_port",
        "ollama_host",
        "openai_base_url",
        "openai_api_key",
        "llm_timeout_s",
        "llm_max_retries",
        "embedding_batch_size",
        "max_upload_mb",
    }
)
"""Fields that say where or how patiently to run, not what is computed; every other field can change
a result. The API key is a secret and is never recorded."""


class Settings(BaseModel):
    """Everything a run depends on, validated once."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    # --- storage
    data_dir: Path = Path("data")
    chroma_host: str = ""
    chroma_port: int = Field(8000, ge=1, le=65535)

    # --- language model
    llm_backend: LLMBackend = "embedded"
    llm_model: str = ""
    ollama_host: str = "http://127.0.0.1:11434"
    openai_base_url: str = "http://127.0.0.1:8000/v1"
    openai_api_key: SecretStr = SecretStr("EMPTY")
    llm_timeout_s: float = Field(120.0, gt=0)
    llm_max_retries: int = Field(2, ge=0, le=10)
    llm_context_tokens: int = Field(8192, ge=512)
    llm_max_tokens: int = Field(200, ge=1)
    llm_temperature: float = Field(0.2, ge=0, le=2)

    # --- retrieval
    embedding_model: str = BUNDLED_EMBEDDER
    embedding_batch_size: int = Field(64, ge=1)
    chunk_tokens: int = Field(256, ge=32, le=2048)
    top_k: int = Field(5, ge=1, le=50)

    # --- discourse structure
    structure_producer: Literal["auto", "llm", "trained"] = "auto"
    parser_llm_model: str = ""

    # --- DISRetrieval
    disr_tau_words: int = Field(50, ge=0)
    disr_word_budget: int = Field(200, ge=20, le=5000)
    disr_subtree_k: int = Field(3, ge=1, le=50)

    # --- RDR2
    rdr2_max_expansions: int = Field(3, ge=0, le=20)

    # --- uploads
    max_upload_mb: float = Field(50.0, gt=0)

    def updated(self, **changes: Any) -> Settings:
        """A validated copy with `changes` applied (the sidebar's way to edit settings)."""
        return _validate({**self.model_dump(), **changes}, source="the settings form")

    @property
    def llm_label(self) -> str:
        """How the active model is named in the UI and in cache keys."""
        if self.llm_backend == "embedded":
            return "embedded:gemma-3-270m (base)"
        return f"{self.llm_backend}:{self.llm_model or '(no model chosen)'}"

    def cache_key(self) -> str:
        """Identifies these settings, secret included (hashed), for caches of live services."""
        secret = hashlib.sha256(self.openai_api_key.get_secret_value().encode()).hexdigest()[:12]
        return f"{self.model_dump_json()}|{secret}"

    def index_fingerprint(self) -> str:
        """Hash of the settings that change what ingestion stores."""
        keys = {"embedding_model": self.embedding_model, "chunk_tokens": self.chunk_tokens}
        return hashlib.sha256(json.dumps(keys, sort_keys=True).encode()).hexdigest()[:16]

    def result_settings(self) -> dict[str, Any]:
        """Every setting that can change an evaluation's numbers, as JSON values, secrets excluded.

        Derived from the fields minus `NOT_RESULT_FIELDS`, so a field added later is checked by
        default: a resumed run is refused rather than silently mixing settings.
        """
        return self.model_dump(mode="json", exclude=set(NOT_RESULT_FIELDS))

    def to_toml(self) -> str:
        """The settings as a config file (the API key is never written)."""
        lines = []
        for name, value in self.model_dump(exclude={"openai_api_key"}).items():
            lines.append(f"{name} = {json.dumps(str(value) if isinstance(value, Path) else value)}")
        return "\n".join(lines) + "\n"


def _validate(values: Mapping[str, Any], source: str) -> Settings:
    try:
        return Settings(**values)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors())
        raise ConfigError(
            f"Invalid settings from {source}: {problems}.",
            "Fix the value (see the settings table in the README) and reload.",
        ) from None


def _read_config_file(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(
            f"Cannot read the config file {path}: {exc}.",
            f"Fix or delete it, or point {CONFIG_FILE_ENV} at another file.",
        ) from None


def config_file_path(env: Mapping[str, str] | None = None) -> Path:
    """Where settings are read from and saved to."""
    env = os.environ if env is None else env
    return Path(env.get(CONFIG_FILE_ENV, DEFAULT_CONFIG_FILE))


def load_settings(env: Mapping[str, str] | None = None) -> Settings:
    """Defaults, overridden by the config file if present, overridden by the environment."""
    env = os.environ if env is None else env
    values: dict[str, Any] = {}
    path = config_file_path(env)
    if path.is_file():
        values.update(_read_config_file(path))
    for var, field in ENV_VARS.items():
        if env.get(var, "") != "":
            values[field] = env[var]
    return _validate(values, source=f"{path} and the environment")


def save_settings(settings: Settings, path: Path) -> None:
    """Write settings so that the next start picks them up."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(settings.to_toml(), encoding="utf-8")
    tmp.replace(path)
