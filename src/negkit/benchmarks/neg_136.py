"""NEG-136 (Ettinger, TACL 2020) and NEG-1500-SIMP (Shivagunde et al., 2023): completions of affirmative and negated
sentences ("A robin is a bird" / "A robin is not a tree"), asked of a causal LM as :mod:`negkit.kit.tasks.cloze`
probes, one data set per group.

Data under ``neg-136/``: ``ettinger-2020/NEG-136-SIMP.tsv`` (18 items; the article ``(a|an)`` is chosen for each
completion noun: "an" before a vowel letter) and ``NEG-136-NAT.tsv`` (16 items, ``licensing`` Y/N; groups
``NEG-136-NAT-licensed`` and ``-unlicensed``), both ``item, context_aff, context_neg, target_aff, target_neg``;
``shivagunde-2023/NEG-1500-SIMP-TEMP.txt`` (770 pairs) and ``-GEN.txt`` (750 pairs), alternating affirmative and
negated lines ending in a comma, the last word the target (the authors' reader). Their copy of NEG-136-SIMP repeats
Ettinger's 18 items twice and is not read.

Two measures per sentence pair, each of its paper:

- **word prediction** (both papers): the model ranks the data set's vocabulary (every target of the data set, where the
  papers rank the whole vocabulary, which negkit's model interface does not enumerate) at the slot by the first
  sub-token after the context (the sentence without its target: "A robin is a"); ``affirmative.p_at_K``: the
  affirmative target among the best K (Shivagunde et al.'s k = 1, 5, 10, 20; Ettinger's 1 and 5), and
  ``flip_at_1``: the best word after the negated context differs from the best after the affirmative one
  (Shivagunde et al.'s negation sensitivity, #flipped / #affirmative sentences, as their ``evaluation.py`` counts it,
  whose two contexts end in each line's own article);
- **sensitivity** (Ettinger): the true completion against the false one, each with its article, scored as a
  continuation after the context without the article (" a bird" against " a tree" after "A robin is"; NAT's contexts
  have no article): ``affirmative.prefers_true`` and ``negated.prefers_true`` (the primary metric: does the model
  prefer "A robin is not a tree" to "A robin is not a bird"? BERT: 0% on NEG-136-SIMP).

Overall values pool every sentence pair (the per-data-set tables are the papers'); intervals resample pairs.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AfterValidator, ConfigDict

from negkit.errors import InputFormatError, quoted
from negkit.kit.data.rows import DataRow, Text, read_rows
from negkit.kit.suites import DataSource, register_suite
from negkit.kit.suites.kinds import declared_suite
from negkit.kit.tasks.cloze import Cloze, ClozeForm, ClozeProbe, check_vocabulary

NAME = "neg-136"
ETTINGER = ("NEG-136-SIMP", "NEG-136-NAT")
SHIVAGUNDE = ("NEG-1500-SIMP-TEMP", "NEG-1500-SIMP-GEN")
GROUPS = ("NEG-136-SIMP", "NEG-136-NAT-licensed", "NEG-136-NAT-unlicensed", *SHIVAGUNDE)
ARTICLE = "(a|an)"


def article(word: str) -> str:
    """``an`` before a vowel letter, else ``a`` (the choice NEG-136-SIMP's ``(a|an)`` leaves to the noun)."""
    return "an" if word[:1].lower() in "aeiou" else "a"


def _pair(
    item_id: str,
    group: str,
    family: str,
    stems: tuple[str, str],
    targets: tuple[str, str],
    articles: tuple[str | None, str | None],
    vocabulary: tuple[str, ...],
) -> ClozeProbe:
    """A probe from the two contexts without their articles (``stems``), the affirmative and negated targets and
    each context's article (None: the contexts have none)."""
    forms = {}
    for name, stem, own, true, false in (
        ("affirmative", stems[0], articles[0], targets[0], targets[1]),
        ("negated", stems[1], articles[1], targets[1], targets[0]),
    ):
        right, wrong = (f" {article(word)} {word}" if own is not None else f" {word}" for word in (true, false))
        forms[name] = ClozeForm(
            f"{stem} {own}" if own else stem, (true,) if name == "affirmative" else (), (stem, right, wrong)
        )
    return ClozeProbe(item_id, group, forms, vocabulary, family)


def _word(text: str) -> str:
    if " " in text:
        raise ValueError(f"expected one word, found {quoted(text)}")
    return text


class Row(DataRow):
    """A row of NEG-136-SIMP (cells stripped): the two contexts and their targets."""

    model_config = ConfigDict(str_strip_whitespace=True)

    context_aff: Text
    context_neg: Text
    target_aff: Annotated[Text, AfterValidator(_word)]
    target_neg: Annotated[Text, AfterValidator(_word)]
    licensing: Literal["Y", "N"] | None = None


class NaturalRow(Row):
    """A row of NEG-136-NAT: also whether the negation is licensed there."""

    licensing: Literal["Y", "N"]


def read_ettinger(path: Path, family: str) -> list[ClozeProbe]:
    """NEG-136-SIMP or NEG-136-NAT (TSV with a header); every bad row names the file and line."""
    parsed = list(read_rows(path, NaturalRow if family == "NEG-136-NAT" else Row, format="tsv"))
    vocabulary = check_vocabulary(path, None, [word for _, row in parsed for word in (row.target_aff, row.target_neg)])
    probes = []
    for line, row in parsed:
        contexts = (row.context_aff, row.context_neg)
        has_article = all(context.endswith(ARTICLE) for context in contexts)
        stems = tuple(context.removesuffix(ARTICLE).rstrip() for context in contexts) if has_article else contexts
        targets = (row.target_aff, row.target_neg)
        articles = (article(targets[0]), article(targets[1])) if has_article else (None, None)
        group = (
            family if family != "NEG-136-NAT" else f"{family}-{'licensed' if row.licensing == 'Y' else 'unlicensed'}"
        )
        probes.append(_pair(f"{family}-{line - 2}", group, family, stems, targets, articles, vocabulary))  # type: ignore[arg-type]
    return probes


def _sentences(path: Path) -> Iterator[tuple[int, list[str]]]:
    with open(path, encoding="utf-8-sig") as handle:
        for line, text in enumerate(handle, start=1):
            text = text.rstrip("\r\n")
            if not text.strip():
                continue
            words = text.rstrip(",").split(" ")
            if not text.endswith(",") or len(words) < 3 or words[-2] not in ("a", "an") or not words[-1]:
                raise InputFormatError(
                    path, line, f"expected a sentence ending in 'a|an TARGET,', found {quoted(text, 60)}"
                )
            yield line, words


def read_shivagunde(path: Path, family: str) -> list[ClozeProbe]:
    """NEG-1500-SIMP-TEMP or -GEN: affirmative and negated lines in turn (a negated line must hold "not")."""
    lines = list(_sentences(path))
    if not lines or len(lines) % 2:
        raise InputFormatError(path, None, f"expected affirmative and negated lines in pairs, found {len(lines)} lines")
    vocabulary = check_vocabulary(path, None, [words[-1] for _, words in lines])
    probes = []
    for (line, affirmative), (negated_line, negated) in zip(lines[0::2], lines[1::2]):
        if "not" in affirmative or "not" not in negated:
            raise InputFormatError(path, negated_line, "expected an affirmative line, then its negation with 'not'")
        stems = (" ".join(affirmative[:-2]), " ".join(negated[:-2]))
        probes.append(
            _pair(
                f"{family}-{line // 2}",
                family,
                family,
                stems,
                (affirmative[-1], negated[-1]),  # type: ignore[arg-type]
                (affirmative[-2], negated[-2]),
                vocabulary,
            )
        )
    return probes


def neg_files(folder: str | Path, split: str = "test") -> list[Path]:
    folder = Path(folder)
    return [folder / "ettinger-2020" / f"{name}.tsv" for name in ETTINGER] + [
        folder / "shivagunde-2023" / f"{name}.txt" for name in SHIVAGUNDE
    ]


def read_neg_136(folder: str | Path, split: str = "test") -> list[ClozeProbe]:
    """Every probe of the four data sets (a missing file is an error naming it)."""
    probes = []
    for path in neg_files(folder):
        if not path.is_file():
            raise InputFormatError(path, None, "no such file (see the data folder's README)")
        reader = read_ettinger if path.suffix == ".tsv" else read_shivagunde
        probes += reader(path, path.stem)
    return probes


NEG136 = Cloze(
    NAME,
    read_neg_136,
    neg_files,
    title="NEG-136 and NEG-1500-SIMP",
    scoring="first-token",
    ks=(1, 5, 10, 20),
    keep=20,
    group_field="dataset",
    groups_key="datasets",
    groups=GROUPS,
    average="records",
    unit="sentence pair",
    flips=True,
    headline=("negated.prefers_true", "affirmative.prefers_true", "affirmative.p_at_1", "flip_at_1"),
    protocol="P@K: the affirmative target among the K best words of the data set's vocabulary after the "
    'context; flip at 1: the best word changes when "not" is added; prefers true: the true '
    "completion (with its article) scores above the false one (Ettinger's sensitivity).",
)

SUITE = register_suite(
    declared_suite(
        NEG136,
        DataSource.declared(__file__),
        "NEG-136 / NEG-1500-SIMP: completions of affirmative and negated sentences (top-k, flips, true > false)",
        reader=read_neg_136,
        order=115,
        groups=("negation-all",),
        scorer_help='score neg-136 predictions: JSON Lines {"item_id": "NEG-136-SIMP-0", "affirmative": {"top": [words, best '
        'first], "prefers_true": BOOL}, "negated": {...}}, or negkit eval\'s samples file',
    )
)
