"""JNLI-Neg (Yoshida, Kato, Ogawa and Matsubara, NLP2025): Japanese NLI for negation understanding. Each original
JNLI pair (``original``, no negation) is augmented by inserting a Japanese negation cue into the predicate of the
premise (``p_neg``), the hypothesis (``h_neg``) or both (``p_neg_h_neg``), and relabelled by three annotators.
Three-way labels (entailment, neutral, contradiction).

One task, ``jnli-neg``, over the released validation split (1,363 instances; JNLI's test split is not public, so
``--split test`` reads it too). Asked as 3-way NLI (:mod:`negkit.kit.tasks.nli_conditions`): a language model
scores the answer words ``entailment``, ``contradiction``, ``neutral`` after negkit's 3-way prompt (English
instructions around the Japanese sentences), or a classifier reads ``(premise, hypothesis)``. Accuracy overall
(the headline) and by where the negation was inserted, and the gap: accuracy on the original pairs minus accuracy
on the negated ones. Intervals resample JNLI sentence pairs (an original and its negated variants drawn together).

``jnli-neg-valid-v1.1.jsonl`` is JSON Lines: ``id``, ``jnli_sentence_pair_id``, ``pair_id_in_group``, ``type``,
``sentence1`` / ``sentence2`` (``{"sentence", "neg"}``), ``gold_label``, ``annotator_labels``; blank lines are
skipped.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from negkit.errors import InputFormatError, quoted
from negkit.io.textfiles import iter_json_objects
from negkit.kit.data.declared import declared_files
from negkit.kit.data.nli import NLI_LABELS, NLIItem
from negkit.kit.suites import DataSource, register_suite
from negkit.kit.suites.description import HarnessExport, SuiteDescription, TaskEntry
from negkit.kit.suites.nli import THREE_WAY_ANSWERS, THREE_WAY_PROMPT, label_writer
from negkit.kit.tasks.nli_conditions import ConditionNLITask, condition_figures

NAME, FILE = "jnli-neg", "jnli-neg-valid-v1.1.jsonl"
#: Where the negation was inserted (``original``: nowhere, the control).
TYPES: tuple[str, ...] = ("original", "p_neg", "h_neg", "p_neg_h_neg")
BIBTEX = r"""@inproceedings{yoshida2025,
  title = {否定理解能力を評価するための日本語言語推論データセットの構築},
  author = {吉田, 朝飛 and 加藤, 芳秀 and 小川, 泰弘 and 松原, 茂樹},
  booktitle = {言語処理学会第31回年次大会発表論文集 (Proceedings of the 31st Annual Meeting of the Association for
               Natural Language Processing, NLP2025)},
  year = {2025},
  note = {Yoshida, Kato, Ogawa, Matsubara: Construction of a Japanese NLI dataset for evaluating negation
          understanding},
}"""
_FIELDS = ("id", "jnli_sentence_pair_id", "type", "sentence1", "sentence2", "gold_label")


def _sentence(path: Path, line: int, record: dict[str, Any], name: str) -> str:
    value = record[name]
    text = value.get("sentence") if isinstance(value, dict) else None
    if not isinstance(text, str) or not text.strip():
        raise InputFormatError(
            path, line, f'field {name!r}: expected {{"sentence": TEXT, ...}}, found {quoted(value, 60)}'
        )
    return text


def read_jnli_neg(folder: str | Path, split: str = "validation") -> list[NLIItem]:
    """The instances of ``FOLDER/jnli-neg-valid-v1.1.jsonl``; a bad line names the file and line."""
    path = Path(folder) / FILE
    items = []
    for line, record in iter_json_objects(path, required=_FIELDS):
        kind, label = record["type"], record["gold_label"]
        if kind not in TYPES:
            raise InputFormatError(path, line, f"field 'type': {quoted(kind)} is not one of {', '.join(TYPES)}")
        if label not in NLI_LABELS:
            raise InputFormatError(path, line, f"field 'gold_label': {quoted(label)} is not an NLI label")
        premise, hypothesis = _sentence(path, line, record, "sentence1"), _sentence(path, line, record, "sentence2")
        group = f"jnli-{record['jnli_sentence_pair_id']}"
        items.append(NLIItem(f"{NAME}-{record['id']}", premise, hypothesis, label, NAME, group, kind, line))
    if not items:
        raise InputFormatError(path, None, "no instances")
    return items


class JNLINegTask(ConditionNLITask):
    """JNLI-Neg's validation split, 3-way."""

    name = dataset = NAME
    title = "JNLI-Neg (validation)"
    prompt = THREE_WAY_PROMPT
    answers = THREE_WAY_ANSWERS
    labels = NLI_LABELS
    conditions = TYPES
    gap = (("original",), ("p_neg", "h_neg", "p_neg_h_neg"))
    headline = "acc"
    interval_unit = "JNLI sentence pair"
    splits = ("validation",)

    def normalize_split(self, split: str) -> str:
        """``test``, ``valid`` and ``dev`` read the validation split (JNLI's test split is not public)."""
        return "validation" if split in ("test", "valid", "dev", "validation") else split

    def read(self, folder: Path, split: str) -> list[NLIItem]:
        return read_jnli_neg(folder, split)

    def files(self, folder: Path, split: str) -> list[Path]:
        return [folder / FILE]

    def config(self) -> dict[str, Any]:
        return super().config() | {"split_read": "validation (jnli-neg-valid-v1.1)", "gap": "original - negated"}


SUITE = register_suite(
    SuiteDescription(
        name=NAME,
        title="JNLI-Neg (Yoshida et al. 2025)",
        aliases=("jnli",),
        tasks=(
            TaskEntry(
                NAME,
                JNLINegTask,
                "JNLI-Neg: Japanese NLI with negation inserted in the premise, the hypothesis or both (3-way "
                "prompt or --classifier); accuracy by where",
                classifier=True,
            ),
        ),
        main_task=NAME,
        data=DataSource(
            NAME,
            "github asahi-y/JNLI-Neg data/jnli-neg-v1.1/jnli-neg-valid-v1.1.jsonl into DATA/jnli-neg/",
            licence="CC BY-SA 4.0 (github asahi-y/JNLI-Neg, data/jnli-neg-v1.1/LICENSE)",
            citation="yoshida2025",
            files=declared_files(Path(__file__).with_name("jnli_neg_files.json")),
        ),
        bibtex=BIBTEX,
        reader=read_jnli_neg,
        scorer_help="JNLI-Neg: accuracy by where negation was inserted from {item_id, prediction (label)} lines",
        interval_unit=JNLINegTask.interval_unit,
        primary_metric="acc",
        figures=condition_figures,
        harness=HarnessExport(("negkit_jnli_neg",), label_writer("load_jnli_neg"), loaders={"load_jnli_neg": NAME}),
        order=200,
        groups=("negation-all",),
    )
)
