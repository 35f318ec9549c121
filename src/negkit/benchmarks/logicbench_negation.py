"""LogicBench (Parmar et al., ACL 2024), its two negation-bearing inference rules: modus tollens ((p -> q) and not q,
hence not p) and destructive dilemma ((p -> q), (r -> s), not q or not s, hence not p or not r), each in
propositional (PL) and first-order logic (FOL); 20 contexts per rule and logic.

Two tasks (``--tasks logicbench-negation`` runs both), multiple choice by log-likelihood
(:mod:`negkit.kit.tasks.choice`), with accuracy per rule and logic (``rules.LOGIC: RULE.acc``):

- ``logicbench-negation-bqa`` (BQA, 240 yes/no questions): ``yes`` and ``no`` scored after
  ``Context: ...\\nQuestion: ...\\nAnswer yes or no.\\nAnswer:``; intervals resample the contexts (the questions of
  one context together). "no" is the right answer of 3 in 4 destructive-dilemma questions: read the answers' shares
  beside the accuracy, and the majority baseline;
- ``logicbench-negation-mcqa`` (MCQA, 80 items): the four options listed as ``A.`` .. ``D.`` after the context and
  question, the letters scored as answers (the MMLU layout), so the answers are the same for every item and the
  constant and majority baselines apply.

Files: ``{BQA,MCQA}/{propositional_logic,first_order_logic}/{modus_tollens,destructive_dilemma}.json``, each one JSON
object ``{"type", "axiom", "samples": [...]}``; BQA samples ``{"id", "context", "qa_pairs": [{"question",
"answer"}]}``, MCQA samples ``{"id", "context", "question", "choices": {"choice_1".."choice_4"}, "answer"}``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, ConfigDict, Field

from negkit.errors import InputFormatError
from negkit.kit.data.rows import DataRow, Text, read_rows
from negkit.kit.suites import DataSource, register_suite
from negkit.kit.suites.description import SuiteDescription, TaskEntry
from negkit.kit.suites.kinds import choice_harness
from negkit.kit.tasks.choice import ChoiceQuestion, MultipleChoice, choice_figures_of

NAME = "logicbench-negation"
LOGICS: dict[str, str] = {"propositional_logic": "PL", "first_order_logic": "FOL"}
RULES: dict[str, str] = {"modus_tollens": "modus tollens", "destructive_dilemma": "destructive dilemma"}
#: The groups accuracy is given for, in order.
GROUPS: tuple[str, ...] = tuple(f"{logic}: {rule}" for logic in LOGICS.values() for rule in RULES.values())
LETTERS = ("A", "B", "C", "D")


def logic_files(folder: str | Path, part: str) -> list[Path]:
    """The four files of ``part`` (BQA or MCQA), PL before FOL, modus tollens before destructive dilemma."""
    return [Path(folder) / part / logic / f"{rule}.json" for logic in LOGICS for rule in RULES]


class Sample(DataRow):
    """A sample of a LogicBench file (texts stripped)."""

    model_config = ConfigDict(str_strip_whitespace=True)

    id: Any = None
    context: Text


class QuestionAnswer(DataRow):
    """A yes/no question of a BQA sample (the answer in any case)."""

    model_config = ConfigDict(str_strip_whitespace=True)

    question: Text
    answer: Annotated[Literal["yes", "no"], BeforeValidator(lambda answer: str(answer).strip().lower())]


class BQASample(Sample):
    qa_pairs: Annotated[list[QuestionAnswer], Field(min_length=1)]


class Options(DataRow):
    """The four options of an MCQA sample (no others)."""

    model_config = ConfigDict(str_strip_whitespace=True, extra="forbid")

    choice_1: Text
    choice_2: Text
    choice_3: Text
    choice_4: Text


class MCQASample(Sample):
    question: Text
    choices: Options
    answer: Literal["choice_1", "choice_2", "choice_3", "choice_4"]


def _samples(path: Path, row_type: type[Sample]) -> Any:
    """``(line, sample)`` of the list ``samples`` of a LogicBench file."""
    if not path.is_file():
        raise InputFormatError(path, None, "no such file (a LogicBench negation file; see the data folder's README)")
    return read_rows(path, row_type, format="json", key="samples")


def read_bqa(folder: str | Path, split: str = "test") -> list[ChoiceQuestion]:
    """The yes/no questions of the four BQA files, one per question, grouped by rule and logic."""
    questions = []
    for path in logic_files(folder, "BQA"):
        logic, rule = LOGICS[path.parent.name], RULES[path.stem]
        for _, sample in _samples(path, BQASample):
            for number, pair in enumerate(sample.qa_pairs):
                prompt = f"Context: {sample.context}\nQuestion: {pair.question}\nAnswer yes or no.\nAnswer:"
                unit = f"{logic}-{path.stem}-{sample.id}"
                fields = {"rule": f"{logic}: {rule}", "answer": pair.answer}
                gold = ("yes", "no").index(pair.answer)
                questions.append(ChoiceQuestion(f"{unit}-{number}", prompt, ("yes", "no"), gold, unit, fields))
    return questions


def read_mcqa(folder: str | Path, split: str = "test") -> list[ChoiceQuestion]:
    """The items of the four MCQA files, their options lettered A to D."""
    questions = []
    for path in logic_files(folder, "MCQA"):
        logic, rule = LOGICS[path.parent.name], RULES[path.stem]
        for _, sample in _samples(path, MCQASample):
            options = [getattr(sample.choices, f"choice_{k}") for k in range(1, 5)]
            lettered = "\n".join(f"{letter}. {option}" for letter, option in zip(LETTERS, options))
            prompt = f"Context: {sample.context}\nQuestion: {sample.question}\n{lettered}\nAnswer:"
            gold = int(sample.answer.removeprefix("choice_")) - 1
            item_id = f"{logic}-{path.stem}-{sample.id}"
            questions.append(ChoiceQuestion(item_id, prompt, LETTERS, gold, None, {"rule": f"{logic}: {rule}"}))
    return questions


BQA = MultipleChoice(
    f"{NAME}-bqa",
    read_bqa,
    lambda folder, split: logic_files(folder, "BQA"),
    title="LogicBench negation, yes/no (BQA)",
    dataset=NAME,
    unit="context",
    group_field="rule",
    groups_key="rules",
    groups=GROUPS,
    protocol={
        "prompt": "Context: {context}\\nQuestion: {question}\\nAnswer yes or no.\\nAnswer:",
        "choices": "yes, no",
    },
)
MCQA = MultipleChoice(
    f"{NAME}-mcqa",
    read_mcqa,
    lambda folder, split: logic_files(folder, "MCQA"),
    title="LogicBench negation, multiple choice (MCQA)",
    dataset=NAME,
    group_field="rule",
    groups_key="rules",
    groups=GROUPS,
    protocol={"prompt": "Context\\nQuestion\\nA. .. D. options\\nAnswer:", "choices": "the letters A-D"},
)

SUITE = register_suite(
    SuiteDescription(
        name=NAME,
        title="LogicBench, negation rules (Parmar et al. 2024)",
        aliases=("logicbench",),
        tasks=(
            TaskEntry(BQA.name, BQA.task, "LogicBench modus tollens and destructive dilemma, yes/no questions (BQA)"),
            TaskEntry(MCQA.name, MCQA.task, "LogicBench modus tollens and destructive dilemma, 4-way choice (MCQA)"),
        ),
        main_task=BQA.name,
        data=DataSource.declared(__file__),
        reader=read_bqa,
        interval_unit="context",
        primary_metric="acc",
        figures=choice_figures_of(BQA),
        harness=choice_harness(BQA),
        task_harness={MCQA.name: choice_harness(MCQA)},
        order=210,
        groups=("negation-all",),
    )
)
