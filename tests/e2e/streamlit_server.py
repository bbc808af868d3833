"""Start the studio's Streamlit server on 127.0.0.1 for browser tests and the load benchmark."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.conftest import REPO_ROOT
from tests.integration.conftest import free_port


@contextmanager
def running_app(workdir: Path, **env: str) -> Iterator[tuple[str, subprocess.Popen]]:
    """Yield (url, process) once /_stcore/health answers; data, config and log live in `workdir`."""
    port = free_port()
    environment = {
        **os.environ,
        "STUDIO_DATA_DIR": str(workdir / "data"),
        "STUDIO_CONFIG": str(workdir / "studio.toml"),
        **env,
    }
    log_path = workdir / "streamlit.log"
    with log_path.open("w") as log:
        proc = subprocess.Popen(
            [
                sys.executable, "-m", "streamlit", "run", str(REPO_ROOT / "app" / "main.py"),
                "--server.port", str(port), "--server.headless", "true",
            ],
            cwd=REPO_ROOT,
            env=environment,
            stdout=log,
            stderr=subprocess.STDOUT,
        )  # fmt: skip
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 90
            while True:
                try:
                    with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as reply:
                        if reply.status == 200:
                            break
                except OSError:
                    if time.monotonic() > deadline or proc.poll() is not None:
                        raise RuntimeError(f"streamlit did not start; see {log_path}") from None
                    time.sleep(0.5)
            yield url, proc
        finally:
            proc.terminate()
            proc.wait(timeout=30)
