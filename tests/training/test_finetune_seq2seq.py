"""``negkit finetune`` on an encoder-decoder model (a tiny random T5 saved to a folder, loaded as ``hf:PATH``):
the prompt is the encoder's input, the label the decoder's target; the adapter then works in ``negkit eval``."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

pytest.importorskip("peft")

from tiny_models import save_tiny_t5, synthetic_truth_items  # noqa: E402

from negkit.errors import NegkitError  # noqa: E402
from negkit.training import FinetuneOptions, finetune  # noqa: E402

QUICK = dict(batch_size=4, save_steps=5, logging_steps=1, progress=False)


@pytest.fixture(scope="module")
def t5(tmp_path_factory) -> Path:
    return save_tiny_t5(tmp_path_factory.mktemp("t5") / "model")


@pytest.fixture(scope="module")
def tind_data(tmp_path_factory) -> Path:
    from negkit.benchmarks.tind.data import write_tind_jsonl

    folder = tmp_path_factory.mktemp("tind-t5")
    items = synthetic_truth_items(groups_per_pattern=4, patterns=(1, 5))
    write_tind_jsonl([item for item in items if item.group_id < 2], folder / "train.jsonl", extended=True)
    write_tind_jsonl([item for item in items if item.group_id >= 2], folder / "test.jsonl", extended=True)
    return folder


def test_batches_put_the_evaluation_prompt_in_the_encoder_and_the_label_in_the_decoder(t5, tind_data):
    from negkit.benchmarks.tind.task import TruthTask
    from negkit.benchmarks.tind.training import tind_examples
    from negkit.models.registry import load_model
    from negkit.training.batches import TokenizedDataset, tokenize_examples
    from negkit.training.seq2seq import Seq2SeqCollator

    lm = load_model(f"hf:{t5}")
    assert lm.is_encoder_decoder
    data = tind_examples(lm, tind_data)
    example = data.examples[0]
    assert example.prompt == TruthTask().prompt(example.prompt.split("? ", 1)[1], lm)  # no chat template, no space
    assert example.completion in ("True", "False") and example.eos
    rows, dropped = tokenize_examples(lm.rules, lm.tokenizer, data.examples[:3], 512)
    batch = Seq2SeqCollator(lm.rules.pad_id)([TokenizedDataset(rows)[index] for index in range(3)])
    eos = lm.tokenizer.eos_token_id
    for row, item in enumerate(data.examples[:3]):
        prompt = lm.rules.encode_context(item.prompt)[0]
        assert prompt[-1] != eos  # the evaluation drops T5's final EOS from the encoder input
        width = len(prompt)
        assert batch["input_ids"][row, :width].tolist() == prompt and batch["attention_mask"][row].sum() == width
        target = [*lm.rules.encode(item.completion, special=False), eos]
        assert batch["labels"][row, : len(target)].tolist() == target
        # the first target token is the token the evaluation reads at the first decoder step
        assert target[0] == lm.rules.first_token_id(item.completion)


def test_lora_on_t5_learns_the_label_and_eval_with_the_adapter_reads_it(t5, tind_data, tmp_path):
    from negkit.commands.eval.evaluate import EvalOptions, evaluate

    out = tmp_path / "t5-lora"
    run = finetune(
        f"hf:{t5}",
        FinetuneOptions(
            out=out,
            train="tind",
            data=str(tind_data),
            max_steps=12,
            learning_rate=2e-2,
            subset=_affirmative_distractors(),
            **QUICK,
        ),
    )
    assert run["kind"] == "lora-seq2seq-lm" and run["status"] == "complete"
    assert run["lora"]["task_type"] == "SEQ_2_SEQ_LM" and run["lora"]["trainable_parameters"] > 0
    assert run["data"]["train"]["completions"] == {"False": 8}  # affirmative distractors: all False
    losses = [
        entry["loss"]
        for entry in map(json.loads, (out / "train_log.jsonl").read_text().splitlines())
        if "loss" in entry
    ]
    assert losses[-1] < losses[0]
    common = dict(data=str(tind_data), progress=False, bootstrap=0)
    base = evaluate(f"hf:{t5}", ["tind"], EvalOptions(out=tmp_path / "base", **common))[0]
    tuned = evaluate(f"hf:{t5}", ["tind"], EvalOptions(out=tmp_path / "tuned", adapter=out, **common))[0]
    assert base and tuned

    def log_odds(folder: Path) -> list[float]:
        rows = [json.loads(line) for line in (folder / "tind.samples.jsonl").read_text().splitlines()]
        assert all(0 <= row["p_true"] <= 1 and not math.isnan(row["p_true"]) for row in rows)
        return [row["logprob_true"] - row["logprob_false"] for row in rows]

    before, after = log_odds(tmp_path / "base"), log_odds(tmp_path / "tuned")
    assert sum(after) / len(after) < sum(before) / len(before) - 1.0  # trained towards "False"


def test_merged_t5_gives_the_adapters_answers(t5, tind_data, tmp_path):
    from negkit.models.adapter import apply_adapter
    from negkit.models.registry import load_model
    from negkit.training import merge_adapter

    out = tmp_path / "lora"
    finetune(
        f"hf:{t5}",
        FinetuneOptions(
            out=out, train="tind", data=str(tind_data), max_steps=3, learning_rate=1e-2, lora_layers="1", **QUICK
        ),
    )
    config = json.loads((out / "adapter_config.json").read_text())
    assert config["layers_to_transform"] == [1] and config["layers_pattern"] == "block"
    merge_adapter(f"hf:{t5}", out, tmp_path / "merged")
    contexts = ["Is the following statement True or False? A dog is an animal."]
    merged = load_model(f"hf:{tmp_path / 'merged'}").next_token_logprobs(contexts, ["True", "False"])
    adapted = apply_adapter(load_model(f"hf:{t5}"), out).next_token_logprobs(contexts, ["True", "False"])
    base = load_model(f"hf:{t5}").next_token_logprobs(contexts, ["True", "False"])
    assert merged[0]["True"] == pytest.approx(adapted[0]["True"], abs=1e-4)
    assert merged[0]["True"] != pytest.approx(base[0]["True"], abs=1e-6)


def test_prompt_loss_weight_is_refused_for_encoder_decoders(t5, tind_data, tmp_path):
    with pytest.raises(NegkitError, match="encoder-decoder.*prompt-loss-weight"):
        finetune(
            f"hf:{t5}",
            FinetuneOptions(
                out=tmp_path / "x", train="tind", data=str(tind_data), max_steps=1, prompt_loss_weight=0.05, **QUICK
            ),
        )


def _affirmative_distractors():
    from negkit.benchmarks.tind.training import TindFilter

    return TindFilter(polarity="affirmative", kind="distractors")
