"""negkit on a CUDA GPU: placement, 16-bit fast mode, the automatic batch size and its out-of-memory back-off with
a real GPU memory limit, sharding over GPU, CPU and disk, and data-parallel ranks on the GPUs there are.

Every test here needs ``NEGKIT_TEST_DEVICE=cuda`` (or ``cuda:N``) and a CUDA GPU; ``perf/gpu_check.py`` runs
them on a GPU machine. On a machine without one they skip (the CPU paths have their own tests).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from conftest import TEST_DEVICE
from tiny_models import synthetic_truth_items

from negkit.benchmarks.tind.task import TruthTask
from negkit.engine.batching import DEFAULT_TOKEN_BUDGET
from negkit.models.base import LoglikelihoodRequest
from negkit.models.registry import load_model

pytestmark = pytest.mark.skipif(
    not TEST_DEVICE.startswith("cuda"),
    reason="needs NEGKIT_TEST_DEVICE=cuda and a CUDA GPU (perf/gpu_check.py sets it)",
)

TESTS = Path(__file__).resolve().parents[1]
SRC = TESTS.parent / "src"
TOLERANCE = 1e-4


def _contexts(lm, count: int = 24) -> list[str]:
    task = TruthTask()
    return [task.prompt(item.sentence, lm) for item in synthetic_truth_items(groups_per_pattern=3)[:count]]


def _max_difference(one: list[dict[str, float]], two: list[dict[str, float]]) -> float:
    return max(abs(a[key] - b[key]) for a, b in zip(one, two) for key in a)


def test_a_gpu_model_answers_like_the_cpu_model(tiny_model_folder):
    assert torch.cuda.is_available(), f"NEGKIT_TEST_DEVICE={TEST_DEVICE} but torch sees no CUDA GPU"
    gpu = load_model(f"hf:{tiny_model_folder}", dtype="float32", device=TEST_DEVICE)
    cpu = load_model(f"hf:{tiny_model_folder}", dtype="float32", device="cpu")
    assert gpu.load_info["device"].startswith("cuda:") and next(gpu.model.parameters()).is_cuda
    contexts = _contexts(gpu)
    candidates = ["True", "False"]
    assert (
        _max_difference(gpu.next_token_logprobs(contexts, candidates), cpu.next_token_logprobs(contexts, candidates))
        < TOLERANCE
    )
    requests = [
        LoglikelihoodRequest(context, ending) for context in contexts[:6] for ending in ("True", " no, not a plant")
    ]
    for a, b in zip(gpu.loglikelihood(requests), cpu.loglikelihood(requests)):
        assert abs(a.logprob - b.logprob) < TOLERANCE and a.n_tokens == b.n_tokens


def test_fast_mode_on_the_gpu_takes_its_16_bit_type_without_timing(tiny_model_folder):
    fast = load_model(f"hf:{tiny_model_folder}", dtype="auto", device=TEST_DEVICE)
    expected = torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    assert fast.model.dtype == expected and fast.load_info["fast_dtype"]["reason"].startswith("GPU:")
    exact = load_model(f"hf:{tiny_model_folder}", dtype="float32", device=TEST_DEVICE)
    contexts = _contexts(fast)
    answers = fast.next_token_logprobs(contexts, ["True", "False"])
    assert _max_difference(answers, exact.next_token_logprobs(contexts, ["True", "False"])) < 0.2  # 16-bit noise
    assert fast.scorer.stats.prefix_tree == "on"  # 16-bit noise stays within the tree check's measured tolerance


def test_the_automatic_batch_budget_comes_from_free_gpu_memory(tiny_model_folder):
    """On a GPU the token budget is most of the free memory over a per-token estimate (1,024 tokens on a CPU): the
    64 prompts (about 2,000 tokens) run as one batch."""
    lm = load_model(f"hf:{tiny_model_folder}", dtype="float32", device=TEST_DEVICE, prefix_tree=False)
    free, _total = torch.cuda.mem_get_info(torch.device(lm.load_info["device"]))
    assert lm.load_info["batch_size"] == "auto" and DEFAULT_TOKEN_BUDGET < lm.token_budget <= free
    contexts = _contexts(lm, 64)
    assert sum(len(lm.rules.encode_context(context)[0]) for context in contexts) > DEFAULT_TOKEN_BUDGET
    lm.next_token_logprobs(contexts, ["True"])
    assert max(lm.batcher.sizes_used.values()) == len(contexts) and lm.batcher.halvings == 0


def test_a_real_gpu_out_of_memory_halves_the_batch_and_keeps_the_answers(tiny_model_folder):
    """The caching allocator is held to a little more than it holds now (``set_per_process_memory_fraction``), so
    that a batch of all the prompts (a token budget of ten million tokens) really runs out of GPU memory: the
    batcher halves it until it fits, and the answers equal those of small batches."""
    lm = load_model(
        f"hf:{tiny_model_folder}",
        dtype="float32",
        device=TEST_DEVICE,
        token_budget=10_000_000,
        prefix_tree=False,
        attn_implementation="eager",
    )
    reference = load_model(f"hf:{tiny_model_folder}", dtype="float32", device=TEST_DEVICE, batch_size=4)
    words = "the dog is an animal and the cat is not a plant while the sun is hot and the snow is cold".split()
    contexts = [f"Is the following statement True or False? {' '.join(words[i % 7 :] * 6)} ({i})." for i in range(256)]
    expected = reference.next_token_logprobs(contexts, ["True", "False"])
    device = torch.device(lm.load_info["device"])
    torch.cuda.synchronize(device)
    torch.cuda.empty_cache()
    total = torch.cuda.get_device_properties(device).total_memory
    limit = torch.cuda.memory_reserved(device) + 48 * 2**20  # 48 MiB over what is held: a few dozen prompts fit
    torch.cuda.set_per_process_memory_fraction(limit / total, device)
    try:
        answers = lm.next_token_logprobs(contexts, ["True", "False"])
    finally:
        torch.cuda.set_per_process_memory_fraction(1.0, device)
        torch.cuda.empty_cache()
    report = lm.batcher.report()
    assert report["oom_halvings"] >= 1 and 1 <= max(lm.batcher.sizes_used.values()) < len(contexts), report
    assert _max_difference(answers, expected) < TOLERANCE


def test_sharding_over_the_gpu_cpu_and_disk_matches_one_device(tiny_model_folder, tmp_path):
    sharded = load_model(
        f"hf:{tiny_model_folder}",
        device_map="auto",
        max_memory=["0:150KB", "cpu:40KB"],
        offload_folder=str(tmp_path / "offload"),
        batch_size=4,
    )
    single = load_model(f"hf:{tiny_model_folder}", dtype="float32", device=TEST_DEVICE, batch_size=4)
    placed = sharded.load_info["device_map"]
    assert "cuda:0" in placed and len(placed) >= 2, placed  # on the GPU and off it
    contexts = _contexts(single, 12)
    assert (
        _max_difference(
            sharded.next_token_logprobs(contexts, ["True", "False"]),
            single.next_token_logprobs(contexts, ["True", "False"]),
        )
        < TOLERANCE
    )


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_data_parallel_ranks_take_one_gpu_each(tmp_path, tiny_model_folder, synthetic_data):
    """``torchrun --nproc-per-node 2 ... --device cuda``: with two GPUs the ranks write what one process writes;
    with one GPU the second rank's LOCAL_RANK names no GPU, a clear error (never two ranks on one GPU)."""
    env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{TESTS}", "OMP_NUM_THREADS": "1"}

    def command(launcher: list[str], out: Path) -> list[str]:
        return [
            *launcher,
            "-m",
            "negkit",
            "eval",
            "--model",
            f"hf:{tiny_model_folder}",
            "--tasks",
            "tind",
            "--data",
            str(synthetic_data),
            "--out",
            str(out),
            "--no-progress",
            "--device",
            "cuda",
        ]

    torchrun = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--nproc-per-node",
        "2",
        "--master-port",
        str(_free_port()),
    ]
    done = subprocess.run(command(torchrun, tmp_path / "two"), env=env, capture_output=True, text=True, timeout=240)
    if torch.cuda.device_count() < 2:
        assert done.returncode != 0 and "has LOCAL_RANK 1 but only 1 GPUs are visible" in done.stdout + done.stderr
        return
    assert done.returncode == 0, done.stderr[-2000:]
    single = subprocess.run(
        command([sys.executable], tmp_path / "one"), env=env, capture_output=True, text=True, timeout=240
    )
    assert single.returncode == 0, single.stderr[-2000:]

    def predictions(folder: Path) -> list[bool]:
        return [json.loads(line)["prediction"] for line in (folder / "tind.samples.jsonl").read_text().splitlines()]

    assert predictions(tmp_path / "two") == predictions(tmp_path / "one")


def test_left_padded_training_batches_keep_finite_gradients(tiny_model_folder):
    """A left-padded batch (as training collates it) has fully masked padding positions; under
    ``padded_attention_kernels`` (the math kernel) their output is zero and every gradient finite, in bfloat16 too
    (issue 30's GPU run diverged to NaN without it)."""
    from transformers import AutoModelForCausalLM

    from negkit.training.trainer import padded_attention_kernels

    for dtype in (torch.float32, torch.bfloat16):
        model = AutoModelForCausalLM.from_pretrained(tiny_model_folder, dtype=dtype, attn_implementation="sdpa")
        model.to(TEST_DEVICE).train()
        ids = torch.randint(5, 100, (4, 96), device=TEST_DEVICE)
        mask = torch.ones_like(ids)
        for row, padding in enumerate((0, 40, 80, 95)):
            mask[row, :padding] = 0
        with padded_attention_kernels(TEST_DEVICE):
            loss = model(input_ids=ids, attention_mask=mask, labels=ids.masked_fill(mask == 0, -100)).loss
            loss.backward()
        assert torch.isfinite(loss)
        assert all(torch.isfinite(p.grad).all() for p in model.parameters() if p.grad is not None)


def test_on_a_gpu_the_default_is_the_checkpoint_dtype_and_exact_is_one_flag_away(tmp_path, synthetic_data):
    """As the Harness: without --mode a transformers model on a GPU runs in the dtype its checkpoint was saved in
    (recorded under model.load.dtype); --mode exact runs float32 there."""
    from tiny_models import tiny_llama, tiny_tokenizer

    from negkit.cli import main

    folder = tmp_path / "bf16-model"
    tokenizer = tiny_tokenizer(chat_template=False)
    tiny_llama(len(tokenizer)).to(torch.bfloat16).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    common = [
        "--tasks",
        "tind",
        "--data",
        str(synthetic_data),
        "--limit",
        "40",
        "--no-progress",
        "--device",
        TEST_DEVICE,
    ]
    for out, extra, mode, dtype in (
        ("default", [], "fast", "bfloat16"),
        ("exact", ["--mode", "exact"], "exact", "float32"),
    ):
        assert main(["eval", "--model", f"hf:{folder}", *common, "--out", str(tmp_path / out), *extra]) == 0
        results = json.loads((tmp_path / out / "tind.results.json").read_text())
        assert (results["mode"], results["model"]["load"]["dtype"]) == (mode, dtype)
