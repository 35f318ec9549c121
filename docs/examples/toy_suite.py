"""A toy negation benchmark in one file (docs/suites.md). ``negkit eval --include docs/examples/toy_suite.py
--tasks toy-negation --data DATA`` reads DATA/toy-negation/questions.jsonl, one question per line:
``{"id": "q1", "question": "The cup is not full. Is the cup full?", "answers": ["yes", "no"], "gold": 1}``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from negkit.errors import InputFormatError
from negkit.io.textfiles import iter_jsonl
from negkit.suites import DataSource, SuiteDescription, TaskEntry, register_suite
from negkit.suites.choice import choice_estimands_from_records, choice_figures, choice_harness, choice_scorer
from negkit.tasks.choice import ChoiceQuestion, ChoiceTask, choice_metrics

NAME = "toy-negation"
FILE = "questions.jsonl"


def read_questions(folder: Path, split: str = "test") -> list[ChoiceQuestion]:
    """Every question of the file; a bad line is an error naming the file and the line."""
    questions = []
    for line, record in iter_jsonl(folder / FILE):
        if not isinstance(record, dict) or not {"id", "question", "answers", "gold"} <= set(record):
            raise InputFormatError(folder / FILE, line, "expected an object with id, question, answers and gold")
        questions.append(ChoiceQuestion(str(record["id"]), f"Question: {record['question']}\nAnswer:",
                                        tuple(record["answers"]), int(record["gold"])))
    return questions


def make_task(**options: Any) -> ChoiceTask:
    """The task, with the options ``negkit eval`` passes (``chat``, ``system_instruction``)."""
    return ChoiceTask(NAME, NAME, read_questions, lambda folder, split: [folder / FILE], **options)


register_suite(SuiteDescription(
    name=NAME,
    title="Toy negation questions",
    tasks=(TaskEntry(NAME, make_task, "yes/no questions about negated sentences"),),
    main_task=NAME,
    data=DataSource(NAME, f"write DATA/{NAME}/{FILE} (one question per line)", licence="CC0"),
    reader=read_questions,
    metrics=choice_metrics,
    scorer=choice_scorer(NAME, read_questions),
    scorer_help="toy-negation: accuracy from {item_id, prediction (index or answer)} lines",
    interval_unit="question",
    primary_metric="accuracy",
    figures=choice_figures,
    record_estimands=choice_estimands_from_records,
    harness=choice_harness(NAME),
))
