"""The parts of a multiple-choice suite (:class:`negkit.tasks.choice.ChoiceTask`) besides its reader: a scorer
of predictions files, the headline estimand rebuilt from per-sample records, a figure and the LM Evaluation
Harness export. With them a suite of one's own is one short file (docs/suites.md, docs/examples/toy_suite.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from negkit.data.locate import locate_dataset
from negkit.data.predictions import field, item_id, read_predictions
from negkit.errors import InputFormatError, quoted
from negkit.io.atomic import atomic_write_jsonl, atomic_write_text
from negkit.metrics.intervals import Estimand, IntervalSettings, intervals_json
from negkit.report import plots
from negkit.report.figures import triple
from negkit.report.harness import harness_task_yaml
from negkit.report.run_records import need
from negkit.report.suite_view import Figure
from negkit.suites.description import HarnessExport, SuiteScore
from negkit.tasks.base import TaskData
from negkit.tasks.choice import ChoiceQuestion, ChoiceReader, choice_estimands, choice_metrics, choice_table


def choice_scorer(folder: str, read: ChoiceReader, split: str = "test") -> Callable[..., SuiteScore]:
    """A scorer of predictions files ``{"item_id": ..., "prediction": INDEX or ANSWER}`` for the questions ``read``
    finds in the data set folder ``folder``."""

    def score(path: Path, name: str = "predictions", data: str | None = None,
              intervals: IntervalSettings | None = IntervalSettings()) -> SuiteScore:
        questions = {question.item_id: question for question in read(locate_dataset(folder, data), split)}

        def index_of(line: int, record: Mapping[str, Any]) -> int:
            question = questions[item_id(path, line, record)]
            value = field(path, line, record, "prediction")
            if isinstance(value, str) and value in question.choices:
                return question.choices.index(value)
            if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(question.choices):
                return value
            raise InputFormatError(path, line, f"field 'prediction': {quoted(value)} is not one of "
                                   f"{list(question.choices)} or an index")

        predicted = read_predictions(path, set(questions), lambda line, record: item_id(path, line, record), index_of)
        records = [{"item_id": key, "unit": questions[key].unit or key, "correct": value == questions[key].gold}
                   for key, value in predicted.items()]
        metrics = choice_metrics(records) | {"data_count": len(questions), "source": name}
        if intervals is not None:
            metrics["intervals"] = intervals_json(choice_estimands(records), intervals)
        return SuiteScore(metrics, choice_table(folder, metrics))

    return score


def choice_estimands_from_records(records: Sequence[dict[str, Any]], path: Path) -> list[Estimand]:
    """The accuracy's estimand from ``negkit eval``'s records (``correct``; a missing field names the file)."""
    checked = [{"item_id": record["item_id"], "unit": record.get("unit", record["item_id"]),
                "correct": need(record, "correct", path, number, bool)} for number, record in enumerate(records, 1)]
    return choice_estimands(checked)


def choice_figures(metrics: dict[str, Any], records: Sequence[dict[str, Any]] | None = None) -> list[Figure]:
    """The accuracy with its 95% interval."""
    bars = plots.interval_bars(["accuracy"], {"accuracy": [triple(metrics, "accuracy")]}, "accuracy", "accuracy", (0, 1))
    return [("Accuracy (95% interval)", bars)]


def choice_harness(task_name: str, harness_task: str | None = None) -> HarnessExport:
    """The Harness export of the :class:`ChoiceTask` ``task_name``: its questions (prompt, answers, gold index)
    and one YAML file ``HARNESS_TASK.yaml`` (default: ``negkit_`` and the task name); ``utils.py`` gets a loader
    ``load_HARNESS_TASK``."""
    harness_task = harness_task or "negkit_" + "".join(c if c.isalnum() else "_" for c in task_name)
    loader = f"load_{harness_task}"

    def write(task: Any, loaded: TaskData, out: Path, data: str | None, names: tuple[str, ...]) -> dict[str, Any]:
        questions: list[ChoiceQuestion] = loaded.items
        docs = [{"item_id": q.item_id, "prompt": q.prompt, "choices": list(q.choices), "gold": q.gold} for q in questions]
        atomic_write_jsonl(out / f"{harness_task}.test.jsonl", docs)
        atomic_write_text(out / f"{harness_task}.yaml", harness_task_yaml(
            harness_task, loader, "prompt", "choices", "gold", task.delimiter,
            f"{task.name}: the answers scored after the prompt (arg-max)."))
        return {"docs": {"test": f"{harness_task}.test.jsonl"}}

    return HarnessExport((harness_task,), write, loaders={loader: task_name})
