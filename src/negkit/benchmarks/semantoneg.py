"""SemAntoNeg (Vahtola et al., BlackboxNLP 2022): which of three sentences paraphrases the input: the input with an
antonym, with its negation toggled, or with both ("You're not fat." -> "You're thin.", always the third).

``SemAntoNeg_v1.0.json`` is JSON Lines: ``idx``, ``input``, ``sentences`` (3), ``label`` (2). The authors rank the
candidates by an encoder's cosine similarity to the input; a causal LM scores each candidate as the continuation of
``Sentence: INPUT\\nParaphrase:`` (after a space), so the answer's position cannot matter; ``acc`` takes the highest
log-likelihood, ``acc_norm`` the highest per character. Accuracy is also given by whether the input is negated;
intervals resample input sentences (2,435 for 3,152 items). Chance: 1/3.
"""

from __future__ import annotations

import re
from pathlib import Path

from negkit.errors import InputFormatError, quoted
from negkit.io.textfiles import iter_json_objects
from negkit.kit.data.declared import declared_files
from negkit.kit.suites import DataSource, register_suite
from negkit.kit.suites.kinds import choice_suite
from negkit.kit.tasks.choice import ChoiceQuestion, MultipleChoice

#: The papers behind the data and protocol (``negkit cite``).
BIBTEX = r"""@inproceedings{vahtola2022,
  title = {It Is Not Easy To Detect Paraphrases: Analysing Semantic Similarity With Antonyms and Negation Using the New {SemAntoNeg} Benchmark},
  author = {Vahtola, Teemu and Creutz, Mathias and Tiedemann, J{\"o}rg},
  booktitle = {Proceedings of the Fifth BlackboxNLP Workshop on Analyzing and Interpreting Neural Networks for NLP},
  year = {2022},
  publisher = {Association for Computational Linguistics}
}"""

NAME, FILE = "semantoneg", "SemAntoNeg_v1.0.json"
NEGATED = re.compile(r"\bnot\b|n't\b", re.IGNORECASE)


def read_semantoneg(folder: str | Path, split: str = "test") -> list[ChoiceQuestion]:
    """The items of ``FOLDER/SemAntoNeg_v1.0.json``; a bad line names the file and line."""
    path = Path(folder) / FILE
    questions = []
    for line, record in iter_json_objects(path, required=("idx", "input", "sentences", "label")):
        sentences, label, text = record["sentences"], record["label"], record["input"]
        if not isinstance(text, str) or not text.strip():
            raise InputFormatError(path, line, f"field 'input': expected a sentence, found {quoted(text)}")
        if (
            not isinstance(sentences, list)
            or len(sentences) < 2
            or not all(isinstance(s, str) and s.strip() for s in sentences)
        ):
            raise InputFormatError(
                path, line, f"field 'sentences': expected candidate sentences, found {quoted(sentences, 60)}"
            )
        if isinstance(label, bool) or not isinstance(label, int) or not 0 <= label < len(sentences):
            raise InputFormatError(path, line, f"field 'label': {quoted(label)} is not the index of a candidate")
        polarity = "negated input" if NEGATED.search(text) else "affirmative input"
        questions.append(
            ChoiceQuestion(
                f"{NAME}-{record['idx']}",
                f"Sentence: {text}\nParaphrase:",
                tuple(sentences),
                label,
                text,
                {"input": text, "polarity": polarity},
            )
        )
    if not questions:
        raise InputFormatError(path, None, "no items")
    return questions


SEMANTONEG = MultipleChoice(
    NAME,
    read_semantoneg,
    lambda folder, split: [Path(folder) / FILE],
    title="SemAntoNeg",
    acc_norm=True,
    unit="input sentence",
    group_field="polarity",
    groups=("affirmative input", "negated input"),
    protocol={"prompt": "Sentence: {input}\\nParaphrase:", "choices": "the three candidates"},
)

SUITE = register_suite(
    choice_suite(
        SEMANTONEG,
        DataSource(
            NAME,
            "github Helsinki-NLP/SemAntoNeg SemAntoNeg_v1.0.json into DATA/semantoneg/",
            licence="CC BY 4.0 (the Helsinki-NLP/SemAntoNeg README)",
            files=declared_files(Path(__file__).with_name("semantoneg_files.json")),
            citation="vahtola2022",
        ),
        bibtex=BIBTEX,
        description="SemAntoNeg: the paraphrase among antonym and negation variants, each scored as a continuation",
        reader=read_semantoneg,
        order=130,
        groups=("negation-all",),
    )
)
