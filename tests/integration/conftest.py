"""Real parts for integration tests: MiniLM, embedded and server Chroma, the embedded model."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from backend.config import Settings


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    """A real Chroma server on 127.0.0.1, started by the test session and stopped after it."""
    import chromadb

    port = free_port()
    path = tmp_path_factory.mktemp("chroma-server")
    chroma = Path(sys.executable).parent / "chroma"
    proc = subprocess.Popen(
        [str(chroma), "run", "--path", str(path), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                chromadb.HttpClient(host="127.0.0.1", port=port).heartbeat()
                break
            except Exception:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("the Chroma server did not start") from None
                time.sleep(0.3)
        yield "127.0.0.1", port
    finally:
        proc.terminate()
        proc.wait(timeout=20)


@pytest.fixture(params=["embedded", "server"])
def store_settings(request: pytest.FixtureRequest, tmp_path: Path) -> Settings:
    """Settings for each store backend; server tests share collections, so they filter by their own ids."""
    settings = Settings(data_dir=tmp_path / "data")
    if request.param == "server":
        host, port = request.getfixturevalue("chroma_server")
        settings = settings.updated(chroma_host=host, chroma_port=port)
    return settings
