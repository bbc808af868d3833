"""Reads QASPER-format files (the official v0.3 JSON and the shared dev copy alike)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from backend.eval.answer_f1 import reference_answer


@dataclass(frozen=True)
class QasperQuestion:
    question_id: str
    question: str
    evidence: tuple[tuple[str, ...], ...]
    """One tuple of evidence paragraphs per annotator who found the question answerable."""
    answers: tuple[str, ...] = ()
    """Every annotator's answer as a reference string (see backend/eval/answer_f1.py)."""


@dataclass(frozen=True)
class QasperPaper:
    paper_id: str
    title: str
    abstract: str
    sections: tuple[tuple[str, tuple[str, ...]], ...]
    questions: tuple[QasperQuestion, ...]

    def to_markdown(self) -> str:
        """The paper as a Markdown document with its section names as headings."""
        parts = [f"# {self.title}", "## Abstract", self.abstract]
        for name, paragraphs in self.sections:
            parts.append(f"## {name or 'Untitled section'}")
            parts.extend(p for p in paragraphs if p.strip())
        return "\n\n".join(parts) + "\n"


def _questions(raw: list[dict]) -> tuple[QasperQuestion, ...]:
    found = []
    for qa in raw:
        evidence = []
        for answer in qa.get("answers", []):
            body = answer.get("answer", {})
            if body.get("unanswerable"):
                continue
            texts = tuple(e for e in body.get("evidence", []) if not e.startswith("FLOAT SELECTED"))
            if texts:
                evidence.append(texts)
        answers = tuple(
            r for r in (reference_answer(a.get("answer", {})) for a in qa.get("answers", [])) if r
        )
        found.append(QasperQuestion(qa["question_id"], qa["question"], tuple(evidence), answers))
    return tuple(found)


def load_qasper(path: Path) -> list[QasperPaper]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    papers = []
    for paper_id, paper in data.items():
        sections = tuple(
            (s.get("section_name") or "", tuple(p for p in (s.get("paragraphs") or []) if p))
            for s in paper.get("full_text", [])
        )
        papers.append(
            QasperPaper(
                paper_id=paper_id,
                title=paper.get("title", paper_id),
                abstract=paper.get("abstract", ""),
                sections=sections,
                questions=_questions(paper.get("qas", [])),
            )
        )
    return papers
