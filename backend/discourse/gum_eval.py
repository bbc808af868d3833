"""Score any document parser on GUM with RST-Parseval, at paragraph and at document level.

Paragraph level: each predicted paragraph tree against the gold paragraph tree. Document level:
the integrated predicted tree (paragraph trees joined by the tree over paragraphs) against the
gold tree over all sentences of the document, which ignores paragraph boundaries.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from backend.discourse.gum import GumDocument
from backend.discourse.parser import DocumentParse, SentenceRSTParser, paragraph_vectors
from backend.discourse.rst_tree import RSTTree, branching_tree
from backend.eval.rst_parseval import ParsevalScores, parseval

DocumentParser = Callable[[GumDocument], DocumentParse]


def score(
    docs: Sequence[GumDocument], predict: DocumentParser, include_root: bool = True
) -> dict[str, ParsevalScores]:
    """{"paragraph": scores, "document": scores} for `predict` over `docs`."""
    predictions = [predict(doc) for doc in docs]
    paragraph_pairs = [
        (gold, pred)
        for doc, parse in zip(docs, predictions, strict=True)
        for gold, pred in zip(doc.paragraph_trees, parse.paragraph_trees, strict=True)
    ]
    document_pairs = [
        (doc.document_tree, parse.integrated()) for doc, parse in zip(docs, predictions, strict=True)
    ]
    return {
        "paragraph": parseval(paragraph_pairs, include_root),
        "document": parseval(document_pairs, include_root),
    }


def branching_parser(direction: str, nuclearity: str, relation: str) -> DocumentParser:
    """Right- or left-branching inside and across paragraphs, one label everywhere."""

    def tree(units_of: RSTTree) -> RSTTree:
        return branching_tree(units_of.units, direction, nuclearity, relation)

    def predict(doc: GumDocument) -> DocumentParse:
        return DocumentParse([tree(t) for t in doc.paragraph_trees], tree(doc.paragraphs_tree))

    return predict


def gold_paragraphs_parser() -> DocumentParser:
    """Gold paragraph trees joined by the gold tree over paragraphs: a paragraphs-first ceiling."""
    return lambda doc: DocumentParse(doc.paragraph_trees, doc.paragraphs_tree)


def trained_parser(parser: SentenceRSTParser, vectors: dict[str, np.ndarray]) -> DocumentParser:
    """The trained parser on precomputed sentence vectors (doc id -> (n_sentences, dim))."""

    def predict(doc: GumDocument) -> DocumentParse:
        vecs = vectors[doc.doc_id]
        bounds = [*doc.paragraph_starts, len(doc.sentences)]
        trees = [
            parser.parse_vectors(gold.units, vecs[a:b])
            for gold, a, b in zip(doc.paragraph_trees, bounds, bounds[1:], strict=False)
        ]
        par_vecs = paragraph_vectors(vecs, doc.paragraph_starts)
        outer = parser.parse_vectors(doc.paragraphs_tree.units, par_vecs, document_level=True)
        return DocumentParse(trees, outer)

    return predict
