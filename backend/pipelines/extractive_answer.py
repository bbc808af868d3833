"""Extractive answers: the top-k chunks, then evidence sentences chosen by discourse role, no LLM.

The offline answer when no capable generator is configured, and a point of comparison when one
is: every sentence of the answer is copied from a retrieved passage and cited.
"""

from __future__ import annotations

import time
from functools import lru_cache

from backend.config import BUNDLED_EMBEDDER
from backend.discourse.parser import SentenceRSTParser
from backend.errors import ConfigError
from backend.generation.answer import Answer, StageCost
from backend.generation.extractive import extractive_answer
from backend.pipelines.registry import RunContext, register
from backend.retrieval.search import retrieve_chunks

WORD_BUDGET = 120


@lru_cache(maxsize=1)
def _parser() -> SentenceRSTParser:
    """The trained sentence parser, loaded once; it embeds with MiniLM, the model it was trained on."""
    return SentenceRSTParser.load_default()


@register
class ExtractiveAnswer:
    name = "extractive"
    title = "Extractive (offline, no LLM)"
    description = (
        "Retrieve the top-k chunks, then copy the sentences most similar to the question, preferring "
        "RST nuclei and keeping contrasting or conditional sentences with what they qualify; each is cited."
    )

    def run(self, question: str, ctx: RunContext) -> Answer:
        started = time.perf_counter()
        passages = retrieve_chunks(
            question,
            embedder=ctx.embedder,
            store=ctx.store,
            library=ctx.library,
            k=ctx.settings.top_k,
            doc_ids=ctx.doc_ids,
        )
        retrieval = StageCost("retrieve", latency_s=time.perf_counter() - started)
        if not passages:
            return Answer(
                self.name,
                question,
                "",
                [],
                [],
                "extractive",
                [retrieval],
                ["No passages were found: the selected documents are empty or not indexed."],
            )
        started = time.perf_counter()
        warnings: list[str] = []
        parse = None
        try:
            parse = _parser().parse
        except ConfigError as error:
            warnings.append(f"No RST trees (every sentence counts as a nucleus): {error}")
        if ctx.embedder.name != BUNDLED_EMBEDDER and parse is not None:
            warnings.append("The RST parser embeds with the bundled MiniLM, not the configured embedder.")
        result = extractive_answer(question, passages, ctx.embedder.encode, parse, WORD_BUDGET)
        selection = StageCost("select sentences", latency_s=time.perf_counter() - started)
        producer = "extractive: " + " + ".join([*result.producers, f"{ctx.embedder.name} similarity"])
        return Answer(
            self.name,
            question,
            result.text,
            passages,
            result.citations,
            producer,
            [retrieval, selection],
            warnings,
        )
