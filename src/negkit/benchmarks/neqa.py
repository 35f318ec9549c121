"""NeQA (Inverse Scaling Prize; McKenzie et al., 2023): 300 negated two-option questions, each class scored as the
continuation of the prompt as written, no target delimiter (the LM Evaluation Harness's ``inverse_scaling_neqa``),
``acc`` by log-likelihood, ``acc_norm`` per character; intervals resample questions. In ``neqa.csv``, ``classes`` is a
list literal (``[' A', ' B']``) and the first, unnamed column is not read. Data, BibTeX: ``neqa_files.json``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from negkit.kit.data.rows import Choices, DataRow, Text, data_file, index_of, read_rows
from negkit.kit.suites import ChoiceQuestion, DataSource, MultipleChoice, declared_suite, register_suite

NAME, FILE = "neqa", "neqa.csv"


class Row(DataRow):
    prompt: Text
    classes: Choices
    answer_index: Annotated[int, index_of("classes")]


def read_neqa(path: str | Path, split: str = "test") -> list[ChoiceQuestion]:
    """The questions of ``neqa.csv`` (a folder: its ``neqa.csv``), ``neqa-ROW`` by 0-based data row."""
    rows = enumerate(row for _, row in read_rows(data_file(path, FILE), Row))
    return [ChoiceQuestion(f"{NAME}-{k}", row.prompt, row.classes, row.answer_index) for k, row in rows]


NEQA = MultipleChoice(
    NAME,
    read_neqa,
    lambda folder, split: [folder / FILE],
    title="NeQA",
    description="NeQA: negated two-option questions, each class scored as a continuation (Inverse Scaling Prize)",
    target_delimiter="",
    acc_norm=True,
    unit="NeQA question",
    protocol={"prompt": "{prompt}", "choices": "classes as written"},
)
SUITE = register_suite(declared_suite(NEQA, DataSource.declared(__file__), order=70, groups=("negation-all",)))
