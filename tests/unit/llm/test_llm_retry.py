import pytest

from backend.errors import LLMRequestError, ModelNotFoundError, ServerUnreachableError
from backend.llm.base import Completion
from backend.llm.retry import ServerBusyError, backoff_delay, call_with_retries


def _reply(text: str = "ok") -> Completion:
    return Completion(text=text, model="m", prompt_tokens=3, completion_tokens=1, latency_s=0.0)


class Flaky:
    """Fails with `errors` in turn, then answers `final`."""

    def __init__(self, *errors: Exception, final: str = "ok") -> None:
        self.errors = list(errors)
        self.final = final
        self.calls = 0

    def __call__(self) -> Completion:
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return _reply(self.final)


def test_transient_failures_are_retried_and_counted():
    sleeps: list[float] = []
    flaky = Flaky(ServerUnreachableError("down"), ServerBusyError("500", status_code=500))
    reply = call_with_retries(flaky, max_retries=2, where="here", sleep=sleeps.append)
    assert reply.text == "ok"
    assert reply.retries == 2
    assert flaky.calls == 3
    assert sleeps == [0.5, 1.0]
    assert reply.latency_s >= 0


def test_gives_up_after_the_bound_and_says_so():
    flaky = Flaky(*(ServerUnreachableError("Server at X did not answer.") for _ in range(5)))
    with pytest.raises(ServerUnreachableError, match=r"gave up after 2 retries"):
        call_with_retries(flaky, max_retries=2, where="here", sleep=lambda _: None)
    assert flaky.calls == 3


def test_zero_retries_raises_the_first_error_unchanged():
    flaky = Flaky(ServerBusyError("Server answered 503."))
    with pytest.raises(ServerBusyError) as info:
        call_with_retries(flaky, max_retries=0, where="here", sleep=lambda _: None)
    assert "gave up" not in str(info.value)


def test_permanent_errors_are_not_retried():
    flaky = Flaky(ModelNotFoundError("no such model"), LLMRequestError("bad request"))
    with pytest.raises(ModelNotFoundError):
        call_with_retries(flaky, max_retries=3, where="here", sleep=lambda _: None)
    assert flaky.calls == 1


def test_empty_replies_are_retried_then_reported():
    flaky = Flaky(final="  \n")
    with pytest.raises(LLMRequestError, match=r"Server X returned an empty reply 3 time"):
        call_with_retries(flaky, max_retries=2, where="Server X", sleep=lambda _: None)
    assert flaky.calls == 3


def test_backoff_doubles_and_is_capped():
    assert [backoff_delay(n) for n in (1, 2, 3, 4, 5, 9)] == [0.5, 1.0, 2.0, 4.0, 8.0, 8.0]
