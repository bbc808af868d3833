"""The compose file cannot be run here (no Docker engine), so its wiring is checked statically."""

from __future__ import annotations

import re
from importlib.metadata import version

import yaml

from backend.config import ENV_VARS
from tests.conftest import REPO_ROOT

COMPOSE = yaml.safe_load((REPO_ROOT / "compose.yaml").read_text(encoding="utf-8"))


def test_every_app_variable_is_one_the_studio_reads() -> None:
    env = COMPOSE["services"]["app"]["environment"]
    assert set(env) <= set(ENV_VARS), set(env) - set(ENV_VARS)
    assert env["OLLAMA_HOST"] == "http://ollama:11434"
    assert env["CHROMA_HOST"] == "chroma"


def test_services_have_health_checks_and_persistent_volumes() -> None:
    services = COMPOSE["services"]
    assert set(services) == {"app", "ollama", "chroma"}
    for name, service in services.items():
        assert "test" in service["healthcheck"], name
    for dependency in ("ollama", "chroma"):
        assert services["app"]["depends_on"][dependency]["condition"] == "service_healthy"
    mounted = {v.split(":")[0] for s in services.values() for v in s.get("volumes", [])}
    assert mounted == set(COMPOSE["volumes"])


def test_chroma_server_matches_the_client_version() -> None:
    image = COMPOSE["services"]["chroma"]["image"]
    assert re.fullmatch(r"chromadb/chroma:[\d.]+", image)
    assert image.split(":")[1] == version("chromadb")
