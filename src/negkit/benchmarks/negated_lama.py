"""Negated LAMA (Kassner & Schütze, ACL 2020): LAMA's cloze probes with a negated twin ("Sirindhorn was born in
[MASK] ." / "Sirindhorn was not born in [MASK] ."), asked of a causal LM as :mod:`negkit.kit.tasks.cloze` probes.

Data: ``SOURCE/random/RELATION.jsonl`` (TREx's files are ``P<id>_random.jsonl``) under ``negated-lama/``, one probe a
line with ``sub_label``, ``obj_label``, ``masked_sentences`` and ``masked_negations`` (one cloze each, ``[MASK]`` the
object). The three misprime variants (``high_ranked``, ``low_ranked``, ``random``) hold the same probes (the data
folder's README), so negkit reads ``random``. Sources: TREx (40 relations), GoogleRE (3), ConceptNet, SQuAD.

Protocol, as the authors' code (LAMA's ``get_negation_metric`` and ``batch_eval_KB_completion.py``) computes it, for a
causal LM: the model ranks a candidate vocabulary at the slot after the text before ``[MASK]`` (for a causal LM the
words after the slot are not seen, as in LAMA's Transformer-XL probes), by the first sub-token of `` WORD``. The
vocabulary is the relation's own objects (every ``obj_label`` of the file: 2 to 254 words), where LAMA uses the
~21k-word common vocabulary of its masked LMs: a candidate list negkit's models can score. Per probe: P@1 (the
affirmative's object ranked first), whether the affirmative and negated clozes put the same word first (top-1
overlap, the paper's %) and Spearman's rank correlation of their two score vectors over the vocabulary (the paper's
rho; LAMA correlates the full log-probability vectors). As LAMA, each is averaged over a relation's probes, and the
paper reports per source the mean over its relations; negkit's overall value is the mean over all 45 relations.
High overlap and rho mean the model ignores "not". The primary metric is ``flip_at_1`` = 1 - overlap (negkit's primary
metrics are higher-is-better): the share of probes whose best word changes with "not". Intervals resample probes (a
statement with its negated twin).

Where the negated cloze has the same text before the slot as the affirmative one (362 probes: all 336 of P159, whose
``masked_negations`` repeat the affirmative sentence in the source, 21 of P190, "X and [MASK] are not twin cities",
and 5 of SQuAD and ConceptNet), a causal LM cannot see the negation: such a probe has no negated form, and only its
P@1 counts (LAMA's code would count it as a perfect overlap).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator

from negkit.errors import InputFormatError, quoted
from negkit.kit.data.rows import DataRow, Text, read_rows
from negkit.kit.suites import DataSource, register_suite
from negkit.kit.suites.kinds import declared_suite
from negkit.kit.tasks.cloze import Cloze, ClozeForm, ClozeProbe, check_vocabulary

NAME = "negated-lama"
SOURCES = ("TREx", "GoogleRE", "ConceptNet", "SQUAD")
MASK = "[MASK]"


def _context(value: Any) -> str:
    """The text before the slot of the first sentence of a list (the only context a causal LM can continue)."""
    if not isinstance(value, list) or not value or not isinstance(value[0], str) or value[0].count(MASK) != 1:
        raise ValueError(f"expected a list whose first sentence has one {MASK}, found {quoted(value, 60)}")
    context = value[0].split(MASK)[0].rstrip()
    if not context:
        raise ValueError(f"nothing before {MASK} for a causal LM to continue")
    return context


class Probe(DataRow):
    """A line of a relation file; the masked sentences are read as the text before their slot."""

    obj_label: Annotated[Text, AfterValidator(str.strip)]
    sub_label: Any = None
    masked_sentences: Annotated[str, BeforeValidator(_context)]
    masked_negations: Annotated[str, BeforeValidator(_context)]


def read_relation(path: str | Path, source: str) -> list[ClozeProbe]:
    """The probes of one relation file (``source``: its source folder's name)."""
    path = Path(path)
    relation = path.stem.removesuffix("_random")
    rows = list(read_rows(path, Probe))
    vocabulary = check_vocabulary(path, None, [row.obj_label for _, row in rows])
    probes = []
    for line, row in rows:
        affirmative, negated = row.masked_sentences, row.masked_negations
        forms = {"affirmative": ClozeForm(affirmative, (row.obj_label,))}
        if negated != affirmative:  # else no negation before the slot: a causal LM cannot see it
            forms["negated"] = ClozeForm(negated)
        probes.append(
            ClozeProbe(
                f"{NAME}-{source}-{relation}-{line}",
                f"{source}/{relation}",
                forms,
                vocabulary,
                source,
                fields={"subject": row.sub_label, "object": row.obj_label},
            )
        )
    return probes


def lama_files(folder: str | Path, split: str = "test") -> list[Path]:
    """The relation files negkit reads: every ``SOURCE/random/*.jsonl``, sources in :data:`SOURCES` order."""
    files = [file for source in SOURCES for file in sorted((Path(folder) / source / "random").glob("*.jsonl"))]
    if not files:
        raise InputFormatError(Path(folder), None, "no SOURCE/random/*.jsonl files (see the data folder's README)")
    return files


def read_negated_lama(folder: str | Path, split: str = "test") -> list[ClozeProbe]:
    """Every probe of every relation file (:func:`lama_files`)."""
    return [probe for path in lama_files(folder) for probe in read_relation(path, path.parent.parent.name)]


LAMA = Cloze(
    NAME,
    read_negated_lama,
    lama_files,
    title="Negated LAMA",
    scoring="first-token",
    ks=(1,),
    keep=5,
    group_field="relation",
    groups_key="relations",
    average="groups",
    unit="probe",
    flips=True,
    headline=("flip_at_1", "overlap_at_1", "spearman", "affirmative.p_at_1"),
    protocol="Each relation's objects ranked at the slot by the first sub-token after the text before it; "
    'top-1 overlap and Spearman\'s rho compare the affirmative and negated clozes (high: "not" '
    "ignored), P@1 is the affirmative's object ranked first.",
)

SUITE = register_suite(
    declared_suite(
        LAMA,
        DataSource.declared(__file__),
        "Negated LAMA: affirmative and negated cloze probes (top-1 overlap, Spearman rho, P@1)",
        reader=read_negated_lama,
        order=110,
        groups=("negation-all",),
        scorer_help='score negated-lama predictions: JSON Lines {"item_id": "negated-lama-TREx-P17-1", "affirmative": {"top": '
        '[words, best first]}, "negated": {"top": [...]}, "spearman": RHO (optional)}, or negkit eval\'s samples file',
    )
)
