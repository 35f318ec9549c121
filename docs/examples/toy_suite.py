"""A toy negation benchmark in one file (docs/suites.md). ``negkit eval --include docs/examples/toy_suite.py
--tasks toy-negation --data DATA`` reads DATA/toy-negation/questions.jsonl, one question per line:
``{"id": "q1", "question": "The cup is not full. Is the cup full?", "answers": ["yes", "no"], "gold": 1}``."""

from typing import Annotated

from negkit.kit.data.rows import Choices, DataRow, Text, index_of, rows_reader
from negkit.kit.suites import ChoiceQuestion, DataSource, MultipleChoice, declared_suite, register_suite

NAME, FILE = "toy-negation", "questions.jsonl"


class Question(DataRow):
    id: str
    question: Text
    answers: Choices
    gold: Annotated[int, index_of("answers")]

    def to_question(self) -> ChoiceQuestion:
        return ChoiceQuestion(self.id, f"Question: {self.question}\nAnswer:", self.answers, self.gold)


TOY = MultipleChoice(NAME, rows_reader(FILE, Question, Question.to_question), title="Toy negation questions")
SOURCE = DataSource(NAME, f"write DATA/{NAME}/{FILE} (one question per line)", licence="CC0")
register_suite(declared_suite(TOY, SOURCE, description="yes/no questions about negated sentences"))
