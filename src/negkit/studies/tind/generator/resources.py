"""The WordNet 3.0 side resources the TIND generator needs, read from ``../shared/data/wordnet/``.

- Core WordNet (Boyd-Graber et al. 2006): the 3,299 noun and 1,000 verb senses TIND draws from
  (``core-wordnet.txt``, sense keys);
- WordNet Domains 3.2 lifted to WordNet 3.0 (``wordnet-domains-3.2-wordnet-3.0.txt``): domain labels per synset;
  synsets without a label count as ``factotum``;
- Basic Level Concepts (``blc/WordNet-3.0/all/20/blc.{noun,verb}`` by default): which synsets are BLCs; the
  files also list every synset's Princeton offset, which aligns Debian's database (see :meth:`WordNet.align`);
- Morphosemantic links (``morphosemantic-links.tsv``): verb-noun pairs with ``agent``, ``instrument``,
  ``result`` and 11 other relations.

The EuroWordNet Top Concept Ontology mapping is not available; its stand-in is in :mod:`negkit.studies.tind.generator.select`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from negkit.errors import DataNotFoundError, InputFormatError
from negkit.io.textfiles import iter_csv, iter_lines
from negkit.studies.tind.generator.wordnet import _SENSE_KEY_POS, WordNet

#: BLC variant used by default: all relations, BLCs subsuming at least 20 synsets (the papers' usual choice).
DEFAULT_BLC_VARIANT = "all/20"

_CORE_LINE = re.compile(r"^([nvar]) \[([^\]]+)\] \[([^\]]+)\]")


@dataclass(frozen=True)
class MorphosemanticLink:
    """One verb-noun link: ``relation(verb sense, noun sense)``."""

    relation: str
    verb_id: str
    verb_key: str
    noun_id: str
    noun_key: str


@dataclass
class SideResources:
    """Everything read from the side resources, keyed by Princeton synset ids (``00021265-n``)."""

    core_sense_keys: dict[str, list[str]]  # POS letter -> sense keys in file order
    domains: dict[str, tuple[str, ...]]
    blc_of: dict[str, str]  # synset id -> id of its Basic Level Concept
    morphosemantic: list[MorphosemanticLink]

    @property
    def basic_level_concepts(self) -> frozenset[str]:
        """Ids of the synsets that are Basic Level Concepts."""
        return frozenset(self.blc_of.values())

    def domains_of(self, synset_id: str) -> tuple[str, ...]:
        """Domain labels of a synset (``("factotum",)`` when WordNet Domains gives none)."""
        return self.domains.get(synset_id, ("factotum",))


def lemma_of_sense_key(sense_key: str) -> str:
    """``guinea_pig%1:05:00::`` -> ``guinea_pig``."""
    return sense_key.split("%", 1)[0]


def pos_of_sense_key(sense_key: str) -> str:
    """POS letter of a sense key (``n``, ``v``, ``a``, ``r``, ``s``)."""
    return _SENSE_KEY_POS[sense_key.split("%", 1)[1][0]]


def load_side_resources(folder: str | Path, blc_variant: str = DEFAULT_BLC_VARIANT) -> SideResources:
    """Read the four side resources from ``folder``."""
    folder = Path(folder)
    blc = folder / "blc" / "WordNet-3.0" / blc_variant
    needed = [
        folder / "core-wordnet.txt",
        folder / "wordnet-domains-3.2-wordnet-3.0.txt",
        blc / "blc.noun",
        blc / "blc.verb",
        folder / "morphosemantic-links.tsv",
    ]
    missing = [str(path) for path in needed if not path.is_file()]
    if missing:
        raise DataNotFoundError(
            f"WordNet side resources missing: {', '.join(missing)} (see ../shared/data/wordnet/README.md)"
        )
    return SideResources(
        core_sense_keys=_read_core(folder / "core-wordnet.txt"),
        domains=_read_domains(folder / "wordnet-domains-3.2-wordnet-3.0.txt"),
        blc_of={**_read_blc(blc / "blc.noun", "n"), **_read_blc(blc / "blc.verb", "v")},
        morphosemantic=_read_morphosemantic(folder / "morphosemantic-links.tsv"),
    )


def align_wordnet(wordnet: WordNet, resources: SideResources) -> None:
    """Make ``wordnet`` speak Princeton offsets for nouns and verbs (BLC files list every synset)."""
    for pos in ("n", "v"):
        offsets = [int(synset_id[:8]) for synset_id in resources.blc_of if synset_id.endswith(pos)]
        wordnet.align(pos, offsets)


def _read_core(path: Path) -> dict[str, list[str]]:
    keys: dict[str, list[str]] = {}
    for number, line in iter_lines(path, "Core WordNet file"):
        match = _CORE_LINE.match(line.strip())
        if not match:
            raise InputFormatError(path, number, "expected 'POS [sense_key] [lemma] ...'")
        keys.setdefault(match.group(1), []).append(match.group(2))
    return keys


def _read_domains(path: Path) -> dict[str, tuple[str, ...]]:
    domains: dict[str, tuple[str, ...]] = {}
    for _number, line in iter_lines(path, "WordNet Domains file"):
        fields = line.split()
        if len(fields) < 3 or not re.fullmatch(r"\d{8}-[nvasr]", fields[0]):
            continue  # the lifted file has a few lines without an offset
        domains.setdefault(fields[0], tuple(fields[2:]))
    return domains


def _read_blc(path: Path, pos: str) -> dict[str, str]:
    table: dict[str, str] = {}
    for number, line in iter_lines(path, "Basic Level Concepts file"):
        if line.startswith("#") or not line.strip():
            continue
        fields = line.split()
        if len(fields) < 2:
            raise InputFormatError(path, number, "expected 'synset_offset BLC_offset ...'")
        table[f"{fields[0]}-{pos}"] = f"{fields[1]}-{pos}"
    return table


def _read_morphosemantic(path: Path) -> list[MorphosemanticLink]:
    links = []
    for number, row in iter_csv(path, delimiter="\t"):
        if number == 1:
            continue  # the header
        if len(row) < 5 or not (row[1].isdigit() and row[4].isdigit()):
            raise InputFormatError(path, number, "expected verb key, offset, relation, noun key, offset")
        links.append(MorphosemanticLink(row[2], f"{row[1][1:]}-v", row[0], f"{row[4][1:]}-n", row[3]))
    return links
