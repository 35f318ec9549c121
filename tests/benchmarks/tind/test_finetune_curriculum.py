"""``negkit finetune --affirmative-first N`` (a TIND curriculum trained in a fixed order) and ``--lora-layers``
(LoRA on some transformer layers only), on a tiny random model."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

pytest.importorskip("peft")

from conftest import shared_data_path  # noqa: E402
from malformed import assert_input_error  # noqa: E402
from tiny_models import save_tiny_causal  # noqa: E402

from negkit.benchmarks.tind.training import TindFilter  # noqa: E402
from negkit.errors import NegkitError  # noqa: E402
from negkit.training import FinetuneOptions, finetune  # noqa: E402

QUICK = dict(max_steps=3, batch_size=4, save_steps=2, logging_steps=1, progress=False)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    return save_tiny_causal(tmp_path_factory.mktemp("tiny") / "model")


def test_affirmative_first_puts_affirmative_sentences_before_all_of_them(tiny):
    shared_data_path("tind", "raw-public.zip")
    from negkit.benchmarks.tind.training import tind_examples
    from negkit.models.registry import load_model
    from negkit.training.sources import affirmative_first

    lm = load_model(f"hf:{tiny}")
    data = tind_examples(lm, None, subset=TindFilter(patterns=(2, 6), per_group=4), chat=False)
    assert {example.negated for example in data.examples} == {True, False}
    ordered = affirmative_first(data, 10, seed=0)
    assert [example.negated for example in ordered.examples[:10]] == [False] * 10
    assert sorted(ordered.examples[10:], key=lambda e: e.origin) == sorted(data.examples, key=lambda e: e.origin)
    assert {example.origin for example in ordered.examples[:10]} <= {example.origin for example in data.examples}
    assert ordered.description["affirmative_first"] == 10
    assert affirmative_first(data, 10, seed=0).content_sha256() == ordered.content_sha256()  # deterministic
    assert affirmative_first(data, 10, seed=1).content_sha256() != ordered.content_sha256()
    affirmative = sum(1 for example in data.examples if example.negated is False)
    with pytest.raises(NegkitError, match=f"holds only {affirmative} affirmative"):
        affirmative_first(data, affirmative + 1, seed=0)


def test_curriculum_on_upper_layers_trains_in_order_and_evaluates(tiny, tmp_path):
    shared_data_path("tind", "raw-public.zip")
    from safetensors.torch import load_file

    from negkit.commands.eval.evaluate import evaluate
    from negkit.commands.eval.options import EvalOptions
    from negkit.models.registry import load_model
    from negkit.training.batches import tokenize_examples
    from negkit.training.lm import build_trainer, training_data

    options = FinetuneOptions(
        out=tmp_path / "cur",
        train="tind",
        limit=40,
        chat=False,
        affirmative_first=6,
        lora_layers="1",
        subset=TindFilter(patterns=(2, 6), per_group=4),
        **QUICK,
    )
    lm = load_model(f"hf:{tiny}")
    train, _ = training_data(lm, options)
    trainer, _ = build_trainer(lm, train, None, options, tmp_path / "probe")
    first = next(iter(trainer.get_train_dataloader()))  # the curriculum's first examples, not a shuffled draw
    expected, _ = tokenize_examples(lm.rules, lm.tokenizer, train.examples[:4], options.max_length)
    prefix = first["prefix_ids"][0].tolist()
    suffix_mask = first["attention_mask"][:, len(prefix) :].tolist()
    rows = [
        prefix + [token for token, keep in zip(row, mask) if keep]
        for row, mask in zip(first["input_ids"].tolist(), suffix_mask)
    ]
    assert rows == [list(row.ids) for row in expected]

    run = finetune(f"hf:{tiny}", options)
    assert run["lora"]["layers_to_transform"] == [1]
    assert run["data"]["train"]["description"]["affirmative_first"] == 6
    weights = load_file(str(tmp_path / "cur" / "adapter_model.safetensors"))
    assert weights and all(".layers.1." in name for name in weights)
    assert "--lora-layers 1" in run["command"] and "--affirmative-first 6" in run["command"]
    tuned = evaluate(
        f"hf:{tiny}", ["tind"], EvalOptions(limit=30, progress=False, out=tmp_path / "tuned", adapter=tmp_path / "cur")
    )[0]
    assert tuned["model"]["load"]["adapter"]["merged"] is True


def test_recorded_command_with_the_new_flags_parses_back(tiny, tmp_path):
    from negkit.cli import build_parser
    from negkit.training.arguments import options_from_args
    from negkit.training.options import command_line

    options = FinetuneOptions(out=tmp_path / "x", train="tind", affirmative_first=120, lora_layers="12-29", **QUICK)
    args = build_parser().parse_args(shlex.split(command_line(f"hf:{tiny}", options))[1:])
    assert options_from_args(args).plan() == options.plan()


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--lora-layers", "5-2"], "runs backwards"),
        (["--lora-layers", "x"], "expected layer numbers"),
        (["--lora-layers", "0-7"], "this model has 2 layers, numbered 0 to 1; got layer 7"),
        (["--affirmative-first", "0"], "--affirmative-first must be at least 1"),
        (["--affirmative-first", "5", "--polarity", "affirmative"], "both polarities"),
    ],
)
def test_bad_curriculum_and_layer_options(tiny, tmp_path, capsys, flags, message):
    shared_data_path("tind", "raw-public.zip")
    assert_input_error(
        [
            "finetune",
            "--model",
            f"hf:{tiny}",
            "--train",
            "tind",
            "--limit",
            "20",
            "--max-steps",
            "1",
            "--no-progress",
            "--out",
            tmp_path / "o",
            *flags,
        ],
        capsys,
        contains=message,
    )


def test_affirmative_first_needs_tind(tiny, tmp_path, capsys):
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text('{"prompt": "a", "completion": " b"}\n')
    assert_input_error(
        ["finetune", "--model", f"hf:{tiny}", "--train", pairs, "--affirmative-first", "3", "--out", tmp_path / "o"],
        capsys,
        contains="--train tind",
    )


def test_a_curriculum_resumed_from_a_checkpoint_equals_an_uninterrupted_run(tiny, tmp_path):
    """What a kill -9 after the first checkpoint leaves (checkpoint-3 only, no adapter, no record): the same
    command continues in the curriculum's order, and the adapter is the uninterrupted run's, bit for bit."""
    shared_data_path("tind", "raw-public.zip")
    import shutil

    from safetensors.torch import load_file

    options = dict(
        train="tind",
        limit=40,
        chat=False,
        affirmative_first=6,
        lora_dropout=0.1,
        subset=TindFilter(patterns=(2, 6), per_group=4),
        max_steps=6,
        batch_size=4,
        save_steps=3,
        logging_steps=1,
        progress=False,
    )
    whole = finetune(f"hf:{tiny}", FinetuneOptions(out=tmp_path / "whole", **options))
    cut = tmp_path / "cut"
    finetune(f"hf:{tiny}", FinetuneOptions(out=cut, **options))
    shutil.rmtree(cut / "checkpoints" / "checkpoint-6")
    for name in ("adapter_model.safetensors", "adapter_config.json", "negkit_training.json"):
        (cut / name).unlink()
    resumed = finetune(f"hf:{tiny}", FinetuneOptions(out=cut, **options))
    assert resumed["result"]["resumed_from_step"] == 3 and whole["result"]["resumed_from_step"] is None
    a, b = (
        load_file(str(tmp_path / "whole" / "adapter_model.safetensors")),
        load_file(str(cut / "adapter_model.safetensors")),
    )
    assert max(float((a[name] - b[name]).abs().max()) for name in a) == 0.0
