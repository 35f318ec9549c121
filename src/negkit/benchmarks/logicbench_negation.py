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

import json
from pathlib import Path
from typing import Any

from negkit.errors import InputFormatError, quoted
from negkit.kit.data.declared import declared_files
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
BIBTEX = r"""@inproceedings{parmar2024,
  title = {{LogicBench}: Towards Systematic Evaluation of Logical Reasoning Ability of Large Language Models},
  author = {Parmar, Mihir and Patel, Nisarg and Varshney, Neeraj and Nakamura, Mutsumi and Luo, Man and
            Mashetty, Santosh and Mitra, Arindam and Baral, Chitta},
  booktitle = {Proceedings of the 62nd Annual Meeting of the Association for Computational Linguistics
               (Volume 1: Long Papers)},
  year = {2024},
  publisher = {Association for Computational Linguistics},
}"""


def logic_files(folder: str | Path, part: str) -> list[Path]:
    """The four files of ``part`` (BQA or MCQA), PL before FOL, modus tollens before destructive dilemma."""
    return [Path(folder) / part / logic / f"{rule}.json" for logic in LOGICS for rule in RULES]


def _samples(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        raise InputFormatError(path, None, "no such file (a LogicBench negation file; see the data folder's README)")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise InputFormatError(path, getattr(error, "lineno", None), f"not valid JSON ({error})") from None
    samples = data.get("samples") if isinstance(data, dict) else None
    if not isinstance(samples, list) or not samples or not all(isinstance(sample, dict) for sample in samples):
        raise InputFormatError(path, None, "expected an object with a non-empty list 'samples' of objects")
    return samples


def _text(path: Path, where: str, value: Any, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InputFormatError(path, None, f"{where}: field {name!r}: expected text, found {quoted(value, 40)}")
    return value.strip()


def read_bqa(folder: str | Path, split: str = "test") -> list[ChoiceQuestion]:
    """The yes/no questions of the four BQA files, one per question, grouped by rule and logic."""
    questions = []
    for path in logic_files(folder, "BQA"):
        logic, rule = LOGICS[path.parent.name], RULES[path.stem]
        for sample in _samples(path):
            where = f"sample {sample.get('id')!r}"
            context = _text(path, where, sample.get("context"), "context")
            pairs = sample.get("qa_pairs")
            if not isinstance(pairs, list) or not pairs:
                raise InputFormatError(path, None, f"{where}: field 'qa_pairs': expected a list of questions")
            for number, pair in enumerate(pairs):
                pair = pair if isinstance(pair, dict) else {}
                question = _text(path, where, pair.get("question"), "question")
                answer = str(pair.get("answer", "")).strip().lower()
                if answer not in ("yes", "no"):
                    raise InputFormatError(path, None, f"{where}: answer {quoted(pair.get('answer'))} is not yes or no")
                prompt = f"Context: {context}\nQuestion: {question}\nAnswer yes or no.\nAnswer:"
                unit = f"{logic}-{path.stem}-{sample.get('id')}"
                fields = {"rule": f"{logic}: {rule}", "answer": answer}
                questions.append(
                    ChoiceQuestion(f"{unit}-{number}", prompt, ("yes", "no"), ("yes", "no").index(answer), unit, fields)
                )
    return questions


def read_mcqa(folder: str | Path, split: str = "test") -> list[ChoiceQuestion]:
    """The items of the four MCQA files, their options lettered A to D."""
    questions = []
    for path in logic_files(folder, "MCQA"):
        logic, rule = LOGICS[path.parent.name], RULES[path.stem]
        for sample in _samples(path):
            where = f"sample {sample.get('id')!r}"
            context = _text(path, where, sample.get("context"), "context")
            question = _text(path, where, sample.get("question"), "question")
            choices = sample.get("choices")
            keys = [f"choice_{k}" for k in range(1, 5)]
            if not isinstance(choices, dict) or sorted(choices) != keys:
                raise InputFormatError(path, None, f"{where}: field 'choices': expected choice_1 .. choice_4")
            if sample.get("answer") not in keys:
                raise InputFormatError(path, None, f"{where}: answer {quoted(sample.get('answer'))} is not a choice")
            options = "\n".join(
                f"{letter}. {_text(path, where, choices[key], key)}" for letter, key in zip(LETTERS, keys)
            )
            prompt = f"Context: {context}\nQuestion: {question}\n{options}\nAnswer:"
            item_id = f"{logic}-{path.stem}-{sample.get('id')}"
            questions.append(
                ChoiceQuestion(
                    item_id, prompt, LETTERS, keys.index(sample["answer"]), None, {"rule": f"{logic}: {rule}"}
                )
            )
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
        data=DataSource(
            NAME,
            "github Mihir3009/LogicBench data/LogicBench(Eval)/{BQA,MCQA}/{propositional_logic,first_order_logic}/"
            "{modus_tollens,destructive_dilemma}/data_instances.json into DATA/logicbench-negation/{BQA,MCQA}/LOGIC/"
            "RULE.json",
            licence="MIT (github Mihir3009/LogicBench LICENSE)",
            citation="parmar2024",
            files=declared_files(Path(__file__).with_name("logicbench_negation_files.json")),
        ),
        bibtex=BIBTEX,
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
