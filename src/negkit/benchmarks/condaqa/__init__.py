"""CondaQA (Ravichander et al., 2022): questions about passages with a negation cue and their edits (dev split,
1,110 questions; test split, 7,240: ``--split dev`` or ``--split test``, the same protocol and metrics). Tasks: ``condaqa`` (written answers, exact match: the paper's protocol) and ``condaqa-choice``
(log-likelihood of yes / no / don't know); see :mod:`negkit.benchmarks.condaqa.task`. Reader:
:func:`negkit.benchmarks.condaqa.data.read_condaqa`; metrics: :func:`negkit.benchmarks.condaqa.metrics.condaqa_report`; intervals
resample passages.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from negkit.benchmarks.condaqa.data import DEV_FILE, SPLIT_FILES, TEST_FILE, QAItem, read_condaqa
from negkit.kit.data.locate import locate_dataset
from negkit.kit.data.predictions import field, read_predictions, string
from negkit.errors import InputFormatError, quoted
from negkit.benchmarks.condaqa.metrics import canonical_answer, condaqa_report, is_correct
from negkit.benchmarks.condaqa.intervals import condaqa_estimands
from negkit.kit.metrics.intervals import IntervalSettings, intervals_json
from negkit.kit.render import plots
from negkit.benchmarks.condaqa.tables import condaqa_tables
from negkit.kit.render.figures import triple
from negkit.kit.runs import need
from negkit.kit.view import Figure
from negkit.kit.suites.description import DataSource, SuiteDescription, SuiteScore, TaskEntry
from negkit.kit.suites.registry import register_suite
from negkit.benchmarks.condaqa.task import CondaQATask

NAME = "condaqa"


class CondaQASuiteTask(CondaQATask):
    """:class:`CondaQATask` with the suite's intervals (passages resampled) and tables."""

    dataset = NAME

    def intervals(self, items: Sequence[QAItem], records: Sequence[dict[str, Any]], settings: Any = None) -> dict[str, Any]:
        """95% intervals of accuracy and consistency, resampling passages (:mod:`negkit.benchmarks.condaqa.intervals`)."""
        return intervals_json(condaqa_estimands(records), settings)

    def tables(self, metrics: dict[str, Any]) -> str:
        return condaqa_tables(metrics)


def read_answer_predictions(path: str | Path, item_ids: set[str]) -> dict[str, str]:
    """CondaQA predictions: item id -> the answer text as given (scoring normalises it). Lines are
    ``{"item_id": "condaqa-5294", "prediction": "yes"}`` (or ``{"SampleID": 5294, ...}``); ``negkit eval``'s
    ``condaqa.samples.jsonl`` is read as well."""
    path = Path(path)

    def item_id_of(line: int, record: Mapping[str, Any]) -> str:
        if "item_id" not in record and "SampleID" in record:
            sample = record["SampleID"]
            if isinstance(sample, bool) or not isinstance(sample, (int, str)) or not str(sample).strip().isdigit():
                raise InputFormatError(path, line, f"field 'SampleID': expected an integer, found {quoted(sample, 40)}")
            return f"condaqa-{int(sample)}"
        if "item_id" not in record:
            raise InputFormatError(path, line, "missing field 'item_id' (or 'SampleID')")
        return string(path, line, record, "item_id")

    def answer_of(line: int, record: Mapping[str, Any]) -> str:
        value = field(path, line, record, "prediction")
        if not isinstance(value, str):
            raise InputFormatError(path, line, f"field 'prediction': expected the answer as text, found {quoted(value, 40)}")
        return value

    return read_predictions(path, item_ids, item_id_of, answer_of)


def score_condaqa(path: Path, name: str = "predictions", data: str | None = None,
                  intervals: IntervalSettings | None = IntervalSettings()) -> SuiteScore:
    """CondaQA accuracy and group consistency for the predicted questions (of the dev or the test split: their
    SampleIDs differ; the splits whose file is present are read)."""
    folder = locate_dataset(NAME, data)
    splits = ({split: read_condaqa(folder, split) for split, file in SPLIT_FILES.items()
               if (folder / file).is_file() or split == "dev"} if folder.is_dir() else {"file": read_condaqa(folder)})
    items = [item for split_items in splits.values() for item in split_items]
    predicted = read_answer_predictions(path, {item.item_id for item in items})
    chosen = [item for item in items if item.item_id in predicted]
    # the data set's size: the questions of the splits the predictions come from
    items = [item for split_items in splits.values() if any(item.item_id in predicted for item in split_items)
             for item in split_items]
    answers = [canonical_answer(predicted[item.item_id]) for item in chosen]
    metrics = condaqa_report(chosen, answers)
    metrics |= {"data_count": len(items), "source": name, "style": "predictions"}
    if intervals is not None:
        records = [{"passage_id": item.passage_id, "question_id": item.question_id, "edit": item.edit_name,
                    "correct": is_correct(item, answer)} for item, answer in zip(chosen, answers)]
        metrics["intervals"] = intervals_json(condaqa_estimands(records), intervals)
    return SuiteScore(metrics, condaqa_tables(metrics))


def condaqa_figures(metrics: dict[str, Any], records: Sequence[dict[str, Any]] | None = None) -> list[Figure]:
    """Accuracy per passage edit and group consistency, with intervals."""
    edits = list(metrics.get("accuracy_per_edit", {}))
    accuracy = plots.interval_bars(["all", *edits], {"accuracy": [triple(metrics, "accuracy.accuracy")] + [
        triple(metrics, f"accuracy_per_edit.{edit}.accuracy") for edit in edits]},
        "CondaQA accuracy by passage edit", "accuracy", (0, 1))
    kinds = list(metrics.get("consistency", {}))
    consistency = plots.interval_bars(kinds, {"consistency": [triple(metrics, f"consistency.{k}.accuracy") for k in kinds]},
                                      "CondaQA group consistency", "consistent groups", (0, 1))
    return [("Accuracy overall and per passage edit (95% intervals)", accuracy),
            ("Group consistency: all edits, and the original with each edit (95% intervals)", consistency)]


def _estimands(records: Sequence[dict[str, Any]], path: Path) -> list[Any]:
    """The fields the CondaQA intervals need, checked (a missing one names the file and line)."""
    fields = ("passage_id", "question_id", "edit", "correct")
    return condaqa_estimands([{name: need(record, name, path, number) for name in fields}
                              for number, record in enumerate(records, start=1)])


SUITE = register_suite(SuiteDescription(
    name=NAME,
    title="CondaQA",
    tasks=(
        TaskEntry(NAME, lambda **options: CondaQASuiteTask(name=NAME, **options),
                  "CondaQA: questions about negated statements, written answers scored by exact match"),
        TaskEntry(f"{NAME}-choice", lambda **options: CondaQASuiteTask(name=f"{NAME}-choice", style="choice", **options),
                  "CondaQA: log-likelihood of yes / no / don't know (span answers count as wrong)"),
    ),
    main_task=NAME,
    data=DataSource(NAME, f"github AbhilashaRavichander/CondaQA data/{DEV_FILE} (and {TEST_FILE}, the union of "
                    "data/few-shot/test_splits/conda_fewshot_test_{1..5}.json) into DATA/condaqa/ "
                    "(or the hub data set lasha-nlp/CONDAQA)", licence="Apache-2.0 (the repository's LICENSE)"),
    reader=read_condaqa,
    metrics=condaqa_report,
    scorer=score_condaqa,
    scorer_help="CondaQA: accuracy and group consistency from {item_id or SampleID, prediction (answer text)} lines",
    interval_unit="passage (the original and its edits resampled together)",
    primary_metric="accuracy.accuracy",
    figures=condaqa_figures,
    record_estimands=_estimands,
    order=50,
))
