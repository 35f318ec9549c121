"""``negkit export lm-eval`` for the benchmarks of issue 28: on a slice of the real data, the exported YAML files and
documents ask exactly negkit's items (same prompts, same answers as continuations, same gold); the suites the Harness
cannot express are refused with the reason. Checked without the Harness; with ``lm_eval`` importable, its own
requests for the documents are negkit's."""

from __future__ import annotations

import json

import pytest
from test_export_lm_eval import SHARED, load_utils, read_yaml

from negkit.cli import main
from negkit.commands.export import export_lm_eval, harness_names
from negkit.errors import NegkitError
from negkit.kit.suites import get_task
from negkit.models.base import NextTokenRequest

pytest.importorskip("datasets")

#: Multiple-choice tasks (one Harness task each) and paired tasks (one Harness task per part).
CHOICE = ("neqa-full", "llm-neg-bench-sar", "semantoneg", "konubench-boolq-neg")
PAIRED = (
    "neqa-full-decomposition",
    "truth-negation",
    "negated-prompts",
    *(f"negation-minimal-pairs-{language}" for language in ("en", "de", "fr", "bg", "zh", "mnli")),
    *(f"becel-negation-{task}" for task in ("boolq", "mrpc", "rte", "snli", "wic")),
    "konubench-kmmlu",
)
LIMIT = 12


def _export(tmp_path, name, limit=LIMIT):
    folder = get_task(name).dataset
    if not (SHARED / folder).is_dir():
        pytest.skip(f"{folder} not found in ../shared/data")
    out = tmp_path / "export"
    assert (
        main(["export", "lm-eval", "--tasks", name, "--data", str(SHARED), "--limit", str(limit), "--out", str(out)])
        == 0
    )
    manifest = json.loads((out / "negkit_export.json").read_text(encoding="utf-8"))
    task = get_task(name)
    items = task.load(str(SHARED), "test", limit, 0).items
    assert manifest["tasks"][name]["count"] == len(items) > 0
    return out, manifest["tasks"][name], task, items


@pytest.mark.parametrize("name", CHOICE)
def test_choice_exports_ask_negkit_items(tmp_path, name):
    out, entry, task, items = _export(tmp_path, name)
    (harness,) = harness_names()[name]
    config = read_yaml(out / f"{harness}.yaml")
    assert (
        config["output_type"] == "multiple_choice" and config["custom_dataset"] == f"!function utils.load_{harness[7:]}"
    )
    docs = list(getattr(load_utils(out), f"load_{harness[7:]}")()["test"])
    assert [doc["item_id"] for doc in docs] == [item.item_id for item in items]
    for doc, item, requests in zip(docs, items, task.requests(items)):
        assert (doc["prompt"], doc["choices"], doc["gold"]) == (item.prompt, list(item.choices), item.gold)
        assert [(doc[config["doc_to_text"]], config["target_delimiter"] + choice) for choice in doc["choices"]] == [
            (request.context, request.continuation) for request in requests
        ]


@pytest.mark.parametrize("name", PAIRED)
def test_paired_exports_ask_each_part_as_negkit(tmp_path, name):
    out, entry, task, items = _export(tmp_path, name)
    spec = task.spec
    assert list(entry["parts"]) == list(spec.parts)
    assert [n for names in entry["parts"].values() for n in names] == list(harness_names()[name])
    utils = load_utils(out)
    several = any(part.also_right for item in items for part in item.parts.values())
    for position, (part, names) in enumerate(entry["parts"].items()):
        docs = list(getattr(utils, f"load_{names[0][7:]}")()["test"])
        assert [doc["item_id"] for doc in docs] == [item.item_id for item in items]
        for harness in names:
            config = read_yaml(out / f"{harness}.yaml")
            assert config["custom_dataset"] == f"!function utils.load_{names[0][7:]}"
            assert config["target_delimiter"] == "" and config["doc_to_choice"] == "choices"
            chat = harness.endswith("_plain") is False and spec.chat == "auto"
            assert config["doc_to_text"] == ("prompt_chat" if chat else "prompt")
        for doc, item in zip(docs, items):
            question = item.parts[part]
            assert doc["prompt"] == question.prompt and doc["choices"] == list(question.choices)
            assert doc["gold"] == ([question.gold, *question.also_right] if several else question.gold)
            if spec.chat == "auto":
                assert doc["prompt_chat"] == (question.chat_prompt or question.prompt)
        # negkit's own requests (plain prompts): the part's context, and its answers as written after it
        for doc, item, requests in zip(docs, items, task.requests(items)):
            if spec.style == "first-token":
                request = requests[position]
                assert isinstance(request, NextTokenRequest)
                assert (request.context, list(request.candidates)) == (doc["prompt"], doc["choices"])
            else:
                start = sum(len(item.parts[p].choices) for p in spec.parts[:position])
                asked = requests[start : start + len(doc["choices"])]
                assert [(r.context, r.continuation) for r in asked] == [(doc["prompt"], c) for c in doc["choices"]]


def test_negated_prompts_exports_every_right_answer(tmp_path):
    """Negated multiple-choice instructions have several right answers: the Harness's multiple targets."""
    out, entry, task, items = _export(tmp_path, "negated-prompts", limit=40)
    negated = list(load_utils(out).load_negated_prompts_negated()["test"])
    assert any(len(doc["gold"]) > 1 for doc in negated)
    assert all(isinstance(doc["gold"], list) for doc in negated)


def test_konubench_export_asks_the_korean_prompt(tmp_path):
    out, entry, task, items = _export(tmp_path, "konubench")
    config = read_yaml(out / "negkit_konubench.yaml")
    assert config["description"] == task.description(task.prompt) and "부정" in config["description"]
    assert config["target_delimiter"] == " " and [m["metric"] for m in config["metric_list"]] == ["acc", "acc_norm"]
    text = (out / "negkit_konubench.test.jsonl").read_text(encoding="utf-8")
    assert "원문:" in text  # UTF-8, not escaped
    docs = list(load_utils(out).load_konubench()["test"])
    assert [doc["item_id"] for doc in docs] == [item.item_id for item in items]
    for doc, item, requests in zip(docs, items, task.requests(items)):
        assert doc["gold"] == 0 and doc["choices"] == list(item.candidates)
        assert [(config["description"] + doc["prompt"], " " + c) for c in doc["choices"]] == [
            (r.context, r.continuation) for r in requests
        ]


def test_konubench_fewshot_export_writes_the_validation_pool(tmp_path):
    if not (SHARED / "konubench").is_dir():
        pytest.skip("konubench not found in ../shared/data")
    out = tmp_path / "export"
    export_lm_eval(["konubench"], out, data=str(SHARED), limit=3, num_fewshot=2)
    config = read_yaml(out / "negkit_konubench.yaml")
    assert config["num_fewshot"] == 2 and config["fewshot_split"] == "validation"
    pool = list(load_utils(out).load_konubench()["validation"])
    task = get_task("konubench", num_fewshot=2)
    task.load(str(SHARED), "test", 3, 0)
    assert [doc["item_id"] for doc in pool] == [item.item_id for item in task.pool]


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("negated-lama", "ranking over a vocabulary"),
        ("neg-136", "ranking over a vocabulary"),
        ("llm-neg-bench-mkrnq", "first content word of a greedy continuation"),
        ("llm-neg-bench-mwr", "first content word of a greedy continuation"),
    ],
)
def test_unexpressible_tasks_are_refused_with_the_reason(tmp_path, capsys, name, why):
    with pytest.raises(NegkitError, match=f"cannot export {name} .*{why}"):
        export_lm_eval([name], tmp_path / "x")
    assert main(["export", "lm-eval", "--tasks", name, "--out", str(tmp_path / "y")]) == 2
    assert why in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_a_suite_name_stands_for_its_exported_tasks():
    from negkit.commands.export import export_task_names

    assert export_task_names(["llm-neg-bench"]) == ["llm-neg-bench-sar"]
    assert export_task_names(["becel-negation"]) == [
        f"becel-negation-{t}" for t in ("boolq", "mrpc", "rte", "snli", "wic")
    ]
    assert len(export_task_names(["negation-minimal-pairs"])) == 6
    assert export_task_names(["konubench"]) == ["konubench"]  # a task's name: the main task only


@pytest.mark.parametrize(
    ("name", "harness"), [("semantoneg", "negkit_semantoneg"), ("negated-prompts", "negkit_negated_prompts_original")]
)
def test_the_harness_asks_negkit_requests(tmp_path, name, harness):
    """With the Harness importable, its own requests for the exported documents are negkit's."""
    pytest.importorskip("lm_eval", reason="the LM Evaluation Harness (lm_eval) is not installed")
    from lm_eval.tasks import TaskManager

    if not (SHARED / get_task(name).dataset).is_dir():
        pytest.skip(f"{get_task(name).dataset} not found in ../shared/data")
    out = tmp_path / "export"
    export_lm_eval([name], out, data=str(SHARED), limit=5)
    task = TaskManager(include_path=str(out)).load([harness])["tasks"][harness]
    negkit = get_task(name)
    items = negkit.load(str(SHARED), "test", 5, 0).items
    asked = [
        [i.arguments for i in task.construct_requests(doc, task.doc_to_text(doc), metadata=(harness, 0, 1))]
        for doc in task.test_docs()
    ]
    expected = [[(r.context, r.continuation) for r in requests] for requests in negkit.requests(items)]
    if name == "negated-prompts":  # the original part: the first answers of each item's requests
        expected = [rows[: len(item.parts["original"].choices)] for rows, item in zip(expected, items)]
    assert asked == expected
