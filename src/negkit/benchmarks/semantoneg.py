"""SemAntoNeg (Vahtola et al., BlackboxNLP 2022): which of three sentences paraphrases the input, each candidate
scored as the continuation of ``Sentence: INPUT\\nParaphrase:`` (docs/negation-suites.md); accuracy also by whether
the input is negated; intervals resample input sentences. Data and BibTeX: ``semantoneg_files.json``, ``.bib``."""

from __future__ import annotations

import re
from typing import Annotated

from negkit.kit.data.rows import Choices, DataRow, Text, index_of, rows_reader
from negkit.kit.suites import ChoiceQuestion, DataSource, MultipleChoice, declared_suite, register_suite

NAME, NEGATED = "semantoneg", re.compile(r"\bnot\b|n't\b", re.IGNORECASE)


class Row(DataRow):
    idx: int
    input: Text
    sentences: Choices
    label: Annotated[int, index_of("sentences")]

    def to_question(self) -> ChoiceQuestion:
        polarity = "negated input" if NEGATED.search(self.input) else "affirmative input"
        prompt, fields = f"Sentence: {self.input}\nParaphrase:", {"input": self.input, "polarity": polarity}
        return ChoiceQuestion(f"{NAME}-{self.idx}", prompt, self.sentences, self.label, self.input, fields)


read_semantoneg = rows_reader("SemAntoNeg_v1.0.json", Row, Row.to_question)
SEMANTONEG = MultipleChoice(
    NAME,
    read_semantoneg,
    title="SemAntoNeg",
    description="SemAntoNeg: the paraphrase among antonym and negation variants, each scored as a continuation",
    acc_norm=True,
    unit="input sentence",
    group_field="polarity",
    groups=("affirmative input", "negated input"),
    protocol={"prompt": "Sentence: {input}\\nParaphrase:", "choices": "the three candidates"},
)
SUITE = register_suite(declared_suite(SEMANTONEG, DataSource.declared(__file__), order=130, groups=("negation-all",)))
