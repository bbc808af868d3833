"""DISRetrieval and its baselines as answering methods: tree retrieval, then one cited answer.

Each method selects `disr_word_budget` words of evidence from the chosen documents with its own
retriever (discourse tree + dual selection; Bisection; RAPTOR-style collapsed tree; flat
chunks; flat sentences), then answers with the standard generator. Trees are built the first
time a document needs them and cached. Node summaries come from the model that
`choose_structure_llm` picks; with none (the embedded base model in "auto" mode) the trees are
merge-only, and the record says why.
"""

from __future__ import annotations

from typing import ClassVar

from backend.errors import StudioError
from backend.generation.answer import Answer, StageCost
from backend.generation.answerer import fit_passages, generate_cited_answer
from backend.ingest.document import Document
from backend.llm.capability import choose_structure_llm
from backend.pipelines.registry import RunContext, register
from backend.pipelines.stage_failure import partial_answer
from backend.retrieval.node_text import Summariser
from backend.retrieval.summary_cache import SummaryCache
from backend.retrieval.tree_index import ENHANCED, TreeIndex
from backend.retrieval.tree_retrieval import TreeRetrieval, tree_retrieve


def usable_documents(ctx: RunContext) -> tuple[list[Document], list[str]]:
    """The selected documents indexed under the current settings, and warnings for the others."""
    docs, skipped = [], []
    current = ctx.settings.index_fingerprint()
    for doc_id in ctx.selected_ids():
        try:
            doc = ctx.library.get(doc_id)
        except KeyError:
            continue
        if doc.index_fingerprint != current:
            skipped.append(doc.name)
        else:
            docs.append(doc)
    warnings = []
    if skipped:
        warnings.append(
            f"Skipped {len(skipped)} document(s) indexed under other settings: "
            "re-index them on the Library page."
        )
    return docs, warnings


def summariser_for(method: str, ctx: RunContext) -> tuple[Summariser | None, str]:
    """Who writes node summaries for `method`, and the one-line reason the UI shows."""
    if method not in ENHANCED:
        return None, "Flat units: no tree, no node texts."
    choice = choose_structure_llm(ctx.settings, ctx.llm)
    if choice.llm is None:
        return None, f"Merge-only node texts (no LLM summaries). {choice.reason}"
    summariser = Summariser(choice.llm, SummaryCache(ctx.settings.data_dir, choice.llm.label))
    tau = ctx.settings.disr_tau_words
    return summariser, f"Node summaries by {choice.llm.label} at tau={tau} words. {choice.reason}"


def tree_build_cost(found: TreeRetrieval) -> StageCost:
    """Tree building as one stage: time, summary calls and tokens, trees and summaries from cache."""
    cost = StageCost("build trees", latency_s=found.build_s)
    for report in found.builds:
        cost.cache_hits += report.cached
        if report.enhance is not None:
            cost.calls += report.enhance.calls
            cost.prompt_tokens += report.enhance.prompt_tokens
            cost.completion_tokens += report.enhance.completion_tokens
            cost.cache_hits += report.enhance.cached
    return cost


class _TreeMethod:
    name: ClassVar[str]
    title: ClassVar[str]
    description: ClassVar[str]

    def run(self, question: str, ctx: RunContext) -> Answer:
        docs, warnings = usable_documents(ctx)
        if not docs:
            return Answer(
                self.name,
                question,
                "",
                [],
                [],
                ctx.llm.label,
                [],
                [*warnings, "No documents to search: the selection is empty or not indexed."],
            )
        summariser, reason = summariser_for(self.name, ctx)
        index = TreeIndex(ctx.settings, ctx.embedder, ctx.store)
        found = tree_retrieve(question, docs, self.name, index, summariser, reason)
        for item in found.forest:
            warnings.extend(f"{item.tree.doc_id}: {w}" for w in item.tree.warnings)
        costs = [tree_build_cost(found), StageCost("retrieve", latency_s=found.select_s)]
        passages, fit_warnings = fit_passages(question, found.passages, ctx.llm, ctx.settings.llm_max_tokens)
        structures = {"discourse_selection": found.record.to_dict()}
        try:
            text, citations, completion, answer_warnings = generate_cited_answer(
                question, passages, ctx.llm, ctx.embedder, ctx.settings.llm_max_tokens
            )
        except StudioError as error:
            return partial_answer(
                self.name,
                question,
                ctx,
                "generate",
                error,
                passages=passages,
                costs=costs,
                warnings=warnings + fit_warnings,
                structures=structures,
            )
        generation = StageCost("generate")
        generation.add(completion)
        costs.append(generation)
        return Answer(
            self.name,
            question,
            text,
            passages,
            citations,
            ctx.llm.label,
            costs,
            warnings + fit_warnings + answer_warnings,
            structures,
        )


@register
class DISRetrieval(_TreeMethod):
    name = "disretrieval"
    title = "DISRetrieval"
    description = (
        "Discourse tree per document (trained sentence-level RST parser, paragraph trees joined by a "
        "tree over paragraphs); every node is ranked, leaves are taken directly and internal nodes add "
        "their best k sentences, up to the word budget; then a cited answer."
    )


@register
class Bisection(_TreeMethod):
    name = "bisection"
    title = "Bisection tree (DISRetrieval baseline)"
    description = (
        "Same node texts and dual selection as DISRetrieval, on a balanced binary tree made by halving "
        "the sentence list: what the discourse structure adds is the difference."
    )


@register
class Raptor(_TreeMethod):
    name = "raptor"
    title = "RAPTOR-style tree (DISRetrieval baseline)"
    description = (
        "100-word chunks clustered recursively by embedding (PCA + Gaussian mixture), cluster texts "
        "summarised or merged; the collapsed tree is searched up to the word budget."
    )


@register
class FlattenChunk(_TreeMethod):
    name = "flatten_chunk"
    title = "Flat 100-word chunks (DISRetrieval baseline)"
    description = "Chunks of at most 100 words on sentence boundaries, best first up to the word budget."


@register
class FlattenSentence(_TreeMethod):
    name = "flatten_sentence"
    title = "Flat sentences (DISRetrieval baseline)"
    description = "Single sentences, best first up to the word budget."
