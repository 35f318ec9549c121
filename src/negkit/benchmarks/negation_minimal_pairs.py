"""Multilingual negation minimal pairs for NLI (Hartmann et al., CoNLL 2021): XNLI test pairs in English, German,
French, Bulgarian and Chinese whose premise or hypothesis holds a negation cue, each followed by a version with the
cue removed and a new, manually assigned label; and the NegNLI pairs of Hossain et al. (2020) as minimal pairs (an
MNLI pair and its versions with "not" inserted).

One task per file (``negation-minimal-pairs-LANG``, LANG in :data:`FILES`; the suite's name runs all six, the main
task is English). Each minimal pair, an original example and one modified version (``Mod1``: premise modified,
``Mod2``: hypothesis, ``Mod12``: both, ``Mod``: zh), is one :mod:`negkit.kit.tasks.paired` item with the parts
``original`` and ``modified``, each asked as a three-way NLI question: the kit's NLI prompt
(:data:`negkit.kit.suites.nli.THREE_WAY_PROMPT`, in English for every language, as the authors apply an English MNLI
model zero-shot) and the label words as continuations. The group is ``important`` when the negation flips the label
(``orig_label != gold_label``), else ``unimportant``. Metrics (per group and overall): ``original.accuracy``,
``modified.accuracy`` and the primary ``both_correct``, the authors' "original AND modified" (both members of the
pair right); the drop from ``original.accuracy`` to ``both_correct`` is how much the model misses the negation. An
original with two modified versions makes two pairs, so it counts twice in ``original.accuracy`` (the authors count
it once). Intervals resample original examples (its pairs are drawn together).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

from pydantic import AfterValidator

from negkit.errors import InputFormatError, quoted
from negkit.kit.data.rows import DataRow, Text, read_rows
from negkit.kit.suites import DataSource, register_suite
from negkit.kit.suites.description import TaskEntry
from negkit.kit.suites.kinds import declared_suite, paired_harness
from negkit.kit.suites.nli import THREE_WAY_PROMPT
from negkit.kit.tasks.paired import PairedItem, PairedQuestions, PartQuestion

NAME = "negation-minimal-pairs"
#: Task suffix -> data file.
FILES: dict[str, str] = {
    "en": "minimal_pairs_All_xnli_en.test.jsonl",
    "de": "minimal_pairs_All_xnli_de.test.jsonl",
    "fr": "minimal_pairs_All_xnli_fr.test.jsonl",
    "bg": "minimal_pairs_All_xnli_bg.test.jsonl",
    "zh": "minimal_pairs_All_xnli_zh.test.jsonl",
    "mnli": "hossain_minimal_pairs_All_mnli_en.test.jsonl",
}
Label = Literal["entailment", "contradiction", "neutral"]
LABELS: tuple[str, ...] = get_args(Label)
CHOICES = tuple(f" {label}" for label in LABELS)
MODIFIED = {"Mod1": "premise", "Mod2": "hypothesis", "Mod12": "both", "Mod": "premise or hypothesis"}


def _pair_id(pair_id: str) -> str:
    if "_" not in pair_id:
        raise ValueError(f"expected ID_VERSION, found {quoted(pair_id)}")
    version = pair_id.rsplit("_", 1)[1]
    if version != "Orig" and version not in MODIFIED:
        raise ValueError(f"unknown version {quoted(version)} (expected Orig, {', '.join(MODIFIED)})")
    return pair_id


class Example(DataRow):
    """A line of a minimal-pairs file: an original (``ID_Orig``) or one of its modified versions (``ID_Mod1``, ...),
    which may repeat the original's label (``orig_label``)."""

    pairID: Annotated[str, AfterValidator(_pair_id)]
    sentence1: Text
    sentence2: Text
    gold_label: Label
    orig_label: Any = None

    def part(self) -> PartQuestion:
        prompt = THREE_WAY_PROMPT.format(premise=self.sentence1.strip(), hypothesis=self.sentence2.strip())
        return PartQuestion(prompt, CHOICES, LABELS.index(self.gold_label))


def read_minimal_pairs(path: str | Path, language: str = "") -> list[PairedItem]:
    """The minimal pairs of one file: each modified example with the original before it; a bad line names the file
    and line (an unknown label, a modified example without its original, a label differing from the original's)."""
    path = Path(path)
    language = language or next((key for key, name in FILES.items() if name == path.name), path.stem)
    items: list[PairedItem] = []
    original: tuple[str, Example] | None = None
    seen: set[str] = set()
    for line, row in read_rows(path, Example):
        base, version = row.pairID.rsplit("_", 1)
        if version == "Orig":
            unit = f"{language}-{base}"
            if unit in seen:
                raise InputFormatError(path, line, f"original {quoted(row.pairID)} appears twice")
            seen.add(unit)
            original = (base, row)
            continue
        if original is None or original[0] != base:
            raise InputFormatError(
                path, line, f"modified example {quoted(row.pairID)} does not follow its original {base}_Orig"
            )
        if "orig_label" in row.model_fields_set and row.orig_label != original[1].gold_label:
            raise InputFormatError(
                path,
                line,
                f"field 'orig_label': {quoted(row.orig_label)} is not the "
                f"original's label {quoted(original[1].gold_label)}",
            )
        first, second = original[1].part(), row.part()
        group = "important" if first.gold != second.gold else "unimportant"
        items.append(
            PairedItem(
                f"{language}-{base}-{version}",
                group,
                {"original": first, "modified": second},
                unit=f"{language}-{base}",
                fields={
                    "modified_sentence": MODIFIED[version],
                    "original_label": LABELS[first.gold],
                    "modified_label": LABELS[second.gold],
                },
            )
        )
    if not items:
        raise InputFormatError(path, None, "no minimal pairs")
    return items


def _spec(language: str) -> PairedQuestions:
    def read(folder: Path, split: str = "test") -> list[PairedItem]:
        return read_minimal_pairs(Path(folder) / FILES[language], language)

    def files(folder: Path, split: str = "test") -> list[Path]:
        return [Path(folder) / FILES[language]]

    return PairedQuestions(
        f"{NAME}-{language}",
        read,
        files,
        parts=("original", "modified"),
        twins=("original", "modified"),
        title=f"Negation minimal pairs ({language})",
        dataset=NAME,
        style="continuation",
        group_field="negation",
        groups_key="negations",
        groups=("important", "unimportant"),
        unit="original example",
        headline=("both_correct", "original.accuracy", "modified.accuracy"),
        protocol="three-way NLI, label words scored as continuations of the kit's NLI prompt; both_correct: the "
        "original and its modified version both right (the authors' 'original AND modified'); important: "
        "the negation flips the label",
    )


SPECS: dict[str, PairedQuestions] = {language: _spec(language) for language in FILES}


def _factory(spec: PairedQuestions) -> Callable[..., Any]:
    return spec.task


SUITE = register_suite(
    declared_suite(
        SPECS["en"],
        DataSource.declared(__file__),
        name=NAME,
        title="Negation minimal pairs (Hartmann et al. 2021)",
        main_task=f"{NAME}-en",
        tasks=tuple(
            TaskEntry(
                spec.name,
                _factory(spec),
                f"Negation minimal pairs, {language}: NLI original and negation "
                "removed (mnli: inserted), accuracy split by whether negation flips the label",
            )
            for language, spec in SPECS.items()
        ),
        task_harness={spec.name: paired_harness(spec) for key, spec in SPECS.items() if key != "en"},
        reader=read_minimal_pairs,
        order=140,
        groups=("negation-all",),
        scorer_help='score negation-minimal-pairs predictions: JSON Lines {"item_id": "en-10-Mod2", "original": '
        '"contradiction", "modified": "entailment"} (a label word or its index), or negkit eval\'s samples file',
    )
)
