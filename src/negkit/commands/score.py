"""Scoring a predictions file made elsewhere: the library behind ``negkit score SUITE PREDICTIONS``.

A suite's main task scores it through the one path (:func:`score_task`): ``Task.predictions(path, items)`` reads
the file as records in ``negkit eval``'s own shape, and the task's own metrics, intervals and tables follow
(:mod:`negkit.kit.scoring`). A task may say more, each optional: ``task_for_predictions(path)`` (the suite's task
that scores this file, e.g. the one whose items it names), ``predictions_hold_items`` (the file holds its items: no
data set is read), ``scored_items(data)`` (the items a predictions file may name, a list or ``{split: items}``;
default: the ``test`` split's) and ``scored_metrics(metrics, name, items)`` (what ``negkit score`` reports; default:
the metrics with ``data_count``, the items of the splits predicted, and ``source``, the run's name). Bad input
raises :class:`negkit.errors.InputFormatError` naming file, line and field. :func:`score_predictions` checks a
``negkit eval`` samples file against its results file, then scores it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from negkit.errors import InputFormatError, NegkitError, quoted
from negkit.io.textfiles import iter_jsonl
from negkit.kit.metrics.intervals import IntervalSettings
from negkit.kit.scoring import task_numbers
from negkit.kit.suites import SuiteDescription, SuiteScore, all_suites, get_suite
from negkit.kit.tasks.adapter import adapt
from negkit.runs.files import verify_samples

__all__ = ["SuiteScore", "score_predictions", "score_task", "scored_suites"]


def _main_task(suite: SuiteDescription) -> Any:
    return suite.task(suite.main_task).factory()


def scored_suites() -> list[SuiteDescription]:
    """The suites whose main task reads predictions files (``Task.predictions``)."""
    return [suite for suite in all_suites() if adapt(_main_task(suite)).reads_predictions]


def score_task(
    task: Any,
    path: Path,
    name: str = "predictions",
    data: str | None = None,
    intervals: IntervalSettings | None = IntervalSettings(),
    split: str = "test",
) -> SuiteScore:
    """The one path: the predictions file as records in ``negkit eval``'s shape (``task.predictions``), then the
    task's own metrics, intervals and tables (:func:`negkit.kit.scoring.task_numbers`) over the items predicted
    (the task's optional hooks: see the module documentation)."""
    path = Path(path)
    adapter = adapt(task).for_predictions(path)
    task = adapter.task
    count: int | None = None
    if adapter.predictions_hold_items:  # the file holds its items: no data set to read
        records = task.predictions(path, None)
        items = chosen = adapter.items_from_records(records, path)
    else:
        splits = adapter.scored_items(data, split)
        items = [item for split_items in splits.values() for item in split_items]
        records = task.predictions(path, items)
        check_gold_against_data(path, records)
        predicted = {str(record["item_id"]) for record in records}
        chosen = [item for item in items if item.item_id in predicted]
        # the data set's size: the items of the splits the predictions come from
        count = sum(
            len(split_items)
            for split_items in splits.values()
            if any(item.item_id in predicted for item in split_items)
        )
    metrics = task_numbers(task, chosen, records, intervals)
    scored = adapter.scored_metrics(metrics, name, items)
    if scored is not None:
        metrics = scored
    else:
        metrics |= ({} if count is None else {"data_count": count}) | {"source": name}
    if "intervals" in metrics:  # last, as negkit eval writes them
        metrics["intervals"] = metrics.pop("intervals")
    return SuiteScore(metrics, task.tables(metrics))


def check_gold_against_data(path: Path, records: Sequence[Mapping[str, Any]]) -> None:
    """An :class:`InputFormatError` when a JSON Lines predictions file that holds gold answers (a ``negkit eval``
    samples file) disagrees with the data's gold answer for an item: it was made on other data, and scoring it
    against this data would give another number without a word."""
    if path.suffix != ".jsonl" or not records or "gold" not in records[0]:
        return
    expected = {str(record["item_id"]): record["gold"] for record in records}
    for line, written in iter_jsonl(path):
        if not isinstance(written, dict) or "gold" not in written or str(written.get("item_id")) not in expected:
            continue
        data_gold = expected[str(written["item_id"])]
        if written["gold"] != data_gold:
            raise InputFormatError(
                path,
                line,
                f"item {written['item_id']!r}: the file's gold answer "
                f"{quoted(written['gold'])} is not the data's {quoted(data_gold)} (made on other "
                "data? give the data it was made on with --data)",
            )


def score_predictions(
    suite: str,
    path: str | Path,
    name: str = "predictions",
    data: str | None = None,
    intervals: IntervalSettings | None = IntervalSettings(),
) -> SuiteScore:
    """Score the predictions file ``path`` with ``suite``'s main task (``data``: the data set its items come from;
    ``intervals``: the bootstrap of the 95% intervals, None for none)."""
    description = get_suite(suite)
    task = _main_task(description)
    if not adapt(task).reads_predictions:
        raise NegkitError(
            f"suite {description.name} reads no predictions file "
            f"(suites that do: {', '.join(s.name for s in scored_suites())})"
        )
    verify_samples(path)  # negkit eval's samples file: as long as its results file says
    return score_task(task, Path(path), name, data, intervals)
