"""Discourse page: parse pasted or uploaded text with the trained sentence-level RST parser."""

from __future__ import annotations

import re

import pandas as pd
import streamlit as st

from backend.discourse.labels import to_disco_rag
from backend.discourse.parser import SentenceRSTParser
from backend.discourse.rst_tree import RSTTree, Unit
from backend.errors import BadDocumentError, StudioError
from backend.ingest.segment import sentence_spans
from components.rst_tree_view import render_rst_html

MAX_SENTENCES = 2500
_BLANK_LINES = re.compile(r"\n\s*\n")


@st.cache_resource(show_spinner="Loading the discourse parser…")
def _parser() -> SentenceRSTParser:
    return SentenceRSTParser.load_default()


def split_paragraphs(text: str) -> list[list[Unit]]:
    """Paragraphs at blank lines, sentences inside each, with character offsets into `text`."""
    paragraphs: list[list[Unit]] = []
    start = 0
    for match in [*_BLANK_LINES.finditer(text), None]:
        end = match.start() if match else len(text)
        spans = sentence_spans(text[start:end])
        units = [Unit(text[start + a : start + b], start + a, start + b) for a, b in spans]
        if units:
            paragraphs.append(units)
        start = match.end() if match else len(text)
    return paragraphs


def parse_text(parser: SentenceRSTParser, text: str) -> RSTTree:
    paragraphs = split_paragraphs(text)
    units = [u for p in paragraphs for u in p]
    if not units:
        raise BadDocumentError(
            "The text has no sentences.", "Paste a paragraph or upload a .txt or .md file."
        )
    if len(units) > MAX_SENTENCES:
        raise BadDocumentError(
            f"The text has {len(units)} sentences; this view parses up to {MAX_SENTENCES}.",
            "Paste a shorter part of the document.",
        )
    tree = parser.parse_document([[u.text for u in p] for p in paragraphs]).integrated()
    return RSTTree(units, tree.nodes, tree.producer, tree.label_set, {"paragraphs": len(paragraphs)})


def _read_upload() -> str:
    upload = st.file_uploader("…or upload a .txt / .md file", type=["txt", "md"], key="discourse_upload")
    if upload is None:
        return ""
    try:
        return upload.getvalue().decode("utf-8")
    except UnicodeDecodeError:
        raise BadDocumentError(
            f"{upload.name} is not UTF-8 text.", "Save it as UTF-8 and upload it again."
        ) from None


st.title("Discourse")
st.caption(
    "Sentence-level RST tree: each paragraph is parsed over its sentences, then the paragraphs are "
    "joined by a tree over paragraphs (paragraphs are separated by blank lines)."
)
st.session_state.setdefault("discourse_tree", None)
pasted = st.text_area("Paste text", height=180, key="discourse_text")
try:
    uploaded = _read_upload()
    if st.button("Parse", type="primary", key="discourse_parse"):
        text = uploaded or pasted
        if not text.strip():
            st.info("Paste some text or upload a file, then press Parse.")
        else:
            with st.spinner("Embedding and parsing…"):
                st.session_state.discourse_tree = parse_text(_parser(), text).to_dict()
except StudioError as error:
    st.error(str(error))
except Exception as error:  # never a traceback on the page
    st.error(f"Parsing failed: {error!r}. Try a shorter or plainer text.")

if st.session_state.discourse_tree is None:
    st.info("Paste a paragraph or upload a file, then press Parse.")
    st.stop()

tree = RSTTree.from_dict(st.session_state.discourse_tree)
names = st.radio(
    "Relation names", ["GUM classes", "Disco-RAG labels"], horizontal=True, key="discourse_names"
)
label = str if names == "GUM classes" else to_disco_rag
st.caption(
    f"Produced by: {tree.producer} · {len(tree.units)} sentences "
    f"in {tree.metadata.get('paragraphs', 1)} paragraphs"
)
st.iframe(render_rst_html(tree, label), height=min(720, 80 + 26 * len(tree.units)))
with st.expander("Nodes as a table"):
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "sentences": f"{n.start + 1}-{n.end + 1}",
                    "split after": n.split + 1,
                    "nuclearity": n.nuclearity,
                    "relation": n.relation,
                    "Disco-RAG": to_disco_rag(n.relation),
                }
                for n in tree.nodes
            ]
        ),
        hide_index=True,
    )
