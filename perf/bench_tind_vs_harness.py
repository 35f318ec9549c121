"""TIND speed: negkit against the LM Evaluation Harness, on the same sentences, prompt and model folder.

One run over the TIND test sample that ``negkit eval --limit N --seed 0`` takes (whole groups stratified by
pattern, about N sentences), for the chat prompt and for the plain prompt, four commands each, every one a
separate process timed whole (wall time and CPU seconds of the command, model loading and data reading
included):

1. the Harness (``lm_eval`` 0.4.13, hf backend, batch size 32): a multiple-choice task whose documents are
   negkit's rendered prompts and whose choices are "True" and "False" with no delimiter, so that its choice
   log-likelihoods are the first-token log-probabilities negkit's TIND protocol compares;
2. a plain batched forward pass (perf/_plain_forward.py: batches of 32, full logits);
3. ``negkit eval --mode exact`` (float32, shared-prefix reuse);
4. ``negkit eval --mode fast`` (bfloat16).

Printed per command: wall time, CPU seconds, prompt tokens per second (all prompt tokens over the wall time),
the share of this CPU's matmul peak reached by the work the command actually did (2 x the non-embedding
parameters per token run through the model -- negkit does not rerun a shared prefix -- plus 2 x hidden x
vocabulary per LM-head row -- every position for the Harness and the plain pass, one per prompt for negkit --
over the wall time and the peak fp32, or bf16 for fast mode, matmul rate the script measures), the agreement of
predictions with the Harness, and the speed against the Harness in CPU seconds and in wall time. The commands of one prompt run back to back, the prompts in turn (``--repeats`` runs the
cycle again and keeps the median). The load average is recorded before and after each command.

    OMP_NUM_THREADS=2 python perf/bench_tind_vs_harness.py \\
        --harness-python LM_EVAL_VENV/bin/python [--sentences 2000] [--prompts chat,plain] [--json out.json] \\
        [--methods harness,plain,exact,fast]

GPU variant (not run where no GPU is lent): ``--device cuda --random-model 1b`` builds a 1B-class Llama with
random weights from a config (speed does not depend on the weights), runs the Harness in bfloat16 beside
negkit fast and exact, and reports the fraction of the GPU's bf16 (and fp32) matmul peak.

Decrypted TIND sentences are written only under ``--work`` (default: a temporary folder); a ``--work`` inside a git
working tree is refused, as ``negkit tind convert`` refuses one, unless ``--allow-in-git`` is given.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
TASK_YAML = """task: {name}
dataset_path: json
dataset_kwargs:
  data_files:
    test: {docs}
test_split: test
output_type: multiple_choice
doc_to_text: prompt
doc_to_choice: ["True", "False"]
doc_to_target: gold
target_delimiter: ""
metric_list:
  - metric: acc
"""


def matmul_peak(dtype_name: str, device: str, threads: int, size: int = 2048, seconds: float = 3.0) -> float:
    """Best measured FLOP/s of square matmuls in ``dtype_name`` on ``device``."""
    import torch

    torch.set_num_threads(threads)
    dtype = getattr(torch, dtype_name)
    a = torch.randn(size, size, device=device).to(dtype)
    b = torch.randn(size, size, device=device).to(dtype)
    best, deadline = 0.0, time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        if device.startswith("cuda"):
            torch.cuda.synchronize()
        started = time.perf_counter()
        for _ in range(4):
            (a @ b)
        if device.startswith("cuda"):
            torch.cuda.synchronize()
        best = max(best, 4 * 2 * size**3 / (time.perf_counter() - started))
    return best


class Renderer:
    """What TruthTask.prompt needs of a model: the tokenizer's chat template."""

    is_encoder_decoder = False

    def __init__(self, tokenizer: Any) -> None:
        from negkit.models.hf_common import HFTokenizerRules

        self.rules = HFTokenizerRules(tokenizer)

    @property
    def has_chat_template(self) -> bool:
        return self.rules.has_chat_template

    def apply_chat_template(self, messages: Any) -> str:
        return self.rules.apply_chat_template(messages)


def model_flops(folder: str) -> tuple[int, int]:
    """(non-embedding parameters, hidden size x vocabulary) of the model in ``folder`` (built on the meta device)."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    config = AutoConfig.from_pretrained(folder)
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(config)
    embedding = model.get_input_embeddings().weight.numel()
    total = sum(parameter.numel() for parameter in model.parameters())
    head = model.get_output_embeddings().weight
    tied = head is model.get_input_embeddings().weight
    body = total - embedding - (0 if tied else head.numel())
    return body, head.numel()


def random_model(folder: Path, tokenizer_folder: str) -> str:
    """A 1B-class Llama (hidden 2048, 16 layers, GQA 32/8 heads, MLP 8192) with random bf16 weights and the
    tokenizer of ``tokenizer_folder``."""
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    tokenizer = AutoTokenizer.from_pretrained(tokenizer_folder)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=2048,
        intermediate_size=8192,
        num_hidden_layers=16,
        num_attention_heads=32,
        num_key_value_heads=8,
        max_position_embeddings=4096,
        tie_word_embeddings=True,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    torch.manual_seed(0)
    LlamaForCausalLM(config).to(torch.bfloat16).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return str(folder)


def run_command(command: list[str], env: dict[str, str], log: Path) -> dict[str, Any]:
    """Run ``command`` to completion; its wall time, CPU seconds (user + system of the process tree it waited
    for) and the load average before and after."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load_before = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else []
    started = time.perf_counter()
    with open(log, "w", encoding="utf-8") as handle:
        done = subprocess.run(command, env=env, stdout=handle, stderr=subprocess.STDOUT)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"command failed ({done.returncode}), see {log}: {' '.join(command)}")
    load_after = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else []
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall_s": wall, "cpu_s": cpu, "load_before": load_before, "load_after": load_after}


def harness_predictions(out: Path, name: str, count: int) -> list[bool]:
    (path,) = sorted(out.rglob(f"samples_{name}_*.jsonl"))[-1:]
    predictions: list[bool | None] = [None] * count
    for line in path.read_text(encoding="utf-8").splitlines():
        sample = json.loads(line)
        scores = [float(response[0]) for response in sample["filtered_resps"]]
        predictions[sample["doc_id"]] = scores[0] > scores[1]
    return predictions  # type: ignore[return-value]


def engine_counts(method: str, out: Path) -> dict[str, Any]:
    """negkit's engine counts (prompt tokens, those run through the model, padding, whether the prefix tree
    ran); empty for the other methods."""
    if method not in ("exact", "fast"):
        return {}
    engine = json.loads((out / "tind.results.json").read_text(encoding="utf-8"))["engine"]
    return {
        "tokens": engine["tokens"],
        "tokens_run": engine["tokens"] - engine["prefix_tokens_reused"],
        "padding_tokens": engine.get("padding_tokens"),
        "prefix_tree": engine.get("prefix_tree"),
    }


def computed_flops(counts: dict[str, Any], tokens: int, prompts: int, body: int, head: int) -> float:
    """The model FLOPs a command did on prompt tokens (padding not counted, for any method): negkit's from its
    engine counts (:func:`engine_counts`; shared prefixes run once), the others' (no counts) from every prompt
    token with the LM head at every position."""
    if counts:
        return 2.0 * body * counts["tokens_run"] + 2.0 * head * prompts
    return 2.0 * (body + head) * tokens


def negkit_predictions(out: Path, ids: list[str]) -> list[bool]:
    by_id = {}
    for line in (out / "tind.samples.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        by_id[record["item_id"]] = bool(record["prediction"])
    return [by_id[item_id] for item_id in ids]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n\n")[0])
    parser.add_argument("--harness-python", required=True, help="python of an environment with lm_eval 0.4.13")
    parser.add_argument(
        "--model",
        default="default",
        help="a catalogue model name (negkit eval --list-models; default: SmolLM2-135M-Instruct)",
    )
    parser.add_argument("--sentences", type=int, default=2000, help="negkit's --limit (whole groups, about N)")
    parser.add_argument("--prompts", default="chat,plain")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument(
        "--methods",
        default="harness,plain,exact,fast",
        help="which commands run (the Harness always: it is the reference); e.g. harness,exact,fast leaves out the "
        "plain forward pass, which costs about as much as the Harness",
    )
    parser.add_argument("--threads", type=int, default=int(os.environ.get("OMP_NUM_THREADS", "2")))
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--random-model", choices=("1b",), help="GPU variant: a config-built 1B-class Llama")
    parser.add_argument("--data", help="data root (default: negkit's usual search)")
    parser.add_argument("--work", type=Path, help="working folder (default: a temporary folder)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--allow-in-git", action="store_true", help="allow a --work inside a git working tree")
    args = parser.parse_args(argv)
    chosen = {"harness", *(name for name in args.methods.split(",") if name)}
    unknown = chosen - {"harness", "plain", "exact", "fast"}
    if unknown:
        print(f"bench_tind_vs_harness: error: --methods: unknown {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2

    sys.path.insert(0, str(REPO / "src"))
    from negkit.errors import NegkitError
    from negkit.io.privacy import refuse_inside_git

    try:  # before anything is written: the docs and the Harness's samples hold decrypted sentences
        refuse_inside_git(
            args.work or tempfile.gettempdir(),
            args.allow_in_git,
            "decrypted TIND sentences (this benchmark's docs and the Harness's samples)",
        )
    except NegkitError as error:
        print(f"bench_tind_vs_harness: error: {error}", file=sys.stderr)
        return 2
    from transformers import AutoTokenizer

    from negkit.benchmarks.tind.task import TruthTask
    from negkit.models.catalogue import catalogue_model, require_file
    from negkit.models.gguf import converted_folder, default_model_file

    work = args.work or Path(tempfile.mkdtemp(prefix="negkit-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    if args.model == "default":
        folder = str(converted_folder(default_model_file()))
    else:
        folder = str(converted_folder(require_file(catalogue_model(args.model))))
    spec = args.model
    if args.random_model:
        folder = random_model(work / "random-1b", folder)
        spec = f"hf:{folder}"
    tokenizer = AutoTokenizer.from_pretrained(folder)
    renderer = Renderer(tokenizer)
    items = TruthTask().load(args.data, "test", args.sentences, 0).items
    ids = [item.item_id for item in items]
    body, head = model_flops(folder)
    peaks = {name: matmul_peak(name, args.device, args.threads) for name in ("float32", "bfloat16")}
    env = {
        **os.environ,
        "OMP_NUM_THREADS": str(args.threads),
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
        "PYTHONPATH": str(REPO / "src"),
    }
    fast_dtype = "bfloat16"
    rows: list[dict[str, Any]] = []
    for prompt_kind in args.prompts.split(","):
        chat = prompt_kind == "chat"
        task = TruthTask(chat=chat)
        prompts = [task.prompt(item.sentence, renderer) for item in items]
        tokens = sum(len(renderer.rules.encode_context(prompt)[0]) for prompt in prompts)
        docs = work / f"docs-{prompt_kind}.jsonl"
        docs.write_text(
            "".join(
                json.dumps({"id": item.item_id, "prompt": prompt, "gold": 0 if item.label else 1}, ensure_ascii=False)
                + "\n"
                for item, prompt in zip(items, prompts)
            ),
            encoding="utf-8",
        )
        name = f"negkit_tind_{prompt_kind}"
        include = work / f"tasks-{prompt_kind}"
        include.mkdir(exist_ok=True)
        (include / f"{name}.yaml").write_text(TASK_YAML.format(name=name, docs=docs), encoding="utf-8")
        harness_dtype = fast_dtype if args.random_model else "float32"
        negkit_common = [
            "-m",
            "negkit",
            "eval",
            "--model",
            spec,
            "--tasks",
            "tind",
            "--split",
            "test",
            "--limit",
            str(args.sentences),
            "--seed",
            "0",
            "--no-progress",
            "--device",
            args.device,
            "--apply-chat-template" if chat else "--no-chat-template",
        ]
        if args.data:
            negkit_common += ["--data", args.data]
        methods = {
            "harness": [
                args.harness_python,
                "-m",
                "lm_eval",
                "run",
                "--model",
                "hf",
                "--model_args",
                f"pretrained={folder},dtype={harness_dtype}",
                "--tasks",
                name,
                "--include_path",
                str(include),
                "--batch_size",
                "32",
                "--device",
                args.device,
                "--log_samples",
                "--output_path",
            ],
            "plain": [sys.executable, str(HERE / "_plain_forward.py"), folder, str(docs)],
            "exact": [sys.executable, *negkit_common, "--mode", "exact", "--out"],
            "fast": [sys.executable, *negkit_common, "--mode", "fast", "--out"],
        }
        methods = {method: command for method, command in methods.items() if method in chosen}
        measured: dict[str, list[dict[str, Any]]] = {method: [] for method in methods}
        predictions: dict[str, list[bool]] = {}
        flops: dict[str, float] = {}
        counts: dict[str, dict[str, Any]] = {}
        for repeat in range(args.repeats):
            for method, command in methods.items():
                out = work / f"{prompt_kind}-{method}-{repeat}"
                target = [str(out) + ".json"] if method == "plain" else [str(out)]
                if method == "plain":
                    target += ["--device", args.device] + (["--dtype", fast_dtype] if args.random_model else [])
                figures = run_command(command + target, env, work / f"{prompt_kind}-{method}-{repeat}.log")
                measured[method].append(figures)
                print(
                    f"{prompt_kind:5} {method:7} run {repeat}: {figures['wall_s']:.1f} s wall, "
                    f"{figures['cpu_s']:.1f} CPU s, load {' '.join(figures['load_before'])}",
                    flush=True,
                )
                if method == "harness":
                    predictions[method] = harness_predictions(out, name, len(items))
                elif method == "plain":
                    predictions[method] = [p > 0.5 for p in json.loads(Path(str(out) + ".json").read_text())]
                else:
                    predictions[method] = negkit_predictions(out, ids)
                counts[method] = engine_counts(method, out)
                flops[method] = computed_flops(counts[method], tokens, len(items), body, head)
        harness = {key: statistics.median(run[key] for run in measured["harness"]) for key in ("wall_s", "cpu_s")}
        for method in methods:
            wall = statistics.median(run["wall_s"] for run in measured[method])
            cpu = statistics.median(run["cpu_s"] for run in measured[method])
            peak = peaks[fast_dtype if method == "fast" or args.random_model and method != "exact" else "float32"]
            agree = sum(a == b for a, b in zip(predictions[method], predictions["harness"])) / len(items)
            rows.append(
                {
                    "prompt": prompt_kind,
                    "method": method,
                    "sentences": len(items),
                    "prompt_tokens": tokens,
                    "wall_s": round(wall, 2),
                    "cpu_s": round(cpu, 2),
                    "tokens_per_s": round(tokens / wall, 1),
                    "peak_fraction": round(flops[method] / wall / peak, 4),
                    "model_flops": flops[method],
                    "agreement_with_harness": round(agree, 4),
                    "speedup_cpu": round(harness["cpu_s"] / cpu, 2),
                    "speedup_wall": round(harness["wall_s"] / wall, 2),
                    "load": [run["load_before"] for run in measured[method]] + [measured[method][-1]["load_after"]],
                    "engine": counts[method],
                }
            )
    print(
        f"\nmodel folder: {folder}; device {args.device}; threads {args.threads}; {len(items)} sentences; "
        f"matmul peak fp32 {peaks['float32'] / 1e9:.1f} GFLOP/s, bf16 {peaks['bfloat16'] / 1e9:.1f} GFLOP/s; "
        f"non-embedding parameters {body:,}"
    )
    print(
        "| prompt | method | wall s | CPU s | prompt tokens/s | share of matmul peak | agreement with harness "
        "| speed vs harness (CPU s) | (wall) |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        print(
            f"| {row['prompt']} | {row['method']} | {row['wall_s']} | {row['cpu_s']} | {row['tokens_per_s']} | "
            f"{100 * row['peak_fraction']:.1f}% | {100 * row['agreement_with_harness']:.2f}% | "
            f"{row['speedup_cpu']}x | {row['speedup_wall']}x |"
        )
    for row in rows:
        if row["engine"]:
            print(f"{row['prompt']} {row['method']}: engine {row['engine']}")
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "rows": rows,
                    "peaks": peaks,
                    "non_embedding_parameters": body,
                    "device": args.device,
                    "threads": args.threads,
                },
                indent=2,
            )
            + "\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
