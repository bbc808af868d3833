"""Does the configured LLM follow the structured formats the pipelines need? A quick probe says.

Discourse structure (RST trees, rhetorical graphs, routing steps) comes from an LLM only when
the model can keep to a line format; otherwise the trained and heuristic producers build it.
The probe asks three tiny questions whose right replies are known and checks them exactly, so
a base model that rambles fails and an instruction-tuned model passes. Results are cached per
model label for the life of the process (the sidebar can force a re-check).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass

from backend.config import Settings
from backend.errors import StudioError
from backend.llm.base import ChatMessage, LLMClient
from backend.llm.factory import make_llm


@dataclass(frozen=True)
class ProbeCheck:
    name: str
    passed: bool
    reply: str


@dataclass(frozen=True)
class CapabilityReport:
    """What the probe found for one model; `follows_formats` is all checks passed."""

    model: str
    checks: tuple[ProbeCheck, ...]
    error: str = ""

    @property
    def follows_formats(self) -> bool:
        return not self.error and all(c.passed for c in self.checks)

    @property
    def summary(self) -> str:
        if self.error and not self.checks:
            return f"{self.model}: {self.error}"
        if self.error:
            return f"{self.model}: probe failed ({self.error})"
        passed = sum(c.passed for c in self.checks)
        verdict = "follows" if self.follows_formats else "does not follow"
        return f"{self.model} {verdict} the structured formats ({passed}/{len(self.checks)} probe checks)"


@dataclass(frozen=True)
class StructureChoice:
    """Who builds discourse structure for a run: `llm`, or None for the trained/heuristic producers."""

    llm: LLMClient | None
    reason: str


def _exact_word(reply: str) -> bool:
    return reply.strip().strip(".").upper() == "TEAL"


def _graph_line(reply: str) -> bool:
    lines = [line.strip() for line in reply.strip().splitlines() if line.strip()]
    return (
        len(lines) == 1
        and re.fullmatch(r"CHUNK\[2\]\s*->\s*CHUNK\[1\]\s*:\s*EXEMPLIFIES", lines[0]) is not None
    )


def _route_line(reply: str) -> bool:
    lines = [line.strip() for line in reply.strip().splitlines() if line.strip()]
    return len(lines) == 1 and re.fullmatch(r"\[ANSWER\]\s*p7", lines[0], flags=re.IGNORECASE) is not None


PROBES: tuple[tuple[str, str, Callable[[str], bool]], ...] = (
    (
        "one word on request",
        "Reply with the single word TEAL in capital letters and nothing else.",
        _exact_word,
    ),
    (
        "graph line format",
        "CHUNK[1]: Many birds migrate south in winter.\n"
        "CHUNK[2]: Swallows, for instance, fly from Europe to southern Africa each autumn.\n\n"
        "Label how CHUNK[2] relates to CHUNK[1] with one label from: SUPPORTS, CONTRADICTS, "
        "EXEMPLIFIES, UNRELATED. Reply with exactly one line in the form `CHUNK[2] -> CHUNK[1]: LABEL` "
        "and nothing else.",
        _graph_line,
    ),
    (
        "routing id format",
        "Paragraphs:\np3: The committee met on Tuesday.\np7: The bridge is 1.2 km long.\n\n"
        "Question: How long is the bridge?\n"
        "Reply with exactly one line `[ANSWER] id` naming the paragraph that answers, and nothing else.",
        _route_line,
    ),
)


def probe(llm: LLMClient) -> CapabilityReport:
    """Ask the probe questions at temperature 0; a failing server is a report, not an exception."""
    checks = []
    try:
        for name, prompt, passes in PROBES:
            reply = llm.chat([ChatMessage("user", prompt)], max_tokens=24, temperature=0.0).text
            checks.append(ProbeCheck(name, passes(reply), reply[:200]))
    except StudioError as error:
        return CapabilityReport(llm.label, tuple(checks), error=error.what)
    return CapabilityReport(llm.label, tuple(checks))


_REPORTS: dict[str, CapabilityReport] = {}
_LOCK = threading.Lock()


KNOWN_BASE_PREFIX = "embedded:"
"""The bundled GGUF is the base Gemma 3 270M (its README names google/gemma-3-270m): not probed on start."""


def capability(llm: LLMClient, *, refresh: bool = False) -> CapabilityReport:
    """The cached probe report for `llm`'s label; `refresh` probes again, the bundled model included."""
    with _LOCK:
        if refresh or llm.label not in _REPORTS:
            if not refresh and llm.label.startswith(KNOWN_BASE_PREFIX):
                return CapabilityReport(llm.label, (), error="a base model, known not to follow instructions")
            _REPORTS[llm.label] = probe(llm)
        return _REPORTS[llm.label]


def structure_llm_client(settings: Settings, generator: LLMClient) -> LLMClient:
    """The generator, or the separate parser model on the same server when one is set."""
    if not settings.parser_llm_model or settings.llm_backend == "embedded":
        return generator
    return make_llm(settings.updated(llm_model=settings.parser_llm_model))


def choose_structure_llm(settings: Settings, generator: LLMClient) -> StructureChoice:
    """Apply `settings.structure_producer`: trained, llm, or auto (the probe decides)."""
    if settings.structure_producer == "trained":
        return StructureChoice(None, "Trained and heuristic producers, as chosen in the settings.")
    try:
        llm = structure_llm_client(settings, generator)
    except StudioError as error:
        return StructureChoice(None, f"Trained producers: the parser model is unavailable ({error.what}).")
    if settings.structure_producer == "llm":
        return StructureChoice(llm, f"{llm.label}, as chosen in the settings (the probe is not consulted).")
    report = capability(llm)
    if report.follows_formats:
        return StructureChoice(llm, f"{report.summary}: it builds the structures.")
    return StructureChoice(None, f"Trained producers: {report.summary}.")
