"""The routing loop: light, ask the router, apply its behaviours, stop; once per document.

Following the paper, EXPAND *replaces* what is shown with the content of the opened section(s)
(headings stay), which keeps every view about the size of one section; answered paragraphs are
kept across steps. A heading opened once is not offered again. The loop stops when the router
refuses, when a reply gives nothing usable, when a step asks for no further expansion, or when
EXPAND is wanted past `max_expansions` iterations (those EXPANDs are dropped and recorded).

When the router's model call fails, that route stops with the steps before it kept, the
documents after it are not sent to the router at all (a server that is down would only fail
again, each time after its retries), and a document without an answered node is read from its
retrieved passages.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from backend.ingest.document import Document
from backend.retrieval.search import Passage
from backend.routing.lighting import SubtreeView, expand_lighting, initial_lighting, match_passages
from backend.routing.router import Router, RouterInput
from backend.routing.router_reply import parse_router_reply
from backend.routing.structure_builders import tree_from_passages
from backend.routing.structure_tree import StructureTree
from backend.routing.trajectory import DocumentRoute, RoutingStep

CALL_FAILED = "call failed"


@dataclass(frozen=True)
class RouteOptions:
    max_expansions: int = 3
    allow_expand: bool = True
    allow_refuse: bool = True
    use_structure: bool = True


@dataclass
class RoutingResult:
    """Per-document routes and the passages they chose, documents in retrieval order."""

    routes: list[DocumentRoute]
    passages: list[Passage]
    latency_s: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    warnings: list[str] = field(default_factory=list)
    failure: str = ""
    """The first failed router call's error; empty when every call answered."""

    @property
    def calls(self) -> int:
        return sum(r.calls for r in self.routes)

    @property
    def unusable_replies(self) -> int:
        return sum(r.unusable_replies for r in self.routes)


def route_tree(
    question: str,
    tree: StructureTree,
    matched: Sequence[str],
    router: Router,
    options: RouteOptions,
    doc_name: str = "",
) -> DocumentRoute:
    """Route one document from the content nodes its retrieved passages matched."""
    lit = initial_lighting(tree, matched)
    route = DocumentRoute(tree.doc_id, doc_name, tree, router.producer, list(matched), _ordered(tree, lit))
    opened: set[str] = set()
    expansions = 0
    while True:
        can_expand = options.allow_expand and expansions < options.max_expansions
        view = router.view_for(question, tree, lit, opened, allow_expand=can_expand)
        if not view.visible and not (can_expand and view.collapsed):
            route.stop_reason = "nothing to route" if not route.steps else "expansion limit"
            return route
        request = RouterInput(
            question, tree, frozenset(lit), view, can_expand, options.allow_refuse, options.use_structure
        )
        started = time.perf_counter()
        turn = router.decide(request)
        latency = turn.latency_s or (time.perf_counter() - started)
        if turn.error:
            route.steps.append(_failed_step(len(route.steps), view, turn.error, latency))
            route.stop_reason = CALL_FAILED
            return route
        off_reason = (
            "expansion is switched off for this run"
            if not options.allow_expand
            else f"expansion limit reached ({options.max_expansions} iterations)"
        )
        parsed = parse_router_reply(
            turn.reply,
            visible=view.visible,
            collapsed=view.collapsed,
            known=tree.nodes,
            allow_expand=can_expand,
            allow_refuse=options.allow_refuse,
            expand_off_reason=off_reason,
        )
        new_answers = [i for i in parsed.answers() if i not in route.answered]
        route.answered.extend(new_answers)
        expands = parsed.expands()
        newly_lit = expand_lighting(tree, expands)
        completion = turn.completion
        route.steps.append(
            RoutingStep(
                index=len(route.steps),
                view=view.text,
                visible=list(view.visible),
                collapsed=list(view.collapsed),
                expanded=list(view.expanded),
                raw_reply=turn.reply,
                behaviours=parsed.to_dict()["behaviours"],
                dropped=parsed.to_dict()["dropped"],
                refused=parsed.refused,
                usable=parsed.usable,
                answered=new_answers,
                lit_by_expand=_ordered(tree, newly_lit),
                prompt_tokens=completion.prompt_tokens if completion else 0,
                completion_tokens=completion.completion_tokens if completion else 0,
                latency_s=latency,
            )
        )
        if parsed.refused:
            route.stop_reason = "refused"
            return route
        if not expands:
            limited = any(d["reason"].startswith("expansion limit") for d in route.steps[-1].dropped)
            route.stop_reason = (
                "expansion limit" if limited else "answered" if parsed.usable else "no progress"
            )
            return route
        opened.update(expands)
        lit = newly_lit
        expansions += 1


def _failed_step(index: int, view: SubtreeView, error: str, latency_s: float) -> RoutingStep:
    """What the router was shown when its call failed; it decided nothing."""
    return RoutingStep(
        index=index,
        view=view.text,
        visible=list(view.visible),
        collapsed=list(view.collapsed),
        expanded=list(view.expanded),
        raw_reply="",
        behaviours=[],
        dropped=[],
        refused=False,
        usable=False,
        answered=[],
        lit_by_expand=[],
        latency_s=latency_s,
        error=error,
    )


def _ordered(tree: StructureTree, ids: set[str]) -> list[str]:
    return [i for i, _ in tree.preorder() if i in ids]


def route_documents(
    question: str,
    passages: Sequence[Passage],
    *,
    documents: Callable[[str], Document],
    tree_for: Callable[[Document], StructureTree],
    router: Router,
    options: RouteOptions,
) -> RoutingResult:
    """One route per retrieved document; the routed passages are read together afterwards."""
    by_doc: dict[str, list[Passage]] = {}
    for passage in passages:
        by_doc.setdefault(passage.doc_id, []).append(passage)
    routes: list[DocumentRoute] = []
    chosen: list[Passage] = []
    failure = ""
    for doc_id, doc_passages in by_doc.items():
        doc = documents(doc_id)
        if options.use_structure:
            tree = tree_for(doc)
            spans = {p.id: (p.start, p.end) for p in doc.paragraphs}
            matched = match_passages(tree, spans, doc_passages)
        else:
            tree = tree_from_passages(doc.id, doc.title, doc_passages)
            matched = tree.content_ids()
        if failure:
            lit = _ordered(tree, initial_lighting(tree, matched))
            route = DocumentRoute(tree.doc_id, doc.name, tree, router.producer, list(matched), lit)
            route.stop_reason = CALL_FAILED
        else:
            route = route_tree(question, tree, matched, router, options, doc.name)
            if route.stop_reason == CALL_FAILED:
                failure = route.steps[-1].error
        routes.append(route)
        if route.stop_reason == CALL_FAILED and not route.answered:
            chosen.extend(doc_passages)
        else:
            chosen.extend(_read_back(doc, tree, route.answered, doc_passages))
    result = RoutingResult(routes, chosen, failure=failure)
    for route in routes:
        for step in route.steps:
            result.latency_s += step.latency_s
            result.prompt_tokens += step.prompt_tokens
            result.completion_tokens += step.completion_tokens
    return result


def _read_back(
    doc: Document, tree: StructureTree, answered: list[str], retrieved: list[Passage]
) -> list[Passage]:
    """Answered nodes as citable passages, in document order: paragraphs, or the retrieved chunks."""
    chunks = {p.chunk_id: p for p in retrieved}
    paragraphs = {p.id: p for p in doc.paragraphs}
    found: list[Passage] = []
    for node_id in _ordered(tree, set(answered)):
        source = tree.node(node_id).source_id or ""
        if source in chunks:
            found.append(chunks[source])
        elif source in paragraphs and all(p.chunk_id != source for p in found):
            para = paragraphs[source]
            found.append(
                Passage(
                    chunk_id=para.id,
                    doc_id=doc.id,
                    doc_name=doc.name,
                    text=doc.span(para.start, para.end),
                    start=para.start,
                    end=para.end,
                    pages=(para.page,) if para.page is not None else (),
                )
            )
    return found
