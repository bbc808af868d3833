"""A RAPTOR-style baseline: recursive clustering of embeddings, node texts, collapsed-tree search.

Leaves are the same <=100-word chunks as flatten-chunk. Each layer's node vectors are reduced
with PCA (RAPTOR uses UMAP, which is not installed here) and clustered with a Gaussian mixture
whose size minimises BIC (diagonal covariances with a floor, on rescaled data); each cluster
becomes a parent whose text follows the tau rule (an LLM summary of its members, or their
merge), and is embedded for the next layer (a long merge is embedded as far as the encoder
reads). Assignment is hard (RAPTOR's soft assignment would let a chunk sit under two parents,
which is no tree), and clusters over 500 words are split again, as RAPTOR re-clusters clusters
over its length limit. Retrieval ranks every node of the collapsed tree: a leaf adds its text,
a summary node adds the summary, a merged node adds its unused leaves in document order.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from backend.ingest.document import Document
from backend.progress import ProgressFn, no_progress
from backend.retrieval.discourse_tree import MERGE, TreeDraft
from backend.retrieval.doc_units import word_chunks
from backend.retrieval.node_text import DEFAULT_WORKERS, EnhanceReport, Summariser, producer_for
from backend.retrieval.selection import (
    BudgetFill,
    IndexedTree,
    NodeVisit,
    SelectedUnit,
    Selection,
    forest_scores,
    ranked,
)
from backend.retrieval.summary_prompt import PIECE_WORDS

EmbedFn = Callable[[Sequence[str]], np.ndarray]
REDUCED_DIMS = 10
MAX_CLUSTERS = 16
MAX_LAYERS = 5
COVARIANCE_FLOOR = 1e-3
"""Keeps one-point clusters from winning BIC with a vanishing variance (diagonal covariances)."""
MAX_CLUSTER_WORDS = 500
"""Larger clusters are split again (RAPTOR bounds cluster length too); about five chunks."""
MIN_LAYER = 4
"""A layer with fewer nodes than this is not clustered again."""
PRODUCER = "raptor-style clustering (PCA + Gaussian mixture, BIC)"


def _bic_groups(vectors: np.ndarray, minimum: int, seed: int) -> list[list[int]]:
    """Rows grouped by the Gaussian mixture (at least `minimum` components) with the lowest BIC."""
    from sklearn.decomposition import PCA
    from sklearn.mixture import GaussianMixture

    count = len(vectors)
    dims = max(1, min(REDUCED_DIMS, count - 2))
    reduced = PCA(n_components=dims, random_state=seed).fit_transform(vectors)
    # one scale for every layer, so the covariance floor below means the same thing everywhere
    reduced = reduced / max(float(np.sqrt(reduced.var(axis=0).sum())), 1e-8)
    best, best_bic = None, float("inf")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence warnings on tiny layers are expected
        for n in range(minimum, max(minimum, min(MAX_CLUSTERS, count // 2)) + 1):
            model = GaussianMixture(
                n_components=n, covariance_type="diag", reg_covar=COVARIANCE_FLOOR, random_state=seed
            ).fit(reduced)
            bic = model.bic(reduced)
            if bic < best_bic:
                best, best_bic = model, bic
    labels = best.predict(reduced) if best is not None else np.zeros(count, dtype=int)
    groups: dict[int, list[int]] = {}
    for row, label in enumerate(labels.tolist()):
        groups.setdefault(label, []).append(row)
    return list(groups.values())


def cluster_layer(
    vectors: np.ndarray, sizes: Sequence[int], max_words: int = MAX_CLUSTER_WORDS, seed: int = 0
) -> list[list[int]]:
    """Groups of row indices; a group over `max_words` words (of `sizes`) is split again, as RAPTOR
    re-clusters clusters over its length limit. One group means the layer does not split further."""
    final: list[list[int]] = []
    todo = _bic_groups(vectors, 1, seed)
    while todo:
        group = todo.pop()
        if len(group) > 2 and sum(sizes[i] for i in group) > max_words:
            parts = _bic_groups(vectors[group], 2, seed)
            if len(parts) > 1:
                todo.extend([group[i] for i in part] for part in parts)
                continue
        final.append(sorted(group))
    return sorted(final, key=lambda g: g[0])


def build_raptor(
    doc: Document,
    tree_id: str,
    embed: EmbedFn,
    embed_words: int,
    tau: int,
    summariser: Summariser | None,
    *,
    workers: int = DEFAULT_WORKERS,
    progress: ProgressFn = no_progress,
) -> tuple[IndexedTree, EnhanceReport]:
    """Leaves, then clustered layers until a layer stops splitting; vectors come with the tree."""
    report = EnhanceReport(tau, summariser.label if summariser else None)
    draft = TreeDraft()
    chunks = word_chunks(doc)
    texts: list[str] = []
    for unit in chunks:
        draft.leaf(unit.text, unit.start, unit.end, "chunk")
        texts.append(unit.text)
    vectors = [np.asarray(embed([_cut(t, embed_words) for t in texts]), np.float32)]
    layer = list(range(len(chunks)))
    starts = [u.start for u in chunks]
    for depth in range(1, MAX_LAYERS + 1):
        if len(layer) < MIN_LAYER:
            break
        progress("cluster layers", depth, MAX_LAYERS)
        layer_vectors = np.concatenate(vectors)[layer]
        groups = [g for g in cluster_layer(layer_vectors, [len(texts[n].split()) for n in layer]) if g]
        if len(groups) <= 1 or len(groups) == len(layer):
            break
        members = [sorted((layer[i] for i in g), key=lambda n: starts[n]) for g in groups]
        made = _make_parents(draft, members, texts, tau, summariser, report, workers)
        starts.extend(min(starts[n] for n in m) for m in members)
        vectors.append(np.asarray(embed([_cut(texts[n], embed_words) for n in made]), np.float32))
        layer = made
    info = {"chunks": len(chunks), "layers": len(vectors) - 1, "tau": tau, "summariser": report.summariser}
    tree = draft.finish(tree_id, doc.id, "raptor", PRODUCER, info)
    report.warnings.extend(report.summary_warnings())
    tree.warnings.extend(report.warnings)
    return IndexedTree(tree, np.concatenate(vectors)), report


def _make_parents(
    draft: TreeDraft,
    members: list[list[int]],
    texts: list[str],
    tau: int,
    summariser: Summariser | None,
    report: EnhanceReport,
    workers: int,
) -> list[int]:
    """One parent per cluster; summaries (when the tau rule asks) run concurrently."""
    pieces = [[_cut(texts[n], PIECE_WORDS) for n in m] for m in members]
    sizes = [sum(len(texts[n].split()) for n in m) for m in members]
    wanted = [i for i, size in enumerate(sizes) if summariser is not None and size >= tau]
    outcomes = {}
    if summariser is not None and wanted:
        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            outcomes = dict(
                zip(wanted, pool.map(summariser.summarise, [pieces[i] for i in wanted]), strict=True)
            )
    made = []
    for i, group in enumerate(members):
        outcome = outcomes.get(i)
        if outcome is not None:
            report.count(outcome)
        summary = outcome.text if outcome is not None else None
        producer = producer_for(outcome, report.summariser or "") if outcome is not None else MERGE
        node = draft.join(tuple(group), "cluster", text=summary, producer=producer)
        report.merges += summary is None
        texts.append(summary if summary is not None else " ".join(texts[n] for n in group))
        made.append(node)
    return made


def _cut(text: str, words: int) -> str:
    return " ".join(text.split()[:words])


def collapsed_select(forest: Sequence[IndexedTree], query: np.ndarray, budget_words: int) -> Selection:
    """RAPTOR's collapsed-tree search under a word budget; see the module docstring."""
    scores = forest_scores(forest, query)
    used = [set() for _ in forest]
    fill = BudgetFill(budget_words)
    selection = Selection(budget_words)
    for tree_pos, node in ranked(forest, scores):
        if fill.full:
            break
        item = forest[tree_pos]
        current = item.tree.nodes[node]
        if current.is_leaf or current.text is not None:
            units = [(node, "leaf" if current.is_leaf else "summary")]
        else:
            units = [(leaf, "leaf") for leaf in item.tree.leaves_of(node)]
        added = []
        for unit, kind in units:
            if unit in used[tree_pos] or int(item.words[unit]) == 0:
                continue
            used[tree_pos].add(unit)
            kept = fill.take(int(item.words[unit]))
            selection.units.append(
                SelectedUnit(tree_pos, unit, float(scores[tree_pos][unit]), node, kept, kind)
            )
            added.append(unit)
            if fill.full:
                break
        selection.visits.append(NodeVisit(tree_pos, node, float(scores[tree_pos][node]), tuple(added)))
    return selection
