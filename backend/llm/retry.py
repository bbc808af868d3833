"""Bounded retries with exponential backoff, so a flaky server costs a few seconds, not an answer.

The remote SDKs' own hidden retries are switched off by the clients, so the bound set in
`Settings.llm_max_retries` is the only one. Only failures that may pass are retried: an
unreachable or slow server, a 5xx or 429 answer, a 200 whose body is not a usable reply, and an
empty reply. A 4xx answer or a missing model fails at once, since asking again cannot help.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

from backend.errors import LLMRequestError, MalformedOutputError, ServerUnreachableError, StudioError
from backend.llm.base import Completion

BASE_DELAY_S = 0.5
MAX_DELAY_S = 8.0


class ServerBusyError(LLMRequestError):
    """The server answered 5xx or 429: it is up but failing or overloaded, which may pass."""

    def __init__(self, what: str, fix: str = "", status_code: int = 500) -> None:
        self.status_code = status_code
        super().__init__(what, fix)


class MalformedReplyError(MalformedOutputError):
    """The server answered 200 with a body that is no usable reply; retried, as a garbled body may pass."""


TRANSIENT_ERRORS: tuple[type[StudioError], ...] = (
    ServerUnreachableError,
    ServerBusyError,
    MalformedReplyError,
)


def backoff_delay(retry: int) -> float:
    """Seconds to wait before retry number `retry` (1-based): 0.5, 1, 2, 4, 8, 8..."""
    return min(BASE_DELAY_S * 2 ** (retry - 1), MAX_DELAY_S)


def call_with_retries(
    attempt: Callable[[], Completion],
    *,
    max_retries: int,
    where: str,
    sleep: Callable[[float], None] = time.sleep,
) -> Completion:
    """Run `attempt` until it gives a non-empty reply, at most `max_retries` extra times.

    The returned Completion carries the number of retries used and a latency that covers the
    whole call (failed attempts and waits included), which is what the user waited.

    Args:
        attempt: one request; raises a `StudioError` on failure.
        max_retries: extra attempts allowed after the first.
        where: the backend and address, for the empty-reply message.
        sleep: injectable for tests.

    Raises:
        ServerUnreachableError, ServerBusyError, MalformedReplyError: still failing after the
            last retry; the message says how many retries were made.
        LLMRequestError: only empty replies after the last retry.
        StudioError: any non-transient failure, at once.
    """
    started = time.perf_counter()
    for retry in range(max_retries + 1):
        if retry:
            sleep(backoff_delay(retry))
        try:
            reply = attempt()
        except TRANSIENT_ERRORS as exc:
            if retry == max_retries:
                if retry:
                    exc.what = f"{exc.what} (gave up after {retry} retries)"
                    exc.args = (str(exc),)
                raise
            continue
        if reply.text.strip():
            return dataclasses.replace(reply, retries=retry, latency_s=time.perf_counter() - started)
    raise LLMRequestError(
        f"{where} returned an empty reply {max_retries + 1} time(s).",
        "Allow more tokens (max_tokens), rephrase the prompt, or choose a more capable model.",
    )
