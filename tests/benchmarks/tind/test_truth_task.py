"""The TIND task: exact prompt strings, few-shot examples, sampling, predictions, and negkit eval."""

from __future__ import annotations

import json
import math

import pytest
from tiny_models import save_tiny_causal, synthetic_truth_items

from negkit.benchmarks.tind.data import write_tind_jsonl
from negkit.benchmarks.tind.fewshot import authors_fewshot_examples, draw_fewshot_examples, fewshot_block
from negkit.benchmarks.tind.task import TruthTask, sample_groups, true_probability
from negkit.cli import main
from negkit.errors import NegkitError
from negkit.kit.suites import get_task, registered_tasks
from negkit.models.base import GenerateRequest, LoglikelihoodRequest, LoglikelihoodResult, NextTokenRequest


class PlainModel:
    """Just enough of a language model for building prompts."""

    is_encoder_decoder = False

    def __init__(self, chat: bool = False):
        self.has_chat_template = chat

    def apply_chat_template(self, messages):
        return f"<user>{messages[0]['content']}</user><assistant>"


def test_zero_shot_prompts_are_the_authors_strings():
    task = TruthTask()
    assert (
        task.prompt("  A dog is an animal. ", PlainModel())
        == "Is the following statement True or False? A dog is an animal."
    )
    assert task.prompt("A dog is an animal.", PlainModel(chat=True)) == (
        "<user>Is the following statement True or False? Answer only True or False. A dog is an animal.</user><assistant>"
    )


def test_fewshot_prompts_are_the_authors_strings():
    task = TruthTask(fewshot=True)
    task.examples = synthetic_truth_items(groups_per_pattern=1)[:2]  # "A X is an animal." True / "... not ..." False
    first, second = (f"{item.sentence} {item.label}" for item in task.examples)
    assert task.prompt("S.", PlainModel()) == f"Is the following statement True or False?{first}\n{second}\n\nS. "
    encoder_decoder = PlainModel()
    encoder_decoder.is_encoder_decoder = True
    assert task.prompt("S.", encoder_decoder) == f"Is the following statement True or False?{first}\n{second}\n\nS."
    assert task.prompt("S.", PlainModel(chat=True)) == (
        "<user>Is the following statement True or False? Answer only True or False.\nHere are some examples:\n"
        f"{first}\n{second}\n\nS.</user><assistant>"
    )


def test_fewshot_examples_four_cells_per_pattern_seeded():
    train = synthetic_truth_items(groups_per_pattern=4, patterns=(1, 2, 5, 7))
    examples = draw_fewshot_examples(train, seed=3)
    assert len(examples) == 16
    for start in range(0, 16, 4):
        block = examples[start : start + 4]
        assert len({item.group_key for item in block}) == 1
        assert [(item.is_distractor, item.is_negated) for item in block] == [
            (False, False),
            (False, True),
            (True, True),
            (True, False),
        ]
    assert examples == draw_fewshot_examples(train, seed=3)
    assert examples != draw_fewshot_examples(train, seed=4)


def test_requests_per_style():
    item = synthetic_truth_items(groups_per_pattern=1)[0]
    model = PlainModel()
    prompt = f"Is the following statement True or False? {item.sentence}"
    assert TruthTask().requests([item], model) == [(NextTokenRequest(prompt, ("True", "False")),)]
    assert TruthTask(style="generate").requests([item], model) == [(GenerateRequest(prompt, 5),)]
    assert TruthTask(style="continuation").requests([item], model) == [
        (LoglikelihoodRequest(prompt, " True"), LoglikelihoodRequest(prompt, " False"))
    ]
    chat = TruthTask(style="continuation").requests([item], PlainModel(chat=True))[0]
    assert chat[0].continuation == "True"  # no space after a chat template's generation prompt
    with pytest.raises(NegkitError, match="no chat template"):
        TruthTask(chat=True).prompt("x", model)


def test_records_and_probability():
    assert true_probability(math.log(0.3), math.log(0.1)) == pytest.approx(0.75)
    assert true_probability(-math.inf, -math.inf) == 0.5
    assert true_probability(-math.inf, -1.0) == 0.0
    items = synthetic_truth_items(groups_per_pattern=1)[:3]
    records = TruthTask().records(
        items, [({"True": -1.0, "False": -2.0},), ({"True": -2.0, "False": -1.0},), ({"True": -1.0, "False": -1.0},)]
    )
    assert [record["prediction"] for record in records] == [True, False, False]  # p > 0.5, not >=
    assert records[0]["p_true"] == pytest.approx(1 / (1 + math.exp(-1)))
    assert records[0]["test_id"] == items[0].group_id and "isDistractor" in records[0]
    generated = TruthTask(style="generate").records(items[:2], [("TRUE.",), ("It is false",)])
    assert [record["prediction"] for record in generated] == [True, False]
    continuation = TruthTask(style="continuation").records(
        items[:1], [(LoglikelihoodResult(-3.0, False, 1), LoglikelihoodResult(-1.0, True, 1))]
    )
    assert continuation[0]["prediction"] is False


def test_seeded_fewshot_option(tiny_setup, tmp_path):
    model, data = tiny_setup
    out = tmp_path / "run"
    assert (
        main(
            [
                "eval",
                "--model",
                f"hf:{model}",
                "--tasks",
                "tind-fewshot",
                "--fewshot-examples",
                "seeded",
                "--data",
                str(data),
                "--out",
                str(out),
                "--limit",
                "8",
                "--no-progress",
                "--seed",
                "1",
            ]
        )
        == 0
    )
    result = json.loads((out / "tind-fewshot.results.json").read_text())
    assert len(result["task"]["fewshot_examples"]) == 12  # 4 per pattern, 3 patterns of the training file
    assert (
        result["task"]["fewshot_source"] == "seeded"
        and result["task"]["prompt_id"] == "tind/fewshot-seeded/first-token"
    )
    assert "--fewshot-examples seeded" in json.dumps(result)
    # the flag does not apply to zero-shot TIND: an error before any model loads
    assert (
        main(
            [
                "eval",
                "--model",
                f"hf:{model}",
                "--tasks",
                "tind",
                "--fewshot-examples",
                "seeded",
                "--data",
                str(data),
                "--out",
                str(tmp_path / "other"),
                "--no-progress",
            ]
        )
        == 2
    )
    with pytest.raises(NegkitError, match="few-shot example source"):
        TruthTask(fewshot=True, fewshot_examples="random")


def test_authors_fewshot_list():
    examples = authors_fewshot_examples()
    assert len(examples) == 44
    # four per pattern, patterns 1..11 in order
    assert [item.pattern_id for item in examples] == [p for p in range(1, 12) for _ in range(4)]
    # the authors' order per pattern: #01 input aff, input neg, distractor neg, distractor aff; #02 starts negative
    cells = lambda p: [(i.is_distractor, i.is_negated, i.label) for i in examples if i.pattern_id == p]  # noqa: E731
    assert cells(1) == [(False, False, True), (False, True, False), (True, True, True), (True, False, False)]
    assert cells(2) == [(False, True, True), (False, False, False), (True, True, True), (True, False, False)]
    # every example's label is the truth table's value for its cell
    from negkit.benchmarks.tind.types import expected_label

    assert all(i.label == expected_label(i.pattern_id, i.is_distractor, i.is_negated) for i in examples)
    # the block equals the authors' get_few_shot() string (pinned by hash: the sentences stay encrypted here)
    import hashlib

    assert hashlib.sha256(fewshot_block(examples).encode()).hexdigest() == (
        "aeb26b367bc3a1a40c2c1500e2f403d33aaa8b57a13b438d6786fcd94607a991"
    )
    # the encrypted file holds no readable sentence
    from negkit.benchmarks.tind.fewshot import AUTHORS_FILE

    assert examples[0].sentence.split()[1] not in AUTHORS_FILE.read_text()


def test_authors_fewshot_examples_agree_with_the_public_half():
    """23 of the 44 examples are sentences of raw-public.zip: same template, label and distractor flag there."""
    from tind_support import public_groups

    by_sentence = {item.sentence.strip(): item for group in public_groups() for item in group.items}
    found = [
        (example, by_sentence[example.sentence])
        for example in authors_fewshot_examples()
        if example.sentence in by_sentence
    ]
    assert len(found) == 23
    for example, item in found:
        assert (example.pattern_id, example.template_id, example.is_distractor, example.label) == (
            item.pattern_id,
            item.template_id,
            item.is_distractor,
            item.label,
        )


def test_limit_takes_whole_groups_of_every_pattern_deterministically():
    items = synthetic_truth_items(groups_per_pattern=10, patterns=(1, 2, 5))  # 240 items, 30 groups
    sample = sample_groups(items, 48, seed=1)
    groups = {item.group_key for item in sample}
    assert len(sample) == 48 and len(groups) == 6
    assert {pattern for pattern, _ in groups} == {1, 2, 5}
    for key in groups:  # whole groups
        assert sum(item.group_key == key for item in sample) == 8
    assert sample == sample_groups(items, 48, seed=1)
    assert groups != {item.group_key for item in sample_groups(items, 48, seed=2)}
    assert sample_groups(items, 1000, seed=1) == items
    # a limit smaller than one group per pattern still covers every pattern with a whole group
    tiny = sample_groups(items, 1, seed=1)
    assert {item.pattern_id for item in tiny} == {1, 2, 5} and len(tiny) == 24


def test_registry():
    assert {"tind", "tind-fewshot", "tind-generate", "tind-continuation"} <= set(registered_tasks())
    assert get_task("tind-fewshot").fewshot
    with pytest.raises(NegkitError, match="unknown task 'nope'; known tasks: .*tind"):
        get_task("nope")


@pytest.fixture(scope="module")
def tiny_setup(tmp_path_factory):
    model = save_tiny_causal(tmp_path_factory.mktemp("model"))
    data = tmp_path_factory.mktemp("data")
    items = synthetic_truth_items(groups_per_pattern=2)
    write_tind_jsonl(items, data / "test.jsonl", extended=True)
    write_tind_jsonl(items, data / "train.jsonl", extended=True)
    return model, data


def test_negkit_eval_end_to_end(tiny_setup, tmp_path, capsys):
    model, data = tiny_setup
    out = tmp_path / "run"
    argv = [
        "eval",
        "--model",
        f"hf:{model}",
        "--tasks",
        "tind,tind-fewshot",
        "--data",
        str(data),
        "--out",
        str(out),
        "--batch-size",
        "4",
        "--no-progress",
        "--seed",
        "1",
    ]
    assert main(argv) == 0
    result = json.loads((out / "tind.results.json").read_text())
    assert result["model"]["sha256"] and result["model"]["dtype"] == "float32" and result["mode"] == "exact"
    assert result["task"]["prompt_id"] == "tind/zeroshot/first-token" and result["chat_template"] is True
    assert result["data"]["files"]["test.jsonl"]["sha256"] and result["seed"] == 1
    assert result["data"]["root"] == str(data.resolve())
    assert result["requests"]["computed"] == result["requests"]["unique"]
    assert result["command"].startswith(f"negkit eval --model hf:{model} --tasks tind,tind-fewshot --split test")
    assert "all" in result["metrics"]
    samples = [json.loads(line) for line in (out / "tind.samples.jsonl").read_text().splitlines()]
    assert len(samples) == 48 and all(0 <= s["p_true"] <= 1 for s in samples)
    assert "Coherence and accuracy" in (out / "tind.md").read_text()
    fewshot = json.loads((out / "tind-fewshot.results.json").read_text())
    assert len(fewshot["task"]["fewshot_examples"]) == 44 and fewshot["task"]["fewshot_source"] == "authors"
    assert fewshot["task"]["prompt_id"] == "tind/fewshot-44/first-token"
    # the same command again answers everything from the run store
    assert main(argv) == 0
    again = json.loads((out / "tind.results.json").read_text())
    assert again["requests"]["computed"] == 0 and again["metrics"] == result["metrics"]
    # the resumed run keeps the first run's timings beside its own
    assert [run["requests_computed"] for run in again["timings"]["runs"]] == [result["requests"]["computed"], 0]
    assert again["timings"]["runs"][0] == {
        key: value for key, value in result["timings"].items() if key not in ("runs", "total_score_s")
    }
    # negkit score tind re-scores the per-sample file to the same metrics
    capsys.readouterr()
    assert main(["score", "tind", str(out / "tind.samples.jsonl"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["all"] == result["metrics"]["all"]


def test_negkit_eval_errors_and_list(tiny_setup, capsys):
    model, data = tiny_setup
    assert main(["eval", "--model", f"hf:{model}", "--tasks", "tind", "--mode", "exact", "--dtype", "bfloat16"]) == 2
    assert "exact mode runs in float32" in capsys.readouterr().err
    assert main(["eval", "--list", "--data", str(data.parent)]) == 0
    assert "tind-fewshot" in capsys.readouterr().out
    assert main(["eval", "--tasks", "tind", "--batch-size", "zero"]) == 2


def test_model_spec_errors():
    from negkit.models.registry import load_model

    with pytest.raises(NegkitError, match="unknown model spec 'llama:x'"):
        load_model("llama:x")
    with pytest.raises(NegkitError, match="model.gguf: no such GGUF file"):
        load_model("gguf:/nonexistent/model.gguf")
