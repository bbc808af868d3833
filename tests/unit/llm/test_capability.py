"""The capability probe with hand-written replies (a scripted client, not a real model)."""

from __future__ import annotations

from backend.config import Settings
from backend.errors import ServerUnreachableError
from backend.llm import capability as cap
from tests.fakes.scripted_llm import ScriptedLLM


def obedient(prompt: str) -> str:
    """What an instruction-following model would say to each probe."""
    if "TEAL" in prompt:
        return "TEAL"
    if "CHUNK[2]" in prompt:
        return "CHUNK[2] -> CHUNK[1]: EXEMPLIFIES"
    return "[ANSWER] p7"


def rambling(prompt: str) -> str:
    """What the embedded base model tends to do: continue the text."""
    return prompt[-60:] + " and then the committee met again on Tuesday."


def test_obedient_model_passes_every_check() -> None:
    report = cap.probe(ScriptedLLM(obedient, label="ollama:obedient"))
    assert report.follows_formats
    assert [c.passed for c in report.checks] == [True, True, True]
    assert "3/3" in report.summary


def test_rambling_model_fails_and_the_replies_are_kept() -> None:
    report = cap.probe(ScriptedLLM(rambling, label="ollama:rambler"))
    assert not report.follows_formats
    assert all(not c.passed for c in report.checks)
    assert all(c.reply for c in report.checks)


def test_near_misses_fail_the_format_checks() -> None:
    replies = iter(
        ["Teal, of course!", "CHUNK[2] -> CHUNK[1]: EXEMPLIFIES\nBecause swallows are birds.", "[ANSWER] p3"]
    )
    report = cap.probe(ScriptedLLM(lambda _: next(replies), label="ollama:near"))
    assert [c.passed for c in report.checks] == [False, False, False]


def test_tolerates_case_and_spacing_in_the_formats() -> None:
    replies = iter(["teal.", "  CHUNK[2]->CHUNK[1] : EXEMPLIFIES  ", "[answer] p7\n"])
    report = cap.probe(ScriptedLLM(lambda _: next(replies), label="ollama:loose"))
    assert report.follows_formats


def test_unreachable_server_is_a_report_not_an_exception() -> None:
    def down(_: str) -> str:
        raise ServerUnreachableError("Ollama did not answer at http://127.0.0.1:9.", "Start it.")

    report = cap.probe(ScriptedLLM(down, label="ollama:down"))
    assert not report.follows_formats
    assert "did not answer" in report.summary


def test_choice_follows_the_setting_and_the_probe() -> None:
    settings = Settings()
    good = ScriptedLLM(obedient, label="ollama:choice-good")
    bad = ScriptedLLM(rambling, label="ollama:choice-bad")
    assert cap.choose_structure_llm(settings, good).llm is good
    auto_bad = cap.choose_structure_llm(settings, bad)
    assert auto_bad.llm is None and "does not follow" in auto_bad.reason
    assert cap.choose_structure_llm(settings.updated(structure_producer="llm"), bad).llm is bad
    assert cap.choose_structure_llm(settings.updated(structure_producer="trained"), good).llm is None


def test_probe_runs_once_per_model_until_refreshed() -> None:
    llm = ScriptedLLM(obedient, label="ollama:counted")
    cap.capability(llm)
    cap.capability(llm)
    assert len(llm.prompts) == len(cap.PROBES)
    cap.capability(llm, refresh=True)
    assert len(llm.prompts) == 2 * len(cap.PROBES)


def test_bundled_base_model_is_not_probed_until_asked() -> None:
    llm = ScriptedLLM(obedient, label="embedded:gemma-3-270m (base)")
    report = cap.capability(llm)
    assert not report.follows_formats and "base model" in report.summary
    assert llm.prompts == []
    assert cap.capability(llm, refresh=True).follows_formats, "a re-check really probes"
