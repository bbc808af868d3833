"""Reads ASQA-format files: ambiguous questions with disambiguated short answers and long answers.

ASQA (Stelmakh et al. 2022) ships one JSON file `{"train": {id: instance}, "dev": {id: instance}}`;
copies on other hubs hold a list of instances, each with its `sample_id`, or one instance per
line. All three are read. An instance has `ambiguous_question`, `qa_pairs` (each a disambiguated
`question`, its `short_answers` aliases, and an optional `context` and `wikipage`), `wikipages`
({title, url}) and `annotations` (each a `long_answer` and the `knowledge` passages, {content,
wikipage}, its writer used). No ASQA data ships with this project.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from backend.errors import ConfigError

SPLITS = frozenset({"train", "dev", "test"})
NO_CONTEXT = "no context provided"
"""What ASQA puts in `context` when it has none for a pair."""


@dataclass(frozen=True)
class AsqaPair:
    question: str
    short_answers: tuple[str, ...]
    """Aliases of one answer: any of them counts."""
    context: str = ""
    wikipage: str = ""


@dataclass(frozen=True)
class AsqaPassage:
    content: str
    wikipage: str = ""


@dataclass(frozen=True)
class AsqaAnnotation:
    long_answer: str
    knowledge: tuple[AsqaPassage, ...] = ()


@dataclass(frozen=True)
class AsqaQuestion:
    sample_id: str
    ambiguous_question: str
    qa_pairs: tuple[AsqaPair, ...]
    annotations: tuple[AsqaAnnotation, ...]

    @property
    def long_answers(self) -> list[str]:
        return [a.long_answer for a in self.annotations if a.long_answer.strip()]

    def passages(self) -> list[AsqaPassage]:
        """The annotators' knowledge passages, then the pairs' contexts; empty and repeated ones dropped."""
        found = [p for a in self.annotations for p in a.knowledge]
        found += [AsqaPassage(p.context, p.wikipage) for p in self.qa_pairs]
        seen, kept = set(), []
        for passage in found:
            text = passage.content.strip()
            if text and text.lower() != NO_CONTEXT and text not in seen:
                seen.add(text)
                kept.append(passage)
        return kept

    def to_markdown(self) -> str:
        """The passages as one document, a heading per Wikipedia page, for the answering methods to read."""
        parts = [f"# Sources for: {self.ambiguous_question}"]
        page = None
        for passage in self.passages():
            if passage.wikipage != page:
                page = passage.wikipage
                parts.append(f"## {page or 'Untitled page'}")
            parts.append(passage.content.strip())
        return "\n\n".join(parts) + "\n"


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _question(sample_id: str, raw: Mapping[str, Any]) -> AsqaQuestion:
    pairs = tuple(
        AsqaPair(
            _text(p.get("question")),
            tuple(a for a in p.get("short_answers") or [] if isinstance(a, str) and a.strip()),
            _text(p.get("context")),
            _text(p.get("wikipage")),
        )
        for p in raw.get("qa_pairs") or []
    )
    annotations = tuple(
        AsqaAnnotation(
            _text(a.get("long_answer")),
            tuple(
                AsqaPassage(_text(k.get("content")), _text(k.get("wikipage")))
                for k in a.get("knowledge") or []
            ),
        )
        for a in raw.get("annotations") or []
    )
    return AsqaQuestion(sample_id, raw["ambiguous_question"], pairs, annotations)


def _instances(data: Any, split: str) -> list[tuple[str, Mapping[str, Any]]]:
    if isinstance(data, list):
        return [(str(item.get("sample_id", n)), item) for n, item in enumerate(data)]
    if isinstance(data, dict) and split in data and isinstance(data[split], dict):
        data = data[split]
    if isinstance(data, dict) and "ambiguous_question" in data:
        return [(str(data.get("sample_id", 0)), data)]
    if isinstance(data, dict):
        return list(data.items())
    return []


def load_asqa(path: Path, split: str = "dev") -> list[AsqaQuestion]:
    """Questions of `split` (ignored for files that hold one split), in file order.

    Raises:
        ConfigError: the file is missing, not JSON / JSON lines, or an instance lacks ASQA's fields.
    """
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"No ASQA file at {path}.", "Give the path of ASQA.json or a file in its format.")
    text = path.read_text(encoding="utf-8")
    try:
        data: Any = json.loads(text)
    except ValueError:
        try:
            data = [json.loads(line) for line in text.splitlines() if line.strip()]
        except ValueError:
            raise ConfigError(f"{path} is neither JSON nor JSON lines.", "Check the file.") from None
    if isinstance(data, dict) and data and set(data) <= SPLITS and split not in data:
        raise ConfigError(f"{path} holds the splits {sorted(data)}, not {split!r}.", "Choose one of those.")
    questions = []
    for sample_id, raw in _instances(data, split):
        if not isinstance(raw, Mapping) or not isinstance(raw.get("ambiguous_question"), str):
            raise ConfigError(
                f"{path}: instance {sample_id!r} has no `ambiguous_question`; this is not the ASQA format.",
                f"Expected {{'{split}': {{id: {{ambiguous_question, qa_pairs, annotations}}}}}} or a list.",
            )
        questions.append(_question(sample_id, raw))
    return questions
