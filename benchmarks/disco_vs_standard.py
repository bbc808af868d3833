"""Cost of Disco-RAG against standard RAG on the same questions: total tokens and latency ratios.

Each question is asked of its own QASPER dev paper (first answerable question per paper), at k=5
and k=10 chunks of 256 tokens, on the configured generator (the embedded Gemma 270M by default).
Disco-RAG runs cold (the chunk-tree cache emptied first) and, in llm mode, warm too (trees
cached by the cold run, as after "Pre-parse RST trees"). Two structure modes:

- auto: with the embedded base model this means the trained producers (sentence parser,
  relation classifier): trees and graph cost no tokens, only the plan call is added, so a warm
  run has the same tokens and differs only by the tree stage's seconds (shown as "trees s");
- llm: the generator itself parses trees and labels the graph (the paper's cost shape), each
  reply read and, when unusable, replaced by the trained producers.

Tokens are prompt + completion tokens over all LLM calls of one answer; latency is the wall
time of one answer. Ratios are Disco-RAG over standard RAG, averaged per question.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/disco_vs_standard.py [--questions 3] [--llm-questions 1]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from backend.config import load_settings
from backend.discourse.chunk_parse import TrainedChunkParser
from backend.discourse.graph_builder import trained_graph
from backend.eval.qasper import load_qasper
from backend.pipelines import RunContext, get_method
from backend.studio import Studio

DEFAULT_QASPER = (
    Path(__file__).resolve().parents[1].parent / "shared" / "data" / "qasper" / "qasper-dev-v0.3.json"
)


def pick_questions(path: Path, count: int) -> list[tuple[str, str, str]]:
    """(paper id, markdown text, question): the first answerable question of each of `count` papers."""
    picked = []
    for paper in load_qasper(path):
        answerable = [q for q in paper.questions if q.evidence]
        if answerable:
            picked.append((paper.paper_id, paper.to_markdown(), answerable[0].question))
        if len(picked) == count:
            break
    return picked


def ask(
    studio: Studio, method: str, question: str, doc_id: str, **changes: object
) -> tuple[int, float, dict]:
    """(total tokens, wall seconds, tokens per stage) of one answer."""
    settings = studio.settings.updated(**changes)
    ctx = RunContext(settings, studio.llm, studio.embedder, studio.store, studio.library, [doc_id])
    began = time.perf_counter()
    answer = get_method(method).run(question, ctx)
    seconds = time.perf_counter() - began
    stages = {c.stage: (c.prompt_tokens + c.completion_tokens, c.latency_s) for c in answer.costs}
    return answer.total_tokens, seconds, stages


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--qasper", type=Path, default=DEFAULT_QASPER)
    parser.add_argument("--questions", type=int, default=3, help="questions in auto mode")
    parser.add_argument("--llm-questions", type=int, default=1, help="questions in llm mode (slow on CPU)")
    parser.add_argument("--ks", type=int, nargs="+", default=[5, 10])
    parser.add_argument("--max-tokens", type=int, default=60, help="reply limit of plan and answer")
    parser.add_argument("--json", type=Path, help="also write the raw figures here")
    args = parser.parse_args()

    questions = pick_questions(args.qasper, max(args.questions, args.llm_questions))
    rows: dict[tuple[str, int], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    stage_tokens: dict[tuple[str, int], dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp)
        studio = Studio(
            load_settings().updated(data_dir=data_dir, chunk_tokens=256, llm_max_tokens=args.max_tokens)
        )
        docs = [
            (studio.indexer.index_file(text.encode(), f"{pid}.md").doc_id, question)
            for pid, text, question in questions
        ]
        print(f"indexed {len(docs)} QASPER dev papers; generator {studio.llm.label}", flush=True)
        # Load and run every model once before anything is timed (the first generation is slow).
        ask(studio, "standard_rag", docs[0][1], docs[0][0], top_k=2)
        TrainedChunkParser().parse("One sentence. Another one.")
        trained_graph(["One sentence.", "Another one."])
        for mode, count in (("auto", args.questions), ("llm", args.llm_questions)):
            for doc_id, question in docs[:count]:
                for k in args.ks:
                    row = rows[(mode, k)]
                    tokens, seconds, _ = ask(studio, "standard_rag", question, doc_id, top_k=k)
                    row["std_tokens"].append(tokens)
                    row["std_s"].append(seconds)
                    shutil.rmtree(data_dir / "rst_trees", ignore_errors=True)
                    for phase in ("cold", "warm") if mode == "llm" else ("cold",):
                        d_tokens, d_seconds, stages = ask(
                            studio, "disco_rag", question, doc_id, top_k=k, structure_producer=mode
                        )
                        row[f"{phase}_tokens"].append(d_tokens)
                        row[f"{phase}_s"].append(d_seconds)
                        row[f"{phase}_token_ratio"].append(d_tokens / max(tokens, 1))
                        row[f"{phase}_latency_ratio"].append(d_seconds / max(seconds, 1e-9))
                        row[f"{phase}_trees_s"].append(stages["parse trees"][1])
                        for stage, (value, _) in stages.items():
                            stage_tokens[(mode, k, phase)][stage].append(value)
                    warm = (
                        f" | warm {row['warm_tokens'][-1]} tok {row['warm_s'][-1]:.1f} s"
                        if mode == "llm"
                        else ""
                    )
                    print(
                        f"{mode} k={k}: standard {tokens} tok {seconds:.1f} s | disco cold "
                        f"{row['cold_tokens'][-1]} tok {row['cold_s'][-1]:.1f} s{warm}",
                        flush=True,
                    )
    mean = statistics.mean
    print(
        f"\nDisco-RAG vs standard RAG, generator {studio.llm.label}, chunks of 256 tokens, reply limit "
        f"{args.max_tokens}; auto mode {args.questions} questions, llm mode {args.llm_questions}; "
        f"total {time.perf_counter() - started:.0f} s\n"
    )
    print("| mode | k | n | std tokens | std s | phase | disco tokens (x std) | disco s (x std) | trees s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for (mode, k), row in rows.items():
        for phase in ("cold", "warm") if row.get("warm_tokens") else ("cold",):
            print(
                f"| {mode} | {k} | {len(row['std_tokens'])} | {mean(row['std_tokens']):.0f} "
                f"| {mean(row['std_s']):.1f} | {phase} "
                f"| {mean(row[f'{phase}_tokens']):.0f} ({mean(row[f'{phase}_token_ratio']):.2f}x) "
                f"| {mean(row[f'{phase}_s']):.1f} ({mean(row[f'{phase}_latency_ratio']):.2f}x) "
                f"| {mean(row[f'{phase}_trees_s']):.1f} |"
            )
    print("\nMean tokens per Disco-RAG stage:")
    for (mode, k, phase), stages in stage_tokens.items():
        parts = ", ".join(f"{stage} {mean(values):.0f}" for stage, values in stages.items())
        print(f"  {mode} k={k} {phase}: {parts}")
    if args.json:
        args.json.write_text(json.dumps({f"{m}/k={k}": r for (m, k), r in rows.items()}, indent=1))


if __name__ == "__main__":
    main()
