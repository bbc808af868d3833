"""Fine-tune a router with LoRA on curated (question, subtree, behaviour) examples. Needs a GPU.

The optional GPU workflow from the RDR2 paper: supervised fine-tuning where the loss covers only
the behaviour tokens. It is not run in CI and its packages are not in requirements.txt:

    pip install peft transformers accelerate
    python -m scripts.finetune_router_lora --examples data/router_examples.jsonl \\
        --base-model Qwen/Qwen2.5-1.5B-Instruct --out data/router-lora --epochs 3

The prompt is the router's own chat prompt (backend/routing/router_prompt.py), so a model
trained here sees at inference exactly what it saw in training. See docs/rdr2.md for serving
the adapter (vLLM `--enable-lora`, or merge and convert for Ollama).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from backend.routing.router_prompt import router_messages


def _require() -> tuple[Any, Any, Any]:
    """Import the optional training stack, or say exactly what to install."""
    try:
        import peft
        import torch
        import transformers
    except ImportError as error:
        print(
            f"LoRA fine-tuning needs optional packages that are not installed ({error.name}).\n"
            "Install them on a machine with a GPU: pip install peft transformers accelerate",
            file=sys.stderr,
        )
        raise SystemExit(2) from None
    return peft, torch, transformers


def load_examples(path: Path) -> list[dict[str, str]]:
    """Curated examples; lines without the three fields are skipped with a count."""
    examples, skipped = [], 0
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            skipped += 1
            continue
        if all(isinstance(record.get(k), str) and record[k] for k in ("question", "subtree", "behaviour")):
            examples.append(record)
        else:
            skipped += 1
    if skipped:
        print(f"skipped {skipped} malformed lines", file=sys.stderr)
    return examples


def encode(example: dict[str, str], tokenizer: Any, max_tokens: int) -> dict[str, list[int]]:
    """Prompt tokens are masked (-100) so the loss is on the behaviour only, as in the paper."""
    messages = router_messages(
        example["question"], example["subtree"], allow_expand=True, allow_refuse=True, use_structure=True
    )
    chat = [{"role": m.role, "content": m.content} for m in messages]
    prompt = tokenizer.apply_chat_template(chat, tokenize=False, add_generation_prompt=True)
    prompt_ids = tokenizer(prompt, add_special_tokens=False)["input_ids"]
    target_ids = tokenizer(example["behaviour"] + tokenizer.eos_token, add_special_tokens=False)["input_ids"]
    prompt_ids = prompt_ids[-(max_tokens - len(target_ids)) :]  # keep the end: question and tree tail
    return {
        "input_ids": prompt_ids + target_ids,
        "labels": [-100] * len(prompt_ids) + target_ids,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=Path, required=True)
    parser.add_argument("--base-model", required=True, help="a Hugging Face causal LM with a chat template")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--epochs", type=float, default=3.0)
    parser.add_argument("--lr", type=float, default=2e-4)
    parser.add_argument("--rank", type=int, default=16)
    parser.add_argument("--max-tokens", type=int, default=4096)
    parser.add_argument("--batch-size", type=int, default=4)
    args = parser.parse_args()

    peft, torch, transformers = _require()
    examples = load_examples(args.examples)
    if not examples:
        print(f"No usable examples in {args.examples}; run scripts/curate_router_examples.py first.")
        return 2
    tokenizer = transformers.AutoTokenizer.from_pretrained(args.base_model)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model = transformers.AutoModelForCausalLM.from_pretrained(args.base_model, torch_dtype=torch.bfloat16)
    model = peft.get_peft_model(
        model,
        peft.LoraConfig(
            r=args.rank,
            lora_alpha=2 * args.rank,
            lora_dropout=0.05,
            target_modules="all-linear",
            task_type="CAUSAL_LM",
        ),
    )
    model.print_trainable_parameters()
    rows = [encode(e, tokenizer, args.max_tokens) for e in examples]

    def collate(batch: list[dict[str, list[int]]]) -> dict[str, Any]:
        width = max(len(r["input_ids"]) for r in batch)
        pad = tokenizer.pad_token_id
        ids = [r["input_ids"] + [pad] * (width - len(r["input_ids"])) for r in batch]
        labels = [r["labels"] + [-100] * (width - len(r["labels"])) for r in batch]
        mask = [[1] * len(r["input_ids"]) + [0] * (width - len(r["input_ids"])) for r in batch]
        return {
            "input_ids": torch.tensor(ids),
            "labels": torch.tensor(labels),
            "attention_mask": torch.tensor(mask),
        }

    trainer = transformers.Trainer(
        model=model,
        args=transformers.TrainingArguments(
            output_dir=str(args.out),
            num_train_epochs=args.epochs,
            learning_rate=args.lr,
            per_device_train_batch_size=args.batch_size,
            gradient_accumulation_steps=4,
            lr_scheduler_type="cosine",
            warmup_ratio=0.03,
            bf16=True,
            logging_steps=10,
            save_strategy="epoch",
            report_to=[],
            remove_unused_columns=False,
        ),
        train_dataset=rows,
        data_collator=collate,
    )
    trainer.train()
    model.save_pretrained(args.out)
    tokenizer.save_pretrained(args.out)
    print(f"LoRA adapter written to {args.out} ({len(rows)} examples, {args.epochs} epochs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
