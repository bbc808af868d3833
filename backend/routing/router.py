"""Two routers behind one small interface: a prompted LLM, and an offline embedding router.

Both answer a `RouterInput` with reply *text* in the same `[ANSWER] id` / `[EXPAND] id` /
"Cannot answer" format, and both replies go through the same tolerant parser, so trajectories
look alike whoever routed; `producer` says who did. The offline router exists because the
embedded model is a base model that cannot route: it scores the question against the shown
paragraphs and against each collapsed section (its title, and the centroid of its text) with
the configured sentence embedder.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from backend.errors import StudioError
from backend.generation.answerer import is_base_model
from backend.llm.base import Completion, LLMClient
from backend.retrieval.embedder import Embedder
from backend.routing.lighting import SubtreeView, render_subtree
from backend.routing.router_prompt import COMPLETION_STOPS, router_completion_prompt, router_messages
from backend.routing.router_reply import Behaviour, format_behaviours
from backend.routing.structure_tree import StructureTree

_WORD_CAPS = (120, 60, 30, 15, 8)  # words per node tried, longest first, until the prompt fits
REPLY_TOKENS = 48

ANSWER_MIN = 0.25
"""Offline router: a paragraph scoring below this cosine with the question is never an answer."""
ANSWER_MARGIN = 0.08
"""Offline router: answers are the paragraphs within this margin of the best shown paragraph."""
MAX_ANSWERS = 3
EXPAND_MIN = 0.35
"""Offline router: a collapsed section opens only if it scores this high and beats every shown paragraph."""


@dataclass(frozen=True)
class RouterInput:
    question: str
    tree: StructureTree
    lit: frozenset[str]
    view: SubtreeView
    allow_expand: bool
    allow_refuse: bool
    use_structure: bool


@dataclass(frozen=True)
class RouterTurn:
    """The router's reply text; `completion` carries tokens and latency for an LLM call.

    `error` is set, and `reply` empty, when the call failed: that is no routing decision, so the
    loop stops instead of reading it as one.
    """

    reply: str
    completion: Completion | None = None
    latency_s: float = 0.0
    error: str = ""


class Router(Protocol):
    producer: str

    def view_for(
        self, question: str, tree: StructureTree, lit: set[str], opened: set[str], *, allow_expand: bool
    ) -> SubtreeView:
        """The rendered subtree this router can read (an LLM's must fit its context)."""

    def decide(self, request: RouterInput) -> RouterTurn: ...


class LLMRouter:
    """Prompts the configured model; chat for instruction models, few-shot continuation for base ones."""

    def __init__(self, llm: LLMClient, reply_tokens: int = REPLY_TOKENS) -> None:
        self.llm = llm
        self.reply_tokens = reply_tokens
        self.producer = f"llm router ({llm.label})"

    def _prompt_tokens(self, question: str, view: SubtreeView, allow_expand: bool) -> int:
        if is_base_model(self.llm):
            return self.llm.count_tokens(router_completion_prompt(question, view.text))
        messages = router_messages(
            question, view.text, allow_expand=allow_expand, allow_refuse=True, use_structure=True
        )
        return sum(self.llm.count_tokens(m.content) for m in messages) + 16

    def view_for(
        self, question: str, tree: StructureTree, lit: set[str], opened: set[str], *, allow_expand: bool
    ) -> SubtreeView:
        """The longest node texts (in words per node) whose prompt still leaves room for the reply."""
        budget = self.llm.context_window - self.reply_tokens - 32
        for cap in _WORD_CAPS:
            view = render_subtree(tree, lit, cap, opened)
            if self._prompt_tokens(question, view, allow_expand) <= budget:
                return view
        return view

    def decide(self, request: RouterInput) -> RouterTurn:
        """One model call; a call that fails (server down, request rejected, empty) is a failed turn."""
        try:
            if is_base_model(self.llm):
                completion = self.llm.complete(
                    router_completion_prompt(request.question, request.view.text),
                    max_tokens=self.reply_tokens,
                    temperature=0.0,
                    stop=list(COMPLETION_STOPS),
                )
            else:
                completion = self.llm.chat(
                    router_messages(
                        request.question,
                        request.view.text,
                        allow_expand=request.allow_expand,
                        allow_refuse=request.allow_refuse,
                        use_structure=request.use_structure,
                    ),
                    max_tokens=self.reply_tokens,
                    temperature=0.0,
                )
        except StudioError as error:
            return RouterTurn("", error=str(error))
        return RouterTurn(completion.text, completion, completion.latency_s)


class OfflineRouter:
    """Embedding similarity in place of a model's judgement; deterministic and CPU-only."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self.producer = f"offline router ({embedder.name} similarity)"

    def view_for(
        self, question: str, tree: StructureTree, lit: set[str], opened: set[str], *, allow_expand: bool
    ) -> SubtreeView:
        return render_subtree(tree, lit, _WORD_CAPS[0], opened)

    def decide(self, request: RouterInput) -> RouterTurn:
        tree, view = request.tree, request.view
        texts = [request.question] + [tree.node(i).text for i in view.visible]
        collapsed = list(view.collapsed) if request.allow_expand else []
        sections = [tree.section_content(h) for h in collapsed]
        texts += [tree.node(h).text for h in collapsed]
        texts += [tree.node(i).text for ids in sections for i in ids]
        vectors = self.embedder.encode(texts)
        question, rest = vectors[0], vectors[1:]
        shown = rest[: len(view.visible)] @ question
        offset = len(view.visible)
        titles = rest[offset : offset + len(collapsed)] @ question
        offset += len(collapsed)
        section_scores = []
        for title_score, ids in zip(titles, sections, strict=True):
            centroid = rest[offset : offset + len(ids)].mean(axis=0)
            offset += len(ids)
            norm = float(np.linalg.norm(centroid)) or 1.0
            section_scores.append(max(float(title_score), float(centroid @ question) / norm))
        return RouterTurn(self._reply(view, shown, collapsed, section_scores, request.allow_refuse))

    @staticmethod
    def _reply(
        view: SubtreeView,
        shown: np.ndarray,
        collapsed: list[str],
        section_scores: list[float],
        allow_refuse: bool,
    ) -> str:
        best = float(shown.max()) if len(shown) else -1.0
        order = np.argsort(-shown, kind="stable") if len(shown) else []
        behaviours = [
            Behaviour("answer", view.visible[i])
            for i in order[:MAX_ANSWERS]
            if shown[i] >= ANSWER_MIN and shown[i] >= best - ANSWER_MARGIN
        ]
        if section_scores:
            top = int(np.argmax(section_scores))
            if section_scores[top] >= EXPAND_MIN and section_scores[top] > best:
                behaviours.append(Behaviour("expand", collapsed[top]))
        if not behaviours and not allow_refuse:
            if len(shown):
                behaviours = [Behaviour("answer", view.visible[int(order[0])])]
            elif section_scores:
                behaviours = [Behaviour("expand", collapsed[int(np.argmax(section_scores))])]
        return format_behaviours(behaviours)
