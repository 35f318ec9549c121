"""``negkit finetune`` on tiny random models: each input kind, the run record, resume after kill -9, evaluation
with the adapter, the merged export, NLI classifiers, and bad inputs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("peft")

from conftest import NUBENCH_FIXTURE, TESTS, shared_data_path  # noqa: E402
from tiny_models import save_tiny_causal, save_tiny_classifier  # noqa: E402

from negkit.benchmarks.tind.training import TindFilter  # noqa: E402
from negkit.cli import main  # noqa: E402
from negkit.errors import NegkitError  # noqa: E402
from negkit.training import FinetuneOptions, finetune  # noqa: E402

FIXTURE = NUBENCH_FIXTURE
CHILD = TESTS / "finetune_child.py"
QUICK = dict(max_steps=3, batch_size=4, save_steps=2, logging_steps=1, progress=False)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    return save_tiny_causal(tmp_path_factory.mktemp("tiny") / "model")


@pytest.fixture(scope="module")
def pairs(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("data") / "pairs.jsonl"
    words = ["dog", "cat", "rose", "car", "sun", "fish"] * 8
    path.write_text(
        "".join(
            json.dumps({"prompt": f"Is the {word} number {i} an animal?", "completion": " yes" if i % 3 else " no"})
            + "\n"
            for i, word in enumerate(words)
        )
    )
    return path


def adapter_weights(folder: Path) -> dict:
    from safetensors.torch import load_file

    return load_file(str(folder / "adapter_model.safetensors"))


def test_prompt_completion_jsonl_run_record_and_rerun(tiny, pairs, tmp_path):
    out = tmp_path / "out"
    run = finetune(f"hf:{tiny}", FinetuneOptions(out=out, train=str(pairs), dev="0.25", **QUICK))
    assert run["status"] == "complete" and run["result"]["global_step"] == 3
    assert {
        "adapter_config.json",
        "adapter_model.safetensors",
        "negkit_training.json",
        "train_log.jsonl",
        "train_log.csv",
    } <= {path.name for path in out.iterdir()}
    assert run["data"]["train"]["examples"] == 36 and run["data"]["dev"]["examples"] == 12
    assert (
        run["data"]["train"]["files"][0]["name"] == "pairs.jsonl" and len(run["data"]["train"]["examples_sha256"]) == 64
    )
    assert run["versions"]["torch"] and run["versions"]["peft"] and run["lora"]["r"] == 8
    assert run["command"].startswith(f"negkit finetune --model hf:{tiny} --train {pairs}")
    log = [json.loads(line) for line in (out / "train_log.jsonl").read_text().splitlines()]
    assert [entry["step"] for entry in log if "loss" in entry] == [1, 2, 3]
    assert any("eval_loss" in entry for entry in log)
    assert (out / "train_log.csv").read_text().startswith("loss,")
    # the same command again: nothing to do; other options in the same folder: refused
    assert finetune(f"hf:{tiny}", FinetuneOptions(out=out, train=str(pairs), dev="0.25", **QUICK)) == run
    assert run["result"]["stopped_by_time_budget"] is False
    budget = finetune(
        f"hf:{tiny}",
        FinetuneOptions(out=tmp_path / "budget", train=str(pairs), **{**QUICK, "max_steps": 50, "max_minutes": 1e-6}),
    )
    assert budget["result"]["stopped_by_time_budget"] and budget["result"]["global_step"] == 1
    assert budget["status"] == "stopped"  # a larger budget (here none) continues the same run from its checkpoint
    resumed = finetune(
        f"hf:{tiny}",
        FinetuneOptions(out=tmp_path / "budget", train=str(pairs), **{**QUICK, "max_steps": 50, "max_minutes": 60.0}),
    )
    assert resumed["status"] == "complete" and resumed["result"]["resumed_from_step"] == 1
    assert resumed["result"]["global_step"] == 50 and not resumed["result"]["stopped_by_time_budget"]
    with pytest.raises(NegkitError, match="holds another fine-tuning run.*learning_rate"):
        finetune(f"hf:{tiny}", FinetuneOptions(out=out, train=str(pairs), dev="0.25", learning_rate=1e-3, **QUICK))


def test_recorded_command_parses_back_to_the_same_plan(tiny, pairs, tmp_path):
    import shlex

    from negkit.cli import build_parser
    from negkit.training.arguments import options_from_args
    from negkit.training.options import command_line

    options = FinetuneOptions(
        out=tmp_path / "x",
        train=str(pairs),
        dev="0.2",
        subset=TindFilter(exclude_patterns=(9,), polarity="negative", kind="inputs", negation=("analytic",)),
        chat=False,
        early_stopping_patience=2,
        gradient_checkpointing=True,
        labels=("a", "b"),
        learning_rate=1e-4,
        max_minutes=19.5,
        share_prefix=False,
        **QUICK,
    )
    args = build_parser().parse_args(shlex.split(command_line(f"hf:{tiny}", options))[1:])
    assert options_from_args(args).plan() == options.plan()


def test_tind_examples_follow_the_evaluation_prompt_and_filters(tiny):
    shared_data_path("tind", "raw-public.zip")
    from negkit.benchmarks.tind.task import TruthTask
    from negkit.benchmarks.tind.training import tind_examples
    from negkit.models.registry import load_model

    lm = load_model(f"hf:{tiny}")
    data = tind_examples(
        lm, None, subset=TindFilter(exclude_patterns=(1, 5), polarity="affirmative", kind="inputs"), limit=300
    )
    description = data.description
    assert 1 not in description["patterns"] and 5 not in description["patterns"] and len(description["patterns"]) >= 5
    assert data.examples and {example.completion for example in data.examples} <= {
        "True<|im_end|>\n",
        "False<|im_end|>\n",
    }
    assert all(not example.eos for example in data.examples)  # the chat template ends the turn itself
    first = data.examples[0]
    assert first.prompt.startswith("<|im_start|>user\nIs the following statement True or False? Answer only True")
    plain = tind_examples(lm, None, subset=TindFilter(patterns=(9,), polarity="negative"), chat=False)
    task = TruthTask(chat=False)
    assert all(example.prompt.startswith("Is the following statement True or False? ") for example in plain.examples)
    assert {example.completion for example in plain.examples} <= {"True", "False"} and plain.examples[0].eos
    assert plain.examples[0].prompt == task.prompt(plain.examples[0].prompt.split("False? ", 1)[1], lm)
    assert plain.description["split"] == "train" and plain.description["patterns"] == [9]
    with pytest.raises(NegkitError, match="both included and excluded"):
        TindFilter(patterns=(2,), exclude_patterns=(2,))
    verbal = tind_examples(lm, None, subset=TindFilter(patterns=(6,), negation=("verbal",)), chat=False)
    assert verbal.description["sentences"] < len(tind_examples(lm, None, subset=TindFilter(patterns=(6,))).examples)
    from negkit.benchmarks.tind.task import tind_source
    from negkit.benchmarks.tind.training import _read_tind

    kept = [
        item
        for item in _read_tind(tind_source(None), "train", 0)
        if TindFilter(patterns=(6,), negation=("verbal",)).keeps(item)
    ]
    assert {item.negation_type for item in kept} == {"affirmation", "verbal"}


def test_per_group_thins_every_group_over_its_four_cells(tiny):
    shared_data_path("tind", "raw-public.zip")
    from collections import Counter

    from negkit.benchmarks.tind.task import tind_source
    from negkit.benchmarks.tind.training import _read_tind, thin_groups, tind_examples
    from negkit.models.registry import load_model
    from negkit.training.options import command_line

    items = [item for item in _read_tind(tind_source(None), "train", 0) if item.pattern_id in (2, 6)]
    thinned = thin_groups(items, 4, 0)
    groups = {item.group_key for item in items}
    per_group = Counter(item.group_key for item in thinned)
    assert set(per_group) == groups and set(per_group.values()) == {4}
    for key in groups:  # one sentence of each cell (affirmative/negative x input/distractor) when a group has all four
        cells = {(item.is_negated, item.is_distractor) for item in thinned if item.group_key == key}
        assert len(cells) == 4
    assert thin_groups(items, 4, 0) == thinned and thin_groups(items, 4, 1) != thinned
    kept = {item.item_id for item in thinned}
    assert thinned == [item for item in items if item.item_id in kept]  # input order kept
    lm = load_model(f"hf:{tiny}")
    data = tind_examples(lm, None, subset=TindFilter(patterns=(2, 6), per_group=2), chat=False)
    assert data.description["sentences"] == 2 * data.description["groups"]
    assert data.description["filter"]["per_group"] == 2
    assert "--per-group 2" in command_line("default", FinetuneOptions(subset=TindFilter(per_group=2)))
    with pytest.raises(NegkitError, match="--per-group must be at least 1"):
        TindFilter(per_group=0)


def test_tind_training_then_eval_with_the_adapter(tiny, tmp_path):
    shared_data_path("tind", "raw-public.zip")
    from negkit.commands.eval.evaluate import evaluate
    from negkit.commands.eval.options import EvalOptions

    out = tmp_path / "adapter"
    run = finetune(
        f"hf:{tiny}",
        FinetuneOptions(
            out=out,
            train="tind",
            limit=40,
            dev="split",
            dev_limit=16,
            subset=TindFilter(exclude_patterns=(9,)),
            **QUICK,
        ),
    )
    assert run["data"]["train"]["description"]["split_seed"] == 0 and run["data"]["train"]["group_keys"]
    base = evaluate(f"hf:{tiny}", ["tind"], EvalOptions(limit=30, progress=False, out=tmp_path / "base"))[0]
    tuned = evaluate(
        f"hf:{tiny}", ["tind"], EvalOptions(limit=30, progress=False, out=tmp_path / "tuned", adapter=out)
    )[0]
    unmerged = evaluate(
        f"hf:{tiny}",
        ["tind"],
        EvalOptions(limit=30, progress=False, out=tmp_path / "unmerged", adapter=out, merge_adapter=False),
    )[0]
    assert tuned["model"]["key"] != base["model"]["key"] and tuned["model"]["extra"]["adapter_sha256"]
    load = tuned["model"]["load"]["adapter"]
    assert load["merged"] is True and load["base_matches"] is True and load["path"] == str(out)
    assert load["training_config_sha256"] and load["weights_sha256"] == run["adapter"]["weights_sha256"]
    assert unmerged["model"]["load"]["adapter"]["merged"] is False

    def p_true(folder):
        return [json.loads(line)["p_true"] for line in (folder / "tind.samples.jsonl").read_text().splitlines()]

    merged_p, unmerged_p, base_p = p_true(tmp_path / "tuned"), p_true(tmp_path / "unmerged"), p_true(tmp_path / "base")
    assert max(abs(a - b) for a, b in zip(merged_p, unmerged_p)) < 1e-5
    assert max(abs(a - b) for a, b in zip(merged_p, base_p)) > 1e-6  # the adapter changed something
    # the training split's groups are refused for evaluation
    with pytest.raises(NegkitError, match="were in the adapter's training data"):
        evaluate(f"hf:{tiny}", ["tind"], EvalOptions(split="train", progress=False, out=tmp_path / "leak", adapter=out))


def test_nubench_pairs_in_the_papers_format(tiny, tmp_path):
    from negkit.benchmarks.nubench import nubench_examples
    from negkit.benchmarks.nubench.task import render_prompt
    from negkit.models.registry import load_model

    lm = load_model(f"hf:{tiny}")
    data = nubench_examples(lm, FIXTURE)
    first = data.examples[0]
    premise = "The orchestra performed the symphony at the opening of the new concert hall."
    assert first.prompt == render_prompt("7", premise) and first.prompt.endswith(f"Sentence: {premise}\nNegation:")
    assert first.completion == " The orchestra did not perform the symphony at the opening of the new concert hall."
    chat = nubench_examples(lm, FIXTURE, chat=True)
    assert chat.examples[0].prompt.endswith("<|im_start|>assistant\n") and chat.examples[0].completion.endswith(
        "<|im_end|>\n"
    )
    run = finetune(f"hf:{tiny}", FinetuneOptions(out=tmp_path / "nb", train="nubench", data=str(FIXTURE), **QUICK))
    assert run["data"]["train"]["examples"] == 5 and run["data"]["train"]["description"]["prompt_id"] == "7"


def test_resume_after_kill_equals_an_uninterrupted_run(tiny, pairs, tmp_path):
    def child(out: Path, sleep: float) -> subprocess.Popen:
        return subprocess.Popen(
            [sys.executable, str(CHILD), str(tiny), str(pairs), str(out), str(sleep)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    whole = child(tmp_path / "whole", 0.0)
    killed = child(tmp_path / "killed", 0.4)
    checkpoints = tmp_path / "killed" / "checkpoints"
    deadline = time.monotonic() + 120
    while not (checkpoints / "checkpoint-6" / "COMPLETE").is_file():
        assert killed.poll() is None and time.monotonic() < deadline, "the child ended before its second checkpoint"
        time.sleep(0.05)
    time.sleep(0.5)  # mid-way between checkpoints
    os.kill(killed.pid, signal.SIGKILL)
    killed.wait()
    assert not (tmp_path / "killed" / "negkit_training.json").exists()
    (checkpoints / "checkpoint-7").mkdir()  # a save cut by the kill: no COMPLETE marker
    assert child(tmp_path / "killed", 0.0).wait() == 0 and whole.wait() == 0
    assert not (checkpoints / "checkpoint-7").exists()
    resumed = json.loads((tmp_path / "killed" / "negkit_training.json").read_text())
    uninterrupted = json.loads((tmp_path / "whole" / "negkit_training.json").read_text())
    assert resumed["result"]["resumed_from_step"] == 6 and uninterrupted["result"]["resumed_from_step"] is None
    a, b = adapter_weights(tmp_path / "whole"), adapter_weights(tmp_path / "killed")
    assert max(float((a[name] - b[name]).abs().max()) for name in a) == 0.0
    assert resumed["result"]["train_loss"] == uninterrupted["result"]["train_loss"]
    assert resumed["adapter"] == uninterrupted["adapter"]
    timing = (
        "train_runtime",
        "train_tokens_per_second",
        "eval_runtime",
        "eval_samples_per_second",
        "eval_steps_per_second",
    )

    def log(folder):
        return [
            {k: v for k, v in json.loads(line).items() if k not in timing}
            for line in (folder / "train_log.jsonl").read_text().splitlines()
        ]

    assert log(tmp_path / "killed") == log(tmp_path / "whole")
    assert sorted(path.name for path in checkpoints.iterdir()) == ["checkpoint-12", "checkpoint-9"]


def test_merged_export_answers_like_the_adapter(tiny, pairs, tmp_path, capsys):
    from negkit.commands.eval.evaluate import evaluate
    from negkit.commands.eval.options import EvalOptions

    out = tmp_path / "adapter"
    run = finetune(
        f"hf:{tiny}", FinetuneOptions(out=out, train=str(pairs), merge_out=str(tmp_path / "merged"), **QUICK)
    )
    assert run["merged"]["adapter"]["weights_sha256"] == run["adapter"]["weights_sha256"]
    assert main(["merge-adapter", "--model", f"hf:{tiny}", "--adapter", str(out), "--out", str(tmp_path / "m2")]) == 0
    from safetensors.torch import load_file

    first, second = (
        load_file(str(tmp_path / "merged" / "model.safetensors")),
        load_file(str(tmp_path / "m2" / "model.safetensors")),
    )
    assert all(float((first[k] - second[k]).abs().max()) < 1e-6 for k in first)
    options = dict(data=str(FIXTURE), limit=4, progress=False)
    via_adapter = evaluate(f"hf:{tiny}", ["nubench"], EvalOptions(out=tmp_path / "a", adapter=out, **options))[0]
    via_merged = evaluate(f"hf:{tmp_path / 'merged'}", ["nubench"], EvalOptions(out=tmp_path / "b", **options))[0]
    assert via_adapter["metrics"] == via_merged["metrics"]
    assert main(["merge-adapter", "--model", f"hf:{tiny}", "--adapter", str(out), "--out", str(tmp_path / "m2")]) == 2
    assert "already exists" in capsys.readouterr().err


def test_nli_classifier_fine_tuning_and_eval(tmp_path):
    model = save_tiny_classifier(tmp_path / "cls")
    data = tmp_path / "nli.csv"
    rows = [
        ("A dog is an animal.", "A dog is not an animal.", "contradiction"),
        ("A cat is not a plant.", "A cat is an animal.", "neutral"),
        ("Birds can fly.", "Birds can fly.", "entailment"),
        ("Iron is a metal.", "Iron is not a metal.", "contradiction"),
        ("Water is wet.", "Water is cold.", "neutral"),
        ("The sun is hot.", "The sun is hot.", "entailment"),
        ("The snow is cold.", "The snow is hot.", "-"),
    ] * 2
    data.write_text("premise,hypothesis,label\n" + "".join(f'"{p}","{h}",{label}\n' for p, h, label in rows))
    run = finetune(f"nli:{model}", FinetuneOptions(out=tmp_path / "out", train=str(data), dev="0.25", **QUICK))
    assert run["kind"] == "nli-classifier" and run["labels"] == ["entailment", "neutral", "contradiction"]
    assert run["data"]["train"]["skipped"] == 2 and run["options"]["learning_rate"] == 2e-5
    config = json.loads((tmp_path / "out" / "config.json").read_text())
    assert config["id2label"] == {"0": "entailment", "1": "neutral", "2": "contradiction"}
    shared_data_path("nan-nli", "nan.csv")
    assert (
        main(
            [
                "eval",
                "--model",
                f"nli:{tmp_path / 'out'}",
                "--tasks",
                "nan-nli",
                "--out",
                str(tmp_path / "ev"),
                "--no-progress",
            ]
        )
        == 0
    )
    # a model that names its labels keeps its head and its order
    named = save_tiny_classifier(tmp_path / "named", labels=("contradiction", "entailment", "neutral"))
    kept = finetune(f"nli:{named}", FinetuneOptions(out=tmp_path / "out2", train=str(data), **QUICK))
    assert kept["kept_head"] and kept["labels"] == ["contradiction", "entailment", "neutral"]


@pytest.mark.parametrize(
    "content, message",
    [
        ('{"prompt": "a", "completion": "b"}\n{"prompt": "a",\n', "bad.jsonl:2: not valid JSON"),
        ('{"prompt": "a"}\n', "bad.jsonl:1: field 'completion' must be a string"),
        ('["a", "b"]\n', "bad.jsonl:1: expected a JSON object"),
        ('{"prompt": "a", "completion": ""}\n', "bad.jsonl:1: field 'completion' is empty"),
        (b'{"prompt": "a", "completion": "b"}\n{"prompt": "\xff"}\n', "bad.jsonl:2: not UTF-8"),
        ("[" * 100_000 + "]" * 100_000 + "\n", "bad.jsonl:1: JSON nested too deeply"),
    ],
)
def test_bad_training_files_are_one_line_errors(tiny, tmp_path, capsys, content, message):
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(content if isinstance(content, bytes) else content.encode())
    status = main(
        ["finetune", "--model", f"hf:{tiny}", "--train", str(bad), "--out", str(tmp_path / "o"), "--no-progress"]
    )
    captured = capsys.readouterr()
    assert status == 2 and captured.out == ""
    assert captured.err.startswith(f"negkit: error: {bad.parent}/{message}") and "Traceback" not in captured.err
    assert captured.err.count("\n") == 1  # reported before any model loads


def test_bad_nli_files_and_options(tmp_path, capsys):
    model = save_tiny_classifier(tmp_path / "cls")
    capsys.readouterr()
    missing = tmp_path / "m.csv"
    missing.write_text("premise,hypo,label\na,b,entailment\n")
    numeric = tmp_path / "n.jsonl"
    numeric.write_text('{"premise": "a", "hypothesis": "b", "label": 1}\n')
    for path, expected in (
        (missing, f"{missing}:2: expected fields premise, hypothesis, label (or sentence1, sentence2, gold_label)"),
        (numeric, f"{numeric}:1: integer label 1: give the label names in order with --labels"),
    ):
        assert main(["finetune", "--model", f"nli:{model}", "--train", str(path), "--out", str(tmp_path / "o")]) == 2
        assert capsys.readouterr().err.strip() == f"negkit: error: {expected}"
    assert main(["finetune", "--train", "tind", "--out", str(tmp_path / "o"), "--early-stopping", "2"]) == 2
    assert "--early-stopping needs development data" in capsys.readouterr().err


def test_quantized_training_needs_a_gpu(tiny, pairs, tmp_path, capsys):
    import torch

    if torch.cuda.is_available():
        pytest.skip("a GPU is visible: the CPU error path does not apply")
    assert (
        main(
            [
                "finetune",
                "--model",
                f"hf:{tiny}",
                "--train",
                str(pairs),
                "--quantize",
                "4bit",
                "--out",
                str(tmp_path / "q"),
            ]
        )
        == 2
    )
    error = capsys.readouterr().err
    assert "negkit: error: --quantize 4bit needs" in error and "Traceback" not in error


def test_bad_training_numbers_and_folders(tiny, pairs, tmp_path, capsys):
    """nan passes every comparison (refused as not finite); a folder holding files of no negkit run (an adapter
    saved by another tool) is never overwritten; NLI labels mixed with other names need --labels."""
    from malformed import assert_input_error

    base = ["finetune", "--model", f"hf:{tiny}", "--train", pairs, "--no-progress", "--max-steps", "1"]
    for flags in (["--learning-rate", "nan"], ["--warmup-ratio", "nan"], ["--max-minutes", "inf"]):
        assert_input_error([*base, "--out", tmp_path / "o", *flags], capsys, contains="finite")
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "adapter_model.safetensors").write_bytes(b"precious")
    assert_input_error([*base, "--out", foreign], capsys, where=foreign, contains="not a negkit fine-tuning run")
    assert (foreign / "adapter_model.safetensors").read_bytes() == b"precious"
    model = save_tiny_classifier(tmp_path / "cls")
    typo = tmp_path / "typo.csv"
    typo.write_text("premise,hypothesis,label\na,b,entailment\nc,d,entailmnet\ne,f,neutral\n")
    assert_input_error(
        ["finetune", "--model", f"nli:{model}", "--train", typo, "--out", tmp_path / "n", "--no-progress"],
        capsys,
        where=typo,
        contains="['entailmnet'] next to the NLI labels",
    )
    single = tmp_path / "single.jsonl"
    single.write_text('{"premise": "a", "hypothesis": "b", "label": "maybe"}\n')
    assert_input_error(
        ["finetune", "--model", f"nli:{model}", "--train", single, "--out", tmp_path / "s", "--no-progress"],
        capsys,
        where=single,
        contains="one label only",
    )


def test_a_second_training_into_a_held_folder_is_refused(tiny, pairs, tmp_path):
    """Issue 32, finding 14: ``negkit finetune`` had no output-folder lock (a second run "resumed" and deleted the
    first run's checkpoints). The first run's lock is held here as a live process holds it."""
    from negkit.io.locks import RunLock

    out = tmp_path / "out"
    with RunLock(out, info={"command": "negkit finetune (the first run)"}):
        with pytest.raises(NegkitError, match="this output folder is in use by another negkit run"):
            finetune(f"hf:{tiny}", FinetuneOptions(out=out, train=str(pairs), **QUICK))
    run = finetune(f"hf:{tiny}", FinetuneOptions(out=out, train=str(pairs), **QUICK))  # free again: it trains
    assert run["status"] == "complete" and not (out / ".negkit.lock").exists()


def test_a_diverged_training_is_an_error_and_its_adapter_cannot_be_evaluated(tiny, pairs, tmp_path):
    from safetensors.torch import save_file

    from negkit.commands.eval.evaluate import evaluate
    from negkit.commands.eval.options import EvalOptions

    out = tmp_path / "diverged"
    options = FinetuneOptions(out=out, train=str(pairs), **{**QUICK, "max_steps": 6, "learning_rate": 1e30})
    with pytest.raises(NegkitError, match=r"diverged at step \d: .*no adapter was written"):
        finetune(f"hf:{tiny}", options)
    assert not (out / "adapter_model.safetensors").exists() and (out / "train_log.jsonl").is_file()
    # an adapter with NaN weights (written elsewhere) is refused, never scored
    good = tmp_path / "good"
    finetune(f"hf:{tiny}", FinetuneOptions(out=good, train=str(pairs), **QUICK))
    weights = {name: weight * float("nan") for name, weight in adapter_weights(good).items()}
    save_file(weights, str(good / "adapter_model.safetensors"))
    with pytest.raises(NegkitError, match="hold NaN or infinite values.*diverged"):
        evaluate(f"hf:{tiny}", ["neqa"], EvalOptions(limit=4, progress=False, out=tmp_path / "e", adapter=good))
