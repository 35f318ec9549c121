"""Declared NLI tasks: ScoNe, NaN-NLI, MNLI-neg, NegNLI, MoNLI and JNLI-Neg are NLIQuestions declarations run by
NLITask (no benchmark subclasses it, nor any other kit task class), and a declaration's own options, item filter,
limit rule and labels work as stated."""

from __future__ import annotations

import importlib
import inspect
import json
import pkgutil

import pytest

import negkit.benchmarks
import negkit.kit.tasks
from negkit.benchmarks import jnli_neg, monli
from negkit.errors import InputFormatError, NegkitError
from negkit.kit.data.nli import NLIItem
from negkit.kit.suites import get_suite, get_task
from negkit.kit.suites.nli import nli_entry
from negkit.kit.tasks.choice import ChoiceTask
from negkit.kit.tasks.negation_choice import NegationChoiceTask
from negkit.kit.tasks.nli_declared import NLIQuestions, NLITask, TaskOption, neutral_for_contradiction
from negkit.kit.tasks.pairs import PairTask

DECLARED_SUITES = ("scone", "nan-nli", "mnli-neg", "negnli", "monli", "jnli-neg")


@pytest.mark.parametrize("suite", DECLARED_SUITES)
def test_the_suites_tasks_are_built_from_declarations(suite):
    for entry in get_suite(suite).tasks:
        for kind in ("language_model", "classifier"):
            task = get_task(entry.name, model_kind=kind)
            assert type(task) is NLITask and isinstance(task.spec, NLIQuestions)
            assert task.spec.name == task.name == entry.name and entry.classifier


def _classes_of(package):
    """The classes defined in the modules of ``package``."""
    for module_info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
        module = importlib.import_module(module_info.name)
        yield from (
            value for _name, value in inspect.getmembers(module, inspect.isclass) if value.__module__ == module.__name__
        )


def _kit_task_classes():
    """The kit's task classes: those that load items and ask a model (the protocol itself left out)."""
    return [
        cls
        for cls in _classes_of(negkit.kit.tasks)
        if inspect.isfunction(getattr(cls, "load", None))
        and inspect.isfunction(getattr(cls, "requests", None))
        and not getattr(cls, "_is_protocol", False)
    ]


def test_no_benchmark_subclasses_a_kit_task_class():
    """A benchmark declares its tasks (or, for a protocol of its own, writes a task class of its own); no class in
    negkit.benchmarks subclasses one of the kit's task classes (NLITask, ChoiceTask, PairTask, ...)."""
    kit_tasks = _kit_task_classes()
    assert {NLITask, ChoiceTask, PairTask, NegationChoiceTask} <= set(kit_tasks)
    subclasses = [
        f"{cls.__module__}.{cls.__qualname__} ({base.__name__})"
        for cls in _classes_of(negkit.benchmarks)
        for base in kit_tasks
        if issubclass(cls, base)
    ]
    assert not subclasses


@pytest.mark.parametrize("module", (monli, jnli_neg))
def test_condition_suites_are_declared(module):
    """MoNLI and JNLI-Neg are declarations scored by condition (their ``BY_CONDITION``); JNLI-Neg reads its
    validation split under the names test, valid and dev."""
    task = get_task(module.SUITE.main_task)
    scored = module.BY_CONDITION
    assert (task.spec.metrics, task.spec.estimands, task.spec.tables) == (
        scored.metrics,
        scored.estimands,
        scored.tables,
    )
    assert (task.spec.limit, task.spec.unit, task.spec.headline) == (scored.limit, scored.unit, scored.headline)
    assert task.normalize_split("dev") == ("validation" if module is jnli_neg else "dev")


def _items(folder, split):
    return [
        NLIItem(f"p-{n}", f"premise {n}", f"hypothesis {n}", label, "toy", condition=condition, row=n)
        for n, (label, condition) in enumerate(
            [("entailment", "a"), ("contradiction", "b"), ("neutral", "a"), ("entailment", "b")]
        )
    ]


TOY = NLIQuestions(
    "toy-nli",
    _items,
    lambda folder, split: [folder / "toy.jsonl"],
    prompt="{premise} => {hypothesis}?",
    answers={"yes": "entailment", "no": "neutral"},
    metrics=lambda items, predicted: {"count": len(items), "predicted": list(predicted)},
    estimands=lambda items, predicted, headline_only: [],
    tables=lambda metrics: f"{metrics['count']} pairs\n",
    labels=("entailment", "neutral"),
    fit_label=neutral_for_contradiction,
    options=(TaskOption("only", "all", lambda value: value, lambda value: None if value == "all" else value),),
    keep=lambda item, options: options["only"] in ("all", item.condition),
    limit=lambda items, limit, options: items[-limit:],
    protocol={"labels": ["entailment", "neutral"]},
)


def test_a_declarations_options_filter_limit_and_config(tmp_path):
    (tmp_path / "toy-nli").mkdir()
    task = TOY.task()
    assert task.config()["labels"] == ["entailment", "neutral"] and "only" not in task.config()
    assert [item.item_id for item in task.load(tmp_path, "test", None, 0).items] == ["p-0", "p-1", "p-2", "p-3"]
    only_b = TOY.task(only="b")
    assert only_b.config()["only"] == "b" and only_b.accepts == {"chat", "system_instruction", "only"}
    assert [item.item_id for item in only_b.load(tmp_path, "test", 1, 0).items] == ["p-3"]
    assert TOY.task(model_kind="classifier").accepts == {"only"}
    assert nli_entry(TOY).accepts == {"chat", "system_instruction", "only"} and nli_entry(TOY).classifier
    with pytest.raises(NegkitError, match="toy-nli: no task option other"):
        TOY.task(other=1)


def test_labels_are_fitted_and_a_two_label_classifier_is_read_under_the_declared_labels():
    pytest.importorskip("torch")
    items = _items(None, "test")[:2]
    assert TOY.task().gold_choice(items[1]) == 1  # a contradiction is "no" (neutral)
    classifier = TOY.task(model_kind="classifier")
    records = classifier.records(items, [({"ENTAILMENT": 0.2, "NEUTRAL": 0.8},), ({"entail": 0.9, "neutral": 0.1},)])
    assert [record["prediction"] for record in records] == ["neutral", "entailment"]
    three_way = classifier.records(items[:1], [({"entailment": 0.1, "neutral": 0.2, "contradiction": 0.7},)])
    assert three_way[0]["prediction"] == "neutral"
    assert classifier.answer_space(items).answers == {"entailment": "entailment", "neutral": "neutral"}


def test_negnli_predictions_pick_their_files_task(tmp_path):
    task = get_task("negnli-mnli")
    path = tmp_path / "predictions.jsonl"
    path.write_text(json.dumps({"item_id": "negnli-rte-3", "prediction": "yes"}) + "\n")
    rte = task.task_for_predictions(path)
    assert (
        type(rte) is NLITask and rte.name == "negnli-rte" and rte.config()["labels"] == ["entailment", "not_entailment"]
    )
    path.write_text(json.dumps({"item_id": "negnli-mnli-3", "prediction": "neutral"}) + "\n")
    assert task.task_for_predictions(path) is task
    path.write_text(
        "".join(json.dumps({"item_id": f"negnli-{s}-1", "prediction": "neutral"}) + "\n" for s in ("rte", "snli"))
    )
    with pytest.raises(InputFormatError, match="found rte, snli: score each file apart"):
        task.task_for_predictions(path)
