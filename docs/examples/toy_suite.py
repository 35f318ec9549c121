"""A toy negation benchmark in one file (docs/suites.md). ``negkit eval --include docs/examples/toy_suite.py
--tasks toy-negation --data DATA`` reads DATA/toy-negation/questions.jsonl, one question per line:
``{"id": "q1", "question": "The cup is not full. Is the cup full?", "answers": ["yes", "no"], "gold": 1}``.
"""

from __future__ import annotations

from pathlib import Path

from negkit.errors import InputFormatError
from negkit.io.textfiles import iter_jsonl
from negkit.kit.suites import DataSource, register_suite
from negkit.kit.suites.kinds import choice_suite
from negkit.kit.tasks.choice import ChoiceQuestion, MultipleChoice

NAME, FILE = "toy-negation", "questions.jsonl"


def read_questions(folder: Path, split: str = "test") -> list[ChoiceQuestion]:
    """Every question of the file; a bad line is an error naming the file and the line."""
    questions = []
    for line, record in iter_jsonl(folder / FILE):
        if not isinstance(record, dict) or not {"id", "question", "answers", "gold"} <= set(record):
            raise InputFormatError(folder / FILE, line, "expected an object with id, question, answers and gold")
        prompt, answers = f"Question: {record['question']}\nAnswer:", tuple(record["answers"])
        questions.append(ChoiceQuestion(str(record["id"]), prompt, answers, int(record["gold"])))
    return questions


TOY = MultipleChoice(NAME, read_questions, lambda folder, split: [folder / FILE], title="Toy negation questions")
SOURCE = DataSource(NAME, f"write DATA/{NAME}/{FILE} (one question per line)", licence="CC0")
register_suite(choice_suite(TOY, SOURCE, description="yes/no questions about negated sentences", reader=read_questions))
