"""The LLM chunk parser on GUM dev paragraphs: its EDU trees projected to sentences for RST-Parseval.

Each multi-sentence paragraph (its GUM sentences joined by spaces) goes to the parser Disco-RAG
uses for a chunk (`LLMChunkParser`). Its tree is over its own EDUs with Disco-RAG labels;
`gum.project_tree` turns it into a tree over the GUM sentences by the LCA rule that built the gold
trees and maps the labels back to GUM coarse classes. A sentence boundary is an EDU boundary when
only spaces and punctuation lie between the two. A reply the parser cannot read gets the trained
parser's tree (over the studio's own sentence split, projected the same way); it is kept as what
it is and marked, so the rows count and score the LLM's trees and the fallbacks apart. The tree
over paragraphs is the trained parser's: the LLM is only asked about paragraphs.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from backend.config import Settings
from backend.discourse.chunk_parse import ChunkParse, ChunkParser, ParseOutcome, TrainedChunkParser
from backend.discourse.gum import GumDocument, project_tree
from backend.discourse.gum_eval import DocumentParser
from backend.discourse.llm_rst_parser import LLMChunkParser
from backend.discourse.parser import DocumentParse, SentenceRSTParser
from backend.discourse.rst_tree import RSTTree, Unit
from backend.errors import StudioError
from backend.llm.capability import StructureChoice, choose_structure_llm
from backend.llm.factory import make_llm

NO_LLM_KEY = "llm:none"
ONLY_FALLBACKS = "No paragraph was parsed by the LLM: the LLM rows' scores reflect fallbacks only."


def structure_choice(settings: Settings) -> StructureChoice:
    """The model Disco-RAG would ask for chunk trees under `settings`, or None with the reason."""
    try:
        generator = make_llm(settings)
    except StudioError as error:
        return StructureChoice(None, f"no LLM could be loaded ({error.what})")
    return choose_structure_llm(settings, generator)


def choice_note(choice: StructureChoice) -> str:
    """What the LLM rows will measure, printed before a run so fallback-only scores are never a surprise."""
    if choice.llm is None:
        return (
            f"LLM rows: no capable LLM ({choice.reason}); every paragraph falls back to the trained "
            "parser, so these rows' scores reflect fallbacks."
        )
    return f"LLM rows: {choice.reason}"


@dataclass
class NoLLMParser:
    """Stands in for the LLM parser when no capable model is configured: every paragraph falls back."""

    reason: str
    fallback: TrainedChunkParser
    key: str = NO_LLM_KEY

    def parse(self, text: str) -> ChunkParse:
        kept = self.fallback.parse(text)
        outcome = ParseOutcome("fallback", self.key, kept.tree.producer, (), self.reason)
        return ChunkParse(kept.tree, outcome)


def chunk_parser(choice: StructureChoice, trained: SentenceRSTParser) -> ChunkParser:
    """The LLM parser for `choice`, falling back to `trained` (already loaded) as in Disco-RAG."""
    fallback = TrainedChunkParser(trained)
    if choice.llm is None:
        return NoLLMParser(choice.reason, fallback)
    return LLMChunkParser(choice.llm, fallback)


def _only_punctuation(text: str, a: int, b: int) -> bool:
    return not any(ch.isalnum() for ch in text[min(a, b) : max(a, b)])


def edu_ends(edus: Sequence[Unit], text: str, sentence_starts: Sequence[int]) -> list[int | None]:
    """For each sentence but the last, the EDU boundary b (EDU b | b+1) where it ends; None inside an EDU."""
    ends: list[int | None] = []
    for start in sentence_starts[1:]:
        near = [
            (abs(edu.start_char - start), i - 1)
            for i, edu in enumerate(edus)
            if i and edu.start_char is not None and _only_punctuation(text, edu.start_char, start)
        ]
        ends.append(min(near)[1] if near else None)
    return ends


def paragraph_tree(
    parser: ChunkParser, sentences: Sequence[str], units: list[Unit]
) -> tuple[RSTTree, ParseOutcome]:
    """The parser's tree for one paragraph, projected onto its GUM sentences `units`."""
    text = " ".join(sentences)
    starts = list(itertools.accumulate((len(s) + 1 for s in sentences[:-1]), initial=0))
    parse = parser.parse(text)
    ends = edu_ends(parse.tree.units, text, starts)
    producer = f"{parse.outcome.producer} (projected to sentences)"
    return project_tree(parse.tree, ends, units, producer), parse.outcome


@dataclass
class LLMRows:
    """One LLM parse per document, scored as rows `llm`, `llm_parsed` and `llm_fallback`.

    `outer` gives the tree over paragraphs (the trained parser's); `reasons` tallies why paragraphs
    fell back in this process, for the printed report.
    """

    parser: ChunkParser
    outer: DocumentParser
    reasons: Counter[str] = field(default_factory=Counter)

    def label(self, key: str) -> str:
        return {
            "llm": f"{self.parser.key} (fallbacks: trained parser)",
            "llm_parsed": f"{self.parser.key}, paragraphs it parsed",
            "llm_fallback": f"{self.parser.key}, fallbacks = trained parser",
        }[key]

    def parse(self, doc: GumDocument) -> tuple[DocumentParse, list[ParseOutcome | None]]:
        """Paragraph trees and each one's outcome (None: one sentence, nothing to ask)."""
        trees: list[RSTTree] = []
        outcomes: list[ParseOutcome | None] = []
        for sentences, gold in zip(doc.paragraphs(), doc.paragraph_trees, strict=True):
            if len(sentences) == 1:
                trees.append(RSTTree(gold.units, [], self.parser.key))
                outcomes.append(None)
                continue
            tree, outcome = paragraph_tree(self.parser, sentences, gold.units)
            trees.append(tree)
            outcomes.append(outcome)
            if outcome.status == "fallback":
                self.reasons[outcome.fallback_reason] += 1
        return DocumentParse(trees, self.outer(doc).document_tree), outcomes
