"""Concurrent browser sessions against one studio server on 127.0.0.1: throughput, p95, mix-ups, memory.

Usage:
    .venv/bin/python benchmarks/load_test.py [--sessions 4] [--questions 3] [--method extractive]

One headless Chromium, one browser context per session (each is its own Streamlit session).
Every session uploads its own small document, restricts the Ask page to it and asks
`--questions` questions. A single session runs first on the same server as the baseline;
then all sessions run at once. Requests are bounded: sessions x (1 upload + questions).
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/ helpers drive the browser

from backend.pipelines import get_method
from tests.e2e.sessions import mixups, run_sessions
from tests.e2e.streamlit_server import running_app
from tests.e2e.test_browser import CHROMIUM_FLAGS


def _p95(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=20)[-1] if len(samples) >= 2 else samples[0]


def _rss_mb(proc: psutil.Process) -> float:
    return sum(p.memory_info().rss for p in [proc, *proc.children(recursive=True)]) / 2**20


def _report(label: str, results, elapsed: float) -> list[float]:
    asks = [s for r in results for s in r.ask_s]
    uploads = [r.upload_s for r in results if r.upload_s]
    failed = [r.error for r in results if r.error]
    requests = len(asks) + len(uploads)
    print(f"\n{label}: {len(results)} sessions, {requests} requests in {elapsed:.1f} s")
    print(f"  throughput        {requests / elapsed * 60:.1f} requests/min")
    if uploads:
        print(f"  upload+index      median {statistics.median(uploads):.2f} s, max {max(uploads):.2f} s")
    if asks:
        median, p95 = statistics.median(asks), _p95(asks)
        print(f"  ask               median {median:.2f} s, p95 {p95:.2f} s (n={len(asks)})")
    print(f"  failed sessions   {len(failed)} {failed[:2]}")
    print(f"  mixed-up answers  {len(mixups(results))}")
    return asks


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sessions", type=int, default=4)
    parser.add_argument("--questions", type=int, default=3)
    parser.add_argument("--method", default="extractive")
    args = parser.parse_args()
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    title = get_method(args.method).title
    with tempfile.TemporaryDirectory() as tmp, running_app(Path(tmp)) as (url, proc):
        server = psutil.Process(proc.pid)
        print(f"server {url}, method {args.method}, RSS at start {_rss_mb(server):.0f} MB")
        single, single_s = asyncio.run(
            run_sessions(url, Path(tmp), 1, args.questions, chromium, CHROMIUM_FLAGS, title)
        )
        alone = _report("baseline, one session", single, single_s)
        after_one = _rss_mb(server)
        results, elapsed = asyncio.run(
            run_sessions(
                url, Path(tmp), args.sessions, args.questions, chromium, CHROMIUM_FLAGS, title, first=1
            )
        )
        together = _report(f"{args.sessions} sessions at once", results, elapsed)
        after_many = _rss_mb(server)
    print(
        f"\nserver RSS: {after_one:.0f} MB after one session, {after_many:.0f} MB after {args.sessions} more"
    )
    if alone and together:
        print(f"ask p95 ratio (concurrent / alone): {_p95(together) / _p95(alone):.2f}")


if __name__ == "__main__":
    main()
