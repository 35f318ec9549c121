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
from typing import Any

from negkit.errors import InputFormatError, quoted
from negkit.io.textfiles import iter_json_objects
from negkit.kit.data.declared import declared_files
from negkit.kit.suites import DataSource, register_suite
from negkit.kit.suites.kinds import cloze_suite
from negkit.kit.tasks.cloze import Cloze, ClozeForm, ClozeProbe, check_vocabulary

#: The papers behind the data and protocol (``negkit cite``).
BIBTEX = r"""@inproceedings{kassner2020,
  title = {Negated and Misprimed Probes for Pretrained Language Models: Birds Can Talk, But Cannot Fly},
  author = {Kassner, Nora and Sch{\"u}tze, Hinrich},
  booktitle = {Proceedings of the 58th Annual Meeting of the Association for Computational Linguistics},
  year = {2020},
  publisher = {Association for Computational Linguistics}
}

@inproceedings{petroni2019,
  title = {Language Models as Knowledge Bases?},
  author = {Petroni, Fabio and Rockt{\"a}schel, Tim and Riedel, Sebastian and Lewis, Patrick and Bakhtin, Anton and Wu, Yuxiang and Miller, Alexander},
  booktitle = {Proceedings of the 2019 Conference on Empirical Methods in Natural Language Processing and the 9th International Joint Conference on Natural Language Processing (EMNLP-IJCNLP)},
  year = {2019},
  publisher = {Association for Computational Linguistics},
  url = {https://aclanthology.org/D19-1250}
}"""

NAME = "negated-lama"
SOURCES = ("TREx", "GoogleRE", "ConceptNet", "SQUAD")
MASK = "[MASK]"


def _context(path: Path, line: int, record: dict[str, Any], name: str) -> str:
    value = record[name]
    if not isinstance(value, list) or not value or not isinstance(value[0], str) or value[0].count(MASK) != 1:
        raise InputFormatError(
            path,
            line,
            f"field {name!r}: expected a list whose first sentence has one {MASK}, found {quoted(value, 60)}",
        )
    context = value[0].split(MASK)[0].rstrip()
    if not context:
        raise InputFormatError(path, line, f"field {name!r}: nothing before {MASK} for a causal LM to continue")
    return context


def read_relation(path: str | Path, source: str) -> list[ClozeProbe]:
    """The probes of one relation file (``source``: its source folder's name)."""
    path = Path(path)
    relation = path.stem.removesuffix("_random")
    rows = list(iter_json_objects(path, required=("obj_label", "masked_sentences", "masked_negations")))
    for line, record in rows:
        if not isinstance(record["obj_label"], str) or not record["obj_label"].strip():
            raise InputFormatError(
                path, line, f"field 'obj_label': expected a word, found {quoted(record['obj_label'])}"
            )
    if not rows:
        raise InputFormatError(path, None, "no probes")
    vocabulary = check_vocabulary(path, None, [record["obj_label"].strip() for _, record in rows])
    probes = []
    for line, record in rows:
        affirmative, negated = (_context(path, line, record, name) for name in ("masked_sentences", "masked_negations"))
        forms = {"affirmative": ClozeForm(affirmative, (record["obj_label"].strip(),))}
        if negated != affirmative:  # else no negation before the slot: a causal LM cannot see it
            forms["negated"] = ClozeForm(negated)
        probes.append(
            ClozeProbe(
                f"{NAME}-{source}-{relation}-{line}",
                f"{source}/{relation}",
                forms,
                vocabulary,
                source,
                fields={"subject": record.get("sub_label"), "object": record["obj_label"].strip()},
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
    cloze_suite(
        LAMA,
        DataSource(
            NAME,
            "github norakassner/LAMA_primed_negated data/ into DATA/negated-lama/ (SOURCE/VARIANT/RELATION.jsonl)",
            licence="no licence stated (LAMA's data: CC BY-NC 4.0)",
            files=declared_files(Path(__file__).with_name("negated_lama_files.json")),
            citation="kassner2020",
        ),
        "Negated LAMA: affirmative and negated cloze probes (top-1 overlap, Spearman rho, P@1)",
        bibtex=BIBTEX,
        reader=read_negated_lama,
        order=110,
        groups=("negation-all",),
        scorer_help='score negated-lama predictions: JSON Lines {"item_id": "negated-lama-TREx-P17-1", "affirmative": {"top": '
        '[words, best first]}, "negated": {"top": [...]}, "spearman": RHO (optional)}, or negkit eval\'s samples file',
    )
)
