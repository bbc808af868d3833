"""Fixtures shared by every suite."""

from __future__ import annotations

from pathlib import Path

import pytest

from backend.config import Settings

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"
SAMPLES = REPO_ROOT / "assets" / "samples"
ASQA_FIXTURE = REPO_ROOT / "tests" / "fixtures" / "asqa_sample.json"
"""Hand-written questions in the ASQA format (no ASQA data ships with the project)."""


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Default settings with a private data directory."""
    return Settings(data_dir=tmp_path / "data")
