"""Standard-negation multiple choice is declared (:class:`negkit.kit.tasks.negation_choice.NegationChoice`) and asked
by the one task class, which no benchmark subclasses."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import negkit.benchmarks
from negkit.errors import NegkitError
from negkit.kit.suites import DataSource, declared_suite, get_task
from negkit.kit.tasks.negation_choice import ChoiceItem, NegationChoice, NegationChoiceTask
from negkit.models.base import LoglikelihoodResult


def _benchmark_classes() -> list[type]:
    classes = []
    for module in pkgutil.walk_packages(negkit.benchmarks.__path__, "negkit.benchmarks."):
        loaded = importlib.import_module(module.name)
        classes += [
            value for _, value in inspect.getmembers(loaded, inspect.isclass) if value.__module__ == module.name
        ]
    return classes


def test_no_benchmark_subclasses_the_negation_choice_task():
    classes = _benchmark_classes()
    assert classes, "no benchmark classes found"
    assert [cls.__qualname__ for cls in classes if issubclass(cls, NegationChoiceTask)] == []


@pytest.mark.parametrize("name", ["nubench", "konubench"])
def test_the_benchmarks_are_declarations(name):
    task = get_task(name)
    assert type(task) is NegationChoiceTask and isinstance(task.spec, NegationChoice)
    assert task.spec.name == name and task.prompt == task.spec.default_prompt


ITEMS = [
    ChoiceItem(f"toy-{n}", n, None, f"It rains {n}.", (f"It does not rain {n}.", "", "It shines.", "Rain."), kind, "")
    for n, kind in enumerate(("non-applicable", "relative_part", "relative_part"))
]
TOY = NegationChoice(
    "toy-negation",
    lambda folder, split: list(ITEMS),
    lambda folder, split: [],
    title="Toy negation choice",
    prompts={"plain": "Sentence: {s}\nNegation:"},
    default_prompt="plain",
    descriptions={"plain": "Negate.\n\n"},
    local_types=("relative_part",),
    bos="none",
    locate=lambda data, split: None,
    remote="memory",
)


def test_a_declaration_is_asked_zero_shot_and_few_shot():
    task = TOY.task()
    loaded = task.load(None, "test", None, 0)
    assert loaded.selection["source"] == "memory" and loaded.files == []
    requests = task.requests(loaded.items)
    assert [len(item) for item in requests] == [3, 4, 4]
    assert requests[0][0].context == "Negate.\n\nSentence: It rains 0.\nNegation:"
    assert requests[0][0].continuation == " It does not rain 0." and requests[0][0].add_bos is False
    answers = [[LoglikelihoodResult(-float(k), False, 1) for k in range(len(item))] for item in requests]
    metrics = task.metrics(loaded.items, task.records(loaded.items, answers))
    assert metrics["summary"]["acc"]["mean"] == 1.0 and "Toy negation choice" in task.tables(metrics)
    shots = TOY.task(num_fewshot=1, seeds=(7,))
    shots.load(None, "validation", None, 0)
    assert shots.runs == ["seed-7"] and shots.config()["fewshot_excludes_item"]
    assert all(len(item) in (3, 4) for item in shots.requests(ITEMS))


def test_a_declaration_is_checked():
    with pytest.raises(NegkitError, match="unknown Toy negation choice prompt 'x'"):
        TOY.task(prompt="x")
    with pytest.raises(ValueError, match="default prompt"):
        NegationChoice("bad", lambda folder, split: [], lambda folder, split: [], prompts={"a": "{s}"})


def test_a_declaration_makes_its_suite():
    suite = declared_suite(TOY, DataSource("toy-negation", "hand-written"), title="Toy")
    assert suite.primary_metric == "summary.acc.mean" and suite.interval_unit == TOY.unit
    assert suite.harness is not None and suite.harness.names == ("negkit_toy_negation",)
    assert dict(suite.harness.loaders) == {"load_toy_negation": "toy-negation"}
    (entry,) = suite.tasks
    assert entry.description == "Toy: standard negation as multiple choice by log-likelihood"
    assert type(entry.factory(num_fewshot=2)) is NegationChoiceTask
