"""Bottom-up node enhancement: an internal node's text is a merge or an LLM summary of its children.

The rule (DISRetrieval, Eq. 1): when the children's texts together reach `tau` words, the node's
text is the summariser's summary of them; below `tau`, it is their concatenation (a merge, not
stored). Without a summariser every node is a merge, so a document can be built merge-only at
once and enhanced later. Nodes of equal height do not depend on each other, so each height is
summarised concurrently with a bounded pool; summaries are cached by content and model. A
rejected or failed reply leaves that node merged, says why in its producer and in a warning;
after a few request failures in a row (server down) the rest is merged instead of waiting. A
failed request or an empty reply is not cached (it may pass), and `EnhanceReport.failed` tells
the tree index not to save the tree, so the next run asks again.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace

from backend.errors import StudioError
from backend.llm.base import Completion, LLMClient
from backend.progress import ProgressFn, no_progress
from backend.retrieval.discourse_tree import MERGE, DiscourseNode, DiscourseTree
from backend.retrieval.summary_cache import CachedSummary, SummaryCache
from backend.retrieval.summary_prompt import PIECE_WORDS, SUMMARY_MAX_TOKENS, read_summary, request_summary

DEFAULT_WORKERS = 4
MAX_FAILURES_IN_A_ROW = 3


@dataclass(frozen=True)
class SummaryOutcome:
    text: str | None
    status: str
    """"summary" (new), "cached", "rejected" (reply unusable) or "failed" (request error)."""
    reason: str = ""
    completion: Completion | None = None


class Summariser:
    """One model's summaries of node children, through the cache."""

    def __init__(self, llm: LLMClient, cache: SummaryCache, max_tokens: int = SUMMARY_MAX_TOKENS) -> None:
        self.llm = llm
        self.cache = cache
        self.max_tokens = max_tokens

    @property
    def label(self) -> str:
        return self.llm.label

    def summarise(self, pieces: Sequence[str]) -> SummaryOutcome:
        key = [f"max_tokens={self.max_tokens}", *pieces]  # a reply cut shorter is another entry
        cached = self.cache.get(key)
        if cached is not None:
            return SummaryOutcome(cached.text, "cached", cached.reason)
        try:
            completion = request_summary(self.llm, pieces, self.max_tokens)
        except StudioError as error:
            return SummaryOutcome(None, "failed", error.what)
        if not completion.text.strip():
            return SummaryOutcome(None, "failed", "empty reply", completion)
        text, reason = read_summary(completion.text)
        self.cache.put(key, CachedSummary(text, reason))
        return SummaryOutcome(text, "summary" if text else "rejected", reason, completion)


@dataclass
class EnhanceReport:
    """What enhancement did, for the progress panel, the answer's costs and the benchmark."""

    tau: int
    summariser: str | None
    merges: int = 0
    summaries: int = 0
    cached: int = 0
    rejected: int = 0
    failed: int = 0
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)
    first_rejection: str = ""
    first_failure: str = ""

    def count(self, outcome: SummaryOutcome) -> None:
        if outcome.status == "cached":
            self.cached += 1
        elif outcome.status == "summary":
            self.summaries += 1
        elif outcome.status == "rejected":
            self.rejected += 1
            self.first_rejection = self.first_rejection or outcome.reason
        else:
            self.failed += 1
            self.first_failure = self.first_failure or outcome.reason
        if outcome.completion is not None:
            self.calls += 1
            self.prompt_tokens += outcome.completion.prompt_tokens
            self.completion_tokens += outcome.completion.completion_tokens

    def summary_warnings(self) -> list[str]:
        """One line each for failed and for unusable summaries, naming the stage and the first reason."""
        warnings = []
        if self.failed:
            warnings.append(
                f"Build trees stage: {self.failed} node summaries by {self.summariser} failed "
                f"({self.first_failure}); those nodes were merged, and the tree is not saved, so the next "
                "run asks again."
            )
        if self.rejected:
            warnings.append(
                f"Build trees stage: {self.rejected} node summaries by {self.summariser} were unusable "
                f"({self.first_rejection}); those nodes were merged."
            )
        return warnings


def producer_for(outcome: SummaryOutcome, label: str) -> str:
    if outcome.text is not None:
        return f"summary:{label}"
    verb = "failed" if outcome.status == "failed" else "rejected"
    return f"{MERGE} (summary by {label} {verb}: {outcome.reason})"


def _joined(nodes: Sequence[DiscourseNode], texts: list[str | None], index: int, max_words: int) -> str:
    """The node's current text, expanding merges, cut to `max_words` (what a prompt shows)."""
    words: list[str] = []
    stack = [index]
    while stack and len(words) < max_words:
        current = stack.pop()
        if texts[current] is not None:
            words.extend((texts[current] or "").split()[: max_words - len(words)])
        else:
            stack.extend(reversed(nodes[current].children))
    return " ".join(words)


def enhance(
    tree: DiscourseTree,
    tau: int,
    summariser: Summariser | None,
    *,
    workers: int = DEFAULT_WORKERS,
    progress: ProgressFn = no_progress,
) -> tuple[DiscourseTree, EnhanceReport]:
    """A copy of `tree` whose internal node texts follow the tau rule; leaves are unchanged."""
    started = time.perf_counter()
    label = summariser.label if summariser else None
    report = EnhanceReport(tau, label)
    nodes = tree.nodes
    texts: list[str | None] = [n.text if n.is_leaf else None for n in nodes]
    producers = [n.producer if n.is_leaf else MERGE for n in nodes]
    words = [len(t.split()) if t is not None else 0 for t in texts]
    heights = tree.heights()
    internal = [n.index for n in nodes if not n.is_leaf]
    done, failures_in_a_row = 0, 0
    progress("summarise nodes", 0, len(internal))
    by_height: dict[int, list[int]] = {}
    for index in internal:
        by_height.setdefault(heights[index], []).append(index)
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        for height in sorted(by_height):
            level = by_height[height]
            wanted = []
            for index in level:
                words[index] = sum(words[c] for c in nodes[index].children)
                if (
                    summariser is not None
                    and failures_in_a_row < MAX_FAILURES_IN_A_ROW
                    and words[index] >= tau
                ):
                    wanted.append(index)
            pieces = [[_joined(nodes, texts, c, PIECE_WORDS) for c in nodes[i].children] for i in wanted]
            outcomes = list(pool.map(summariser.summarise, pieces)) if summariser else []
            for index, outcome in zip(wanted, outcomes, strict=True):
                report.count(outcome)
                failures_in_a_row = failures_in_a_row + 1 if outcome.status == "failed" else 0
                producers[index] = producer_for(outcome, label or "")
                if outcome.text is not None:
                    texts[index] = outcome.text
                    words[index] = len(outcome.text.split())
            report.merges += len(level) - sum(1 for i in wanted if texts[i] is not None)
            done += len(level)
            progress("summarise nodes", done, len(internal))
    if failures_in_a_row >= MAX_FAILURES_IN_A_ROW:
        report.warnings.append(
            f"The summariser {label} failed {MAX_FAILURES_IN_A_ROW} times in a row; the remaining nodes "
            "were merged instead. Check the model server, then enhance the tree again."
        )
    report.warnings.extend(report.summary_warnings())
    new_nodes = [replace(n, text=texts[n.index], producer=producers[n.index]) for n in nodes]
    metadata = {**tree.metadata, "tau": tau, "summariser": label}
    report.seconds = time.perf_counter() - started
    return tree.with_nodes(new_nodes, metadata=metadata, warnings=[*tree.warnings, *report.warnings]), report
