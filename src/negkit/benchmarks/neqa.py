"""NeQA (Inverse Scaling Prize; McKenzie et al., 2023): 300 negated two-option questions.

``neqa.csv`` has an unnamed index column and ``prompt`` (ending in ``Answer:``), ``classes`` (a Python list literal
of the answer continuations, e.g. ``[' A', ' B']``) and ``answer_index`` (0-based). Each class is scored as the
continuation of the prompt exactly as written, with no target delimiter (the LM Evaluation Harness's
``inverse_scaling_neqa``); ``acc`` takes the class with the highest log-likelihood, ``acc_norm`` the highest per
character. Item ids are ``neqa-ROW`` (0-based data row); intervals resample questions.
"""

from __future__ import annotations

import ast
from pathlib import Path

from negkit.errors import InputFormatError, quoted
from negkit.io.textfiles import iter_csv
from negkit.kit.data.declared import declared_files
from negkit.kit.suites import DataSource, register_suite
from negkit.kit.suites.kinds import choice_suite
from negkit.kit.tasks.choice import ChoiceQuestion, MultipleChoice

#: The papers behind the data and protocol (``negkit cite``).
BIBTEX = r"""@article{mckenzie2023,
  title = {Inverse Scaling: When Bigger Isn't Better},
  author = {McKenzie, Ian R. and Lyzhov, Alexander and Pieler, Michael and Parrish, Alicia and Mueller, Aaron and Prabhu, Ameya and McLean, Euan and Kirtland, Aaron and Ross, Alexis and Liu, Alisa and others},
  journal = {Transactions on Machine Learning Research},
  year = {2023}
}"""

NAME = "neqa"
NEQA_FILE = "neqa.csv"
COLUMNS = ("prompt", "classes", "answer_index")


def _classes(path: Path, line: int, text: str) -> tuple[str, ...]:
    try:
        value = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        raise InputFormatError(path, line, f"column 'classes': {quoted(text, 40)} is not a list literal") from None
    if not isinstance(value, (list, tuple)) or len(value) < 2 or not all(isinstance(v, str) and v for v in value):
        raise InputFormatError(
            path, line, f"column 'classes': expected a list of at least two non-empty strings, found {quoted(text, 40)}"
        )
    if len(set(value)) != len(value):
        raise InputFormatError(path, line, f"column 'classes': {quoted(text, 40)} repeats a class")
    return tuple(value)


def read_neqa(path: str | Path, split: str = "test") -> list[ChoiceQuestion]:
    """The questions of ``neqa.csv`` (a folder means its ``neqa.csv``); every bad row names the file and line."""
    path = Path(path)
    path = path / NEQA_FILE if path.is_dir() else path
    rows = iter_csv(path)
    first = next(rows, None)
    if first is None:
        raise InputFormatError(path, 1, "empty file (expected a CSV header)")
    header = [name.strip() for name in first[1]]
    missing = [name for name in COLUMNS if name not in header]
    if missing:
        raise InputFormatError(path, first[0], f"missing column(s): {', '.join(missing)}")
    questions: list[ChoiceQuestion] = []
    for line, values in rows:
        if not any(value.strip() for value in values):
            continue
        if len(values) != len(header):
            raise InputFormatError(path, line, f"expected {len(header)} columns, found {len(values)}")
        row = dict(zip(header, values))
        if not row["prompt"].strip():
            raise InputFormatError(path, line, "empty 'prompt'")
        classes, answer = _classes(path, line, row["classes"]), row["answer_index"].strip()
        if not answer.isdigit() or int(answer) >= len(classes):
            raise InputFormatError(
                path,
                line,
                f"column 'answer_index': {quoted(answer, 20)} is not the index of one of the {len(classes)} classes",
            )
        questions.append(ChoiceQuestion(f"neqa-{len(questions)}", row["prompt"], classes, int(answer)))
    if not questions:
        raise InputFormatError(path, None, "no questions")
    return questions


NEQA = MultipleChoice(
    NAME,
    read_neqa,
    lambda folder, split: [folder / NEQA_FILE],
    title="NeQA",
    target_delimiter="",
    acc_norm=True,
    unit="NeQA question",
    protocol={"prompt": "{prompt}", "choices": "classes as written"},
)

SUITE = register_suite(
    choice_suite(
        NEQA,
        DataSource(
            NAME,
            "github joey234/llm-neg-bench prompts/neqa.csv into DATA/neqa/ (or the hub data set inverse-scaling/NeQA)",
            licence="CC BY-SA 4.0 (the hub card of inverse-scaling/NeQA; the repository has no licence file)",
            files=declared_files(Path(__file__).with_name("neqa_files.json")),
            citation="mckenzie2023",
        ),
        bibtex=BIBTEX,
        title="NeQA",
        description="NeQA: negated two-option questions, each class scored as a continuation (Inverse Scaling Prize)",
        reader=read_neqa,
        order=70,
        groups=("negation-all",),
    )
)
