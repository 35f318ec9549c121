"""perf/gpu_check.py, the one prepared GPU run, on the CPU with tiny models and invented data (so that a GPU
machine runs it in one try), and its Harness-style loop (perf/_harness_loop.py) against hand-computed cases."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

TESTS = Path(__file__).resolve().parents[1]
REPO = TESTS.parent
BENCHMARKS = REPO / "perf"
SCRIPT = BENCHMARKS / "gpu_check.py"
SECTIONS = {"tests", "matmul_peak", "model_1b", "eval_1b_exact", "eval_1b_fast", "oom_backoff", "model_7b"}


@pytest.fixture(scope="module")
def harness_loop():
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import _harness_loop

        yield _harness_loop
    finally:
        sys.path.remove(str(BENCHMARKS))


def _run(*arguments: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "OMP_NUM_THREADS": "2"}
    return subprocess.run(
        [sys.executable, str(SCRIPT), *arguments], env=env, capture_output=True, text=True, timeout=300
    )


def _run_here(monkeypatch, *arguments: str) -> int:
    """The script's ``main`` in the test's own process (torch, transformers and negkit are imported here already; a
    child spends seconds importing them), with the environment it sets and torch's random state put back after."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TOKENIZERS_PARALLELISM", "false")
    import gpu_check

    threads = torch.get_num_threads()
    try:
        with torch.random.fork_rng():
            return gpu_check.main(list(arguments))
    finally:
        torch.set_num_threads(threads)


def test_tiny_cpu_run_fills_every_section_and_agrees_with_the_harness_loop(tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    done = _run_here(monkeypatch, "--out", str(out), "--device", "cpu", "--tiny", "--skip-tests", "--data", "synthetic")
    printed = capsys.readouterr()
    assert done == 0, printed.err[-3000:]
    report = json.loads((out / "gpu_check.json").read_text())
    sections = report["sections"]
    assert set(sections) == SECTIONS
    assert {name: figures["error"] for name, figures in sections.items() if "error" in figures} == {}
    environment = report["environment"]
    assert "--tiny" in environment["command"] and environment["versions"]["torch"] == torch.__version__
    assert environment["device_name"] and environment["data"] == "synthetic" and report["wall_s"] > 0
    assert sections["tests"] == {"not_run": "--skip-tests"}
    assert all(value > 0 for value in sections["matmul_peak"]["flop_per_s"].values())
    model = sections["model_1b"]
    assert model["parameters"] > model["non_embedding_parameters"] > 0 and model["bytes_on_disk"] > 0

    for mode in ("exact", "fast"):
        evaluation = sections[f"eval_1b_{mode}"]
        assert evaluation["load"]["dtype"] == ("float32" if mode == "exact" else "bfloat16")
        for task in ("tind", "scone"):
            row = evaluation["tasks"][task]
            negkit = row["negkit"]
            assert negkit["items"] > 0 and negkit["items_per_s"] > 0 and negkit["share_of_bfloat16_peak"] > 0
            assert 0 < negkit["tokens_run"] <= negkit["prompt_tokens"] and negkit["peak_memory_bytes"] is None
            cached, per_choice = row["harness_logits_cache"], row["harness_per_choice"]
            for harness in (cached, per_choice):
                assert harness["items"] == negkit["items"] and harness["requests"] == 2 * negkit["items"]
                assert harness["speed_ratio_vs_negkit_score_s"] > 0 and harness["batch_size"] == 32
                if mode == "exact":  # float32 on both sides: the same predictions, the same margins to rounding
                    assert harness["identical_predictions"] == negkit["items"] and harness["differing_items"] == []
                    assert harness["max_abs_margin_difference"] < 1e-3
                else:  # bfloat16: the loop's log-softmax runs in bfloat16 (the Harness's), negkit's in float32
                    assert harness["different_predictions"] <= 0.05 * negkit["items"]
            assert per_choice["rows"] == per_choice["requests"]  # one forward per context and choice
            assert cached["rows"] <= negkit["items"] < per_choice["rows"]  # True/False after "\n" share their input
        assert evaluation["tasks"]["tind"]["negkit"]["prefix_tree"] == "on"

    oom = sections["oom_backoff"]
    assert oom["oom_halvings"] >= 1 and oom["limit"].startswith("simulated on the CPU")
    assert oom["identical_to_unlimited_exact"] == oom["negkit"]["items"] and oom["different_from_unlimited_exact"] == 0
    big = sections["model_7b"]
    assert big["token_budget"] == 1024 and big["negkit"]["items"] > 0 and big["negkit"]["dtype"] == "bfloat16"
    assert "| exact | tind | negkit |" in printed.out and "oom back-off: " in printed.out


def test_cuda_without_a_gpu_is_a_one_line_error(tmp_path):
    if torch.cuda.is_available():
        pytest.skip("a CUDA GPU is visible here")
    done = _run("--out", str(tmp_path / "out"), "--device", "cuda", "--tiny")
    assert done.returncode == 2 and "sees no CUDA GPU" in done.stderr and "Traceback" not in done.stderr


def test_encode_pair_moves_trailing_whitespace_into_the_continuation(harness_loop):
    from tiny_models import tiny_tokenizer

    tokenizer = tiny_tokenizer(chat_template=False, add_bos=True)
    context_ids, continuation_ids = harness_loop.encode_pair(tokenizer, "A dog is an animal.\n", "True")
    assert context_ids == tokenizer.encode("A dog is an animal.")  # with its BOS, as the tokenizer adds it
    assert continuation_ids == tokenizer.encode("A dog is an animal.\nTrue")[len(context_ids) :]
    assert tokenizer.decode(continuation_ids) == "\nTrue"
    without_bos, _ = harness_loop.encode_pair(tokenizer, "A dog is an animal.\n", "True", add_special_tokens=False)
    assert without_bos == context_ids[1:]


def test_harness_loop_sums_the_continuations_log_probabilities_and_shares_equal_inputs(harness_loop):
    from tiny_models import tiny_llama, tiny_tokenizer

    tokenizer = tiny_tokenizer(chat_template=False)
    model = tiny_llama(len(tokenizer))
    requests = [("Is a dog an animal?\n", "True"), ("Is a dog an animal?\n", "False"), ("The sun is", " hot and cold")]
    cached, cached_stats = harness_loop.harness_loglikelihoods(model, tokenizer, requests, batch_size=2)
    plain, plain_stats = harness_loop.harness_loglikelihoods(
        model, tokenizer, requests, batch_size=2, logits_cache=False
    )
    for (context, continuation), (logprob, greedy), (other, _greedy) in zip(requests, cached, plain):
        context_ids, continuation_ids = harness_loop.encode_pair(tokenizer, context, continuation)
        with torch.no_grad():
            logits = model(torch.tensor([context_ids + continuation_ids])).logits[0]
        rows = torch.log_softmax(logits, dim=-1)[len(context_ids) - 1 : -1]
        expected = sum(float(rows[k, token]) for k, token in enumerate(continuation_ids))
        assert abs(logprob - expected) < 1e-4 and abs(other - expected) < 1e-4
        assert greedy == all(int(rows[k].argmax()) == token for k, token in enumerate(continuation_ids))
    # "\nTrue" and "\nFalse": the same input ("...?" and "\n"), one row with the logits cache, two without
    assert (cached_stats["rows"], plain_stats["rows"]) == (2, 3) and cached_stats["batches"] == 1
    assert plain_stats["tokens_run"] > cached_stats["tokens_run"] and plain_stats["requests"] == 3


def test_junit_counts_name_each_failure(tmp_path):
    sys.path.insert(0, str(BENCHMARKS))
    try:
        from _gpu_check_parts import junit_counts
    finally:
        sys.path.remove(str(BENCHMARKS))
    path = tmp_path / "junit.xml"
    path.write_text(
        '<?xml version="1.0"?><testsuites><testsuite tests="4" failures="1" errors="0" skipped="1" '
        'time="2.5"><testcase classname="tests.test_a" name="test_one"/><testcase classname="tests.test_a" '
        'name="test_two"><failure message="assert 1 == 2">trace</failure></testcase><testcase '
        'classname="tests.test_b" name="test_three"><skipped message="needs a GPU"/></testcase><testcase '
        'classname="tests.test_b" name="test_four"/></testsuite></testsuites>'
    )
    counts = junit_counts(path)
    assert (counts["tests"], counts["passed"], counts["failures"], counts["skipped"]) == (4, 2, 1, 1)
    assert counts["failed"] == [{"test": "tests.test_a::test_two", "kind": "failure", "message": "assert 1 == 2"}]
    assert (
        counts["skipped_tests"] == [{"test": "tests.test_b::test_three", "reason": "needs a GPU"}]
        and counts["pytest_s"] == 2.5
    )
