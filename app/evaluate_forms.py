"""The Evaluate page's run forms, one per kind: read the inputs, run with a progress bar, report errors."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import streamlit as st

from backend.errors import StudioError
from backend.eval.asqa_run import run_asqa_eval
from backend.eval.qa_run import run_qa_eval
from backend.eval.retrieval_run import DEFAULT_BUDGETS, DEFAULT_RETRIEVERS, RETRIEVERS, run_retrieval_eval
from backend.eval.rst_run import PARSERS, run_rst_eval
from backend.pipelines.registry import get_method, method_names
from backend.progress import ProgressFn
from backend.studio import Studio

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
QASPER = SHARED_DATA / "qasper" / "qasper-dev-v0.3.json"
GUM = SHARED_DATA / "gum"
BUDGET_CHOICES = (100, 200, 300, 400, 500, 800)
GUM_DEV_DOCUMENTS = 30


def valid_name(name: str) -> bool:
    return bool(name.strip()) and name.strip().replace("-", "").replace("_", "").isalnum()


def _run(unit: str, job: Callable[[ProgressFn], object]) -> None:
    """Run `job` under a progress bar with counts; a stopped run keeps what it finished."""
    bar = st.progress(0.0, text="Starting")

    def progress(stage: str, done: int, total: int) -> None:
        counts = f"{done} of {total} {unit}"
        if not total:
            text = stage
        elif stage in ("evaluate", "retrieval", "rst", "asqa"):
            text = counts
        else:
            text = f"{stage} ({counts} done)"
        bar.progress(done / total if total else 0.0, text=text)

    try:
        job(progress)
    except (StudioError, ValueError, KeyError) as error:
        st.error(f"The run stopped: {str(error).rstrip('.')}. Finished {unit} are kept; run again to resume.")


def _ready(path: Path, chosen: bool, name: str, what: str) -> bool:
    """Whether the inputs can start a run; says what is missing when not."""
    if not path.exists():
        st.error(f"No file or folder at {path}.")
    elif not chosen or not valid_name(name):
        st.error(f"Choose at least one {what} and a run name of letters, digits, '-' or '_'.")
    else:
        return True
    return False


def qa_form(studio: Studio, runs_dir: Path) -> None:
    with st.form("evaluate_form"):
        dataset = st.text_input("QASPER-format file", str(QASPER), key="evaluate_dataset")
        methods = st.multiselect(
            "Methods",
            method_names(),
            default=["extractive"],
            format_func=lambda n: get_method(n).title,
            key="evaluate_methods",
        )
        left, middle, right = st.columns(3)
        papers = left.number_input("Papers", 1, 300, 3, key="evaluate_papers")
        per_paper = middle.number_input("Questions per paper", 1, 20, 2, key="evaluate_per_paper")
        name = right.text_input("Run name", "sample", key="evaluate_name")
        submitted = st.form_submit_button("Run (or resume)", type="primary", key="evaluate_submit")
    if submitted and _ready(Path(dataset), bool(methods), name, "method"):
        _run(
            "answers",
            lambda progress: run_qa_eval(
                studio,
                Path(dataset),
                methods,
                runs_dir / name.strip(),
                n_papers=papers,
                per_paper=per_paper,
                progress=progress,
            ),
        )


def retrieval_form(studio: Studio, runs_dir: Path) -> None:
    with st.form("evaluate_retrieval_form"):
        dataset = st.text_input("QASPER-format file", str(QASPER), key="evaluate_retrieval_dataset")
        methods = st.multiselect(
            "Retrievers", list(RETRIEVERS), default=list(DEFAULT_RETRIEVERS), key="evaluate_retrieval_methods"
        )
        budgets = st.multiselect(
            "Word budgets", BUDGET_CHOICES, default=list(DEFAULT_BUDGETS), key="evaluate_retrieval_budgets"
        )
        left, right = st.columns(2)
        papers = left.number_input("Papers", 1, 300, 3, key="evaluate_retrieval_papers")
        name = right.text_input("Run name", "retrieval-sample", key="evaluate_retrieval_name")
        submitted = st.form_submit_button("Run (or resume)", type="primary", key="evaluate_retrieval_submit")
    if submitted and _ready(Path(dataset), bool(methods and budgets), name, "retriever and budget"):
        _run(
            "rows",
            lambda progress: run_retrieval_eval(
                studio,
                Path(dataset),
                runs_dir / name.strip(),
                methods=methods,
                budgets=sorted(budgets),
                n_papers=papers,
                progress=progress,
            ),
        )


def rst_form(studio: Studio, runs_dir: Path) -> None:
    with st.form("evaluate_rst_form"):
        gum_dir = st.text_input("GUM folder (train/ and dev/)", str(GUM), key="evaluate_rst_gum")
        parsers = st.multiselect(
            "Parsers",
            list(PARSERS),
            default=list(PARSERS),
            format_func=lambda k: PARSERS[k],
            key="evaluate_rst_parsers",
        )
        left, right = st.columns(2)
        limit = left.number_input(
            "Dev documents (the first N)", 1, GUM_DEV_DOCUMENTS, GUM_DEV_DOCUMENTS, key="evaluate_rst_limit"
        )
        name = right.text_input("Run name", "gum-dev", key="evaluate_rst_name")
        submitted = st.form_submit_button("Run (or resume)", type="primary", key="evaluate_rst_submit")
    if submitted and _ready(Path(gum_dir), bool(parsers), name, "parser"):
        _run(
            "documents x parsers",
            lambda progress: run_rst_eval(
                runs_dir / name.strip(),
                gum_dir=Path(gum_dir),
                cache_dir=Path(studio.settings.data_dir) / "cache",
                parsers=parsers,
                limit=limit,
                progress=progress,
            ),
        )


def asqa_form(studio: Studio, runs_dir: Path) -> None:
    st.caption(
        f"Answering model: {studio.settings.llm_label}. Long answers need an instruction-following model; "
        "the run refuses one the capability probe rejects (the embedded base model always)."
    )
    with st.form("evaluate_asqa_form"):
        dataset = st.text_input("ASQA-format file", "", placeholder="ASQA.json", key="evaluate_asqa_dataset")
        methods = st.multiselect(
            "Methods",
            method_names(),
            default=["standard_rag"],
            format_func=lambda n: get_method(n).title,
            key="evaluate_asqa_methods",
        )
        left, middle, right = st.columns(3)
        split = left.text_input("Split", "dev", key="evaluate_asqa_split")
        questions = middle.number_input("Questions", 1, 1000, 5, key="evaluate_asqa_questions")
        name = right.text_input("Run name", "asqa-sample", key="evaluate_asqa_name")
        weak = st.checkbox(
            "Allow a weak model (tests the plumbing only; the scores mean nothing)", key="evaluate_asqa_weak"
        )
        submitted = st.form_submit_button("Run (or resume)", type="primary", key="evaluate_asqa_submit")
    if submitted and _ready(Path(dataset.strip() or "(no file given)"), bool(methods), name, "method"):
        _run(
            "answers",
            lambda progress: run_asqa_eval(
                studio,
                Path(dataset),
                methods,
                runs_dir / name.strip(),
                n_questions=questions,
                split=split.strip() or "dev",
                allow_weak_model=weak,
                progress=progress,
            ),
        )


FORMS: dict[str, Callable[[Studio, Path], None]] = {
    "qa": qa_form,
    "retrieval": retrieval_form,
    "rst": rst_form,
    "asqa": asqa_form,
}
