"""The catalogue models on this machine: load time, memory, a sanity check of their answers, float32 forward speed.

For each catalogue model (negkit eval --list-models; fetched first with scripts/get_models.sh), in a fresh
process of its own (so that memory is the model's):

1. load it by name as ``negkit eval --model NAME`` does (float32, from the converted copy in the cache; the one-time
   conversion's seconds come from the copy's gguf.json), with the process's resident memory after loading;
2. greedy generation of a few tokens after simple factual prompts (plain, and through the chat template where the
   model has one): the answers are printed and recorded, for a person to judge;
3. the float32 forward rate: a fixed batch of 8 sequences of 128 random token ids (seeded), logits at the last
   position only (as negkit's engine keeps only scored positions), the fastest of 3 timed passes after one warm-up;
   tokens per second = 8 x 128 / seconds.

The machine's load average is recorded before and after each model (run it with nothing else running).

    PYTHONPATH=src python perf/bench_catalogue_models.py [NAME ...] [--out FILE.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time

PROMPTS = [
    "The capital of France is",
    "Water freezes at a temperature of",
    "The opposite of hot is",
    "Two plus two equals",
]
CHAT = "What is the capital of France? Answer in one word."
BATCH, LENGTH, ROUNDS = 8, 128, 3


def _memory_mb() -> dict[str, float]:
    """Resident memory now and at its peak (Linux /proc), in MB."""
    values = {}
    try:
        for line in open("/proc/self/status", encoding="ascii"):
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                values[{"VmRSS": "rss_mb", "VmHWM": "peak_rss_mb"}[key]] = round(int(rest.split()[0]) / 1024, 1)
    except OSError:
        pass
    return values


def measure(name: str) -> dict:
    """Everything this script records for one model (run in a process of its own)."""
    import torch

    from negkit.models.registry import load_model

    threads = torch.get_num_threads()
    load_before = os.getloadavg()
    started = time.perf_counter()
    model = load_model(name, dtype="float32")
    load_seconds = time.perf_counter() - started
    memory = _memory_mb()
    row: dict = {
        "model": name,
        "threads": threads,
        "load_seconds": round(load_seconds, 1),
        **memory,
        "conversion": model.load_info.get("gguf"),
        "fingerprint": model.fingerprint.as_dict(),
    }
    started = time.perf_counter()
    row["greedy"] = dict(zip(PROMPTS, model.generate(PROMPTS, max_new_tokens=8)))
    if model.has_chat_template:
        row["greedy_chat"] = {
            CHAT: model.generate([model.apply_chat_template([{"role": "user", "content": CHAT}])], max_new_tokens=8)[0]
        }
    row["generate_seconds"] = round(time.perf_counter() - started, 1)
    lm = model.model
    vocab = lm.config.get_text_config().vocab_size if hasattr(lm.config, "get_text_config") else lm.config.vocab_size
    generator = torch.Generator().manual_seed(0)
    ids = torch.randint(3, min(vocab, 30_000), (BATCH, LENGTH), generator=generator)
    mask = torch.ones_like(ids)
    times = []
    with torch.inference_mode():
        for _ in range(ROUNDS + 1):
            begun = time.perf_counter()
            lm(input_ids=ids, attention_mask=mask, logits_to_keep=1)
            times.append(time.perf_counter() - begun)
    best = min(times[1:])
    row["forward"] = {
        "batch": BATCH,
        "length": LENGTH,
        "seconds": round(best, 3),
        "tokens_per_second": round(BATCH * LENGTH / best, 1),
    }
    row["peak_rss_mb_after_forward"] = _memory_mb().get("peak_rss_mb")
    row["load_average"] = {
        "before": [round(value, 2) for value in load_before],
        "after": [round(value, 2) for value in os.getloadavg()],
    }
    return row


def main() -> None:
    parser = argparse.ArgumentParser(allow_abbrev=False)
    parser.add_argument("names", nargs="*")
    parser.add_argument("--out", help="write the rows as JSON here")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # the child process: measure this model, print JSON
    args = parser.parse_args()
    if args.one:
        print("RESULT " + json.dumps(measure(args.one)), flush=True)
        return
    from negkit.models.catalogue import CATALOGUE

    names = args.names or [model.name for model in CATALOGUE]
    rows = []
    for name in names:
        child = subprocess.run([sys.executable, __file__, "--one", name], capture_output=True, text=True, check=False)
        lines = [line for line in child.stdout.splitlines() if line.startswith("RESULT ")]
        if child.returncode != 0 or not lines:
            print(child.stderr[-3000:], file=sys.stderr)
            raise SystemExit(f"{name}: the measuring process failed")
        row = json.loads(lines[-1][len("RESULT ") :])
        rows.append(row)
        print(
            f"{name}: load {row['load_seconds']} s, {row.get('rss_mb')} MB resident (peak "
            f"{row.get('peak_rss_mb_after_forward')} MB), forward {row['forward']['tokens_per_second']} tokens/s, "
            f"load average {row['load_average']['before'][0]} -> {row['load_average']['after'][0]}",
            flush=True,
        )
        for prompt, answer in {**row["greedy"], **row.get("greedy_chat", {})}.items():
            print(f"    {prompt!r} -> {answer!r}", flush=True)
    if args.out:
        import torch
        import transformers

        machine = {
            "platform": platform.platform(),
            "processor": platform.processor() or platform.machine(),
            "cpus": os.cpu_count(),
            "torch": torch.__version__,
            "transformers": transformers.__version__,
        }
        with open(args.out, "w", encoding="utf-8") as handle:
            json.dump(
                {
                    "machine": machine,
                    "command": " ".join(["python", "perf/bench_catalogue_models.py", *args.names]),
                    "models": rows,
                },
                handle,
                indent=1,
            )
            handle.write("\n")


if __name__ == "__main__":
    main()
