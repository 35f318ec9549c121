"""``negkit finetune --recipe``: NaN-NLI's Appendix A hyper-parameters, filled into the options left at negkit's
defaults; a stage-2 run on a tiny classifier splits its pairs 85:15 with the seed."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("peft")

from tiny_models import save_tiny_classifier  # noqa: E402

from negkit.benchmarks.nan_nli.recipes import RECIPES  # noqa: E402
from negkit.cli import build_parser  # noqa: E402
from negkit.errors import NegkitError  # noqa: E402
from negkit.training import FinetuneOptions, finetune  # noqa: E402
from negkit.training.arguments import options_from_args  # noqa: E402
from negkit.training.recipes import apply_recipe  # noqa: E402


def test_recipes_are_the_papers_numbers():
    stage1 = apply_recipe(FinetuneOptions(), "nan-nli-mnli")
    assert (stage1.batch_size, stage1.learning_rate, stage1.epochs, stage1.dev) == (16, 3e-5, 3.0, None)
    stage2 = apply_recipe(FinetuneOptions(), "nan-nli")
    assert (stage2.batch_size, stage2.learning_rate, stage2.epochs, stage2.dev) == (16, 2e-5, 5.0, "0.15")
    for recipe in (stage1, stage2):  # Adam: no weight decay; the Trainer's default schedule, no warm-up
        assert (recipe.weight_decay, recipe.scheduler, recipe.warmup_ratio) == (0.0, "linear", 0.0)
    assert {recipe.name for recipe in RECIPES} == {"nan-nli-mnli", "nan-nli"}
    with pytest.raises(NegkitError, match="unknown --recipe"):
        apply_recipe(FinetuneOptions(), "nope")


def test_options_given_win_over_the_recipe():
    args = build_parser().parse_args(
        [
            "finetune",
            "--train",
            "x.csv",
            "--out",
            "o",
            "--recipe",
            "nan-nli",
            "--learning-rate",
            "1e-5",
            "--dev",
            "0.2",
            "--max-steps",
            "7",
        ]
    )
    options = options_from_args(args)
    assert (options.learning_rate, options.dev, options.max_steps) == (1e-5, "0.2", 7)
    assert (options.batch_size, options.epochs) == (16, 5.0)


def test_stage_two_on_a_tiny_classifier_holds_out_15_percent(tmp_path):
    model = save_tiny_classifier(tmp_path / "cls")
    data = tmp_path / "negnli.jsonl"
    pairs = [
        ("A dog is an animal.", "A dog is not an animal.", "contradiction"),
        ("A cat is not a plant.", "A cat is an animal.", "neutral"),
        ("Birds can fly.", "Birds can fly.", "entailment"),
    ] * 20
    data.write_text(
        "".join(json.dumps({"premise": p, "hypothesis": h, "label": label}) + "\n" for p, h, label in pairs)
    )
    options = apply_recipe(
        FinetuneOptions(out=tmp_path / "out", train=str(data), max_steps=2, progress=False), "nan-nli"
    )
    run = finetune(f"nli:{model}", options)
    assert run["data"]["train"]["pairs"] == 51 and run["data"]["dev"]["pairs"] == 9  # 60 pairs, 85:15
    assert run["options"]["learning_rate"] == 2e-5 and run["options"]["batch_size"] == 16
    assert "--scheduler linear" in run["command"] and "--dev 0.15" in run["command"]


def test_stage_two_reads_negnli_mnli_txt_and_splits_it_85_15(tmp_path):
    from conftest import shared_data_path

    from negkit.training.classifier import read_nli_pairs

    path = shared_data_path("negation-nli", "MNLI.txt")
    rows, skipped = read_nli_pairs(path)
    assert len(rows) == 1500 and skipped == 0
    assert {label: sum(row[2] == label for row in rows) for label in ("contradiction", "entailment", "neutral")} == {
        "contradiction": 539,
        "entailment": 372,
        "neutral": 589,
    }  # the data README's counts
    model = save_tiny_classifier(tmp_path / "cls")
    options = apply_recipe(
        FinetuneOptions(out=tmp_path / "out", train=str(path), max_steps=1, progress=False), "nan-nli"
    )
    run = finetune(f"nli:{model}", options)
    assert run["data"]["train"]["pairs"] == 1275 and run["data"]["dev"]["pairs"] == 225
    assert run["data"]["train"]["files"][0]["name"] == "MNLI.txt"
