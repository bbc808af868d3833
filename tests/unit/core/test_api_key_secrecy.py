"""The OpenAI-compatible API key stays in the client: not in logs, warnings, answers or exports.

The studio talks to a fake OpenAI-compatible server (`tests/fakes/fake_openai.py`, no model)
over real HTTP through the `openai` SDK. Once the server answers every stage; once it refuses
every chat request with a 401 whose message echoes the Authorization header back, as servers
do for a bad key, so the error text carries the key into the studio. Logging is captured at
DEBUG for every logger (the SDK and httpx included) and Python warnings are recorded.
"""

from __future__ import annotations

import json
import logging
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from backend.config import Settings
from backend.errors import LLMRequestError
from backend.generation.answer import Answer
from backend.reports.answer_export import answer_to_html, answer_to_json
from backend.studio import Studio
from components.report_drawings import REPORT_DRAWINGS
from tests.conftest import SAMPLES
from tests.fakes.fake_openai import MODEL, FakeOpenAI

KEY = "sk-test-7f3a9c2e5b1d8f4a"
QUESTION = "How much does an electric bus cost compared with a diesel bus?"
METHODS = ("disco_rag", "disretrieval", "rdr2", "combined")


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample documents indexed once; each test's studio reads the same library and store."""
    path = tmp_path_factory.mktemp("data")
    indexer = Studio(Settings(data_dir=path)).indexer
    for sample in sorted(SAMPLES.iterdir()):
        indexer.index_file(sample.read_bytes(), sample.name)
    return path


@pytest.fixture
def recorded_warnings() -> Iterator[list[warnings.WarningMessage]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield caught


def studio_for(data_dir: Path, url: str) -> Studio:
    return Studio(
        Settings(
            data_dir=data_dir,
            llm_backend="openai",
            llm_model=MODEL,
            openai_base_url=url,
            openai_api_key=KEY,
            llm_max_retries=0,
            structure_producer="llm",
            top_k=3,
        )
    )


def everything_shown(answer: Answer) -> list[str]:
    """Every text a user or a report gets from an answer."""
    return [
        answer.text,
        *answer.warnings,
        json.dumps(answer.structures),
        answer_to_json(answer),
        answer_to_html(answer, REPORT_DRAWINGS),
    ]


def assert_no_key(texts: list[str], caplog: pytest.LogCaptureFixture, caught: list) -> None:
    assert not [t for t in texts if KEY in t]
    assert KEY not in caplog.text
    assert not [w for w in caught if KEY in str(w.message)]
    assert any(r.name.startswith(("openai", "httpx")) for r in caplog.records), "SDK logs were captured"


def test_the_key_is_sent_to_the_server_and_shown_nowhere(
    data_dir: Path, caplog: pytest.LogCaptureFixture, recorded_warnings: list
) -> None:
    caplog.set_level(logging.DEBUG)
    with FakeOpenAI() as server:
        studio = studio_for(data_dir, server.url)
        answers = [studio.ask(method, QUESTION) for method in METHODS]
        statuses = [f"{s.name} {s.detail}" for s in studio.statuses()]
    assert server.authorizations and set(server.authorizations) == {f"Bearer {KEY}"}
    assert all(a.text and not a.failed_stage for a in answers)
    assert {"rst_trees", "rhetorical_graph", "plan", "trajectory"} <= {
        k for a in answers for k in a.structures
    }
    texts = [t for a in answers for t in everything_shown(a)] + statuses
    assert_no_key(texts, caplog, recorded_warnings)


def test_a_key_echoed_by_the_server_is_scrubbed_everywhere(
    data_dir: Path, caplog: pytest.LogCaptureFixture, recorded_warnings: list
) -> None:
    caplog.set_level(logging.DEBUG)
    with FakeOpenAI(reject_key=True) as server:
        studio = studio_for(data_dir, server.url)
        answers = [studio.ask(method, QUESTION) for method in METHODS]
        with pytest.raises(LLMRequestError) as raised:
            studio.ask("standard_rag", QUESTION)
    assert all(a.failed_stage == "generate" and not a.text for a in answers)
    echoed = "Incorrect API key provided: Bearer ***"
    assert all(any(echoed in w for w in a.warnings) for a in answers), "the echo reached the warnings"
    assert echoed in json.dumps(answers[0].structures), "and the structures' fallback reasons"
    texts = [t for a in answers for t in everything_shown(a)] + [str(raised.value)]
    assert echoed in texts[-1]
    assert_no_key(texts, caplog, recorded_warnings)
