"""Where the TIND generator's WordNet 3.0 side resources come from (``DATA/wordnet/``): Core WordNet, WordNet
Domains lifted to 3.0, the Morphosemantic links, Basic Level Concepts and the MCR 3.0 Top Ontology files, each
declared with its URL at a pinned commit, SHA-256 and size (``negkit data get wordnet``). WordNet 3.0 itself comes
from the operating system (``sudo apt-get install wordnet-base``).

``morphosemantic-links.tsv`` is built: yawni's tab-separated conversion of the Princeton ``.xls``
(``data30/extras/morphosemantic-links.xls.tsv``) with the header row added and each line's trailing tab removed,
which gives the declared bytes."""

from __future__ import annotations

from pathlib import Path

from negkit.io.atomic import atomic_write_bytes
from negkit.kit.data.declared import DataFile, declared_files
from negkit.kit.suites.description import DataSource

YAWNI_TSV = DataFile(
    "wordnet/yawni/morphosemantic-links.xls.tsv",
    "a5b39baeea9ae52f9c246dfe02f90f9ecae382385f4551db0beb71a9956c4633",
    2598892,
    "https://raw.githubusercontent.com/nezda/yawni/5d4d178fdfb54dcd9c2af2c8786eb11864ba48c2/data30/extras/"
    "morphosemantic-links.xls.tsv",
)
MORPHOSEMANTIC_HEADER = "arg1 sensekey\targ1 offset\trelation\targ2 sensekey\targ2 offset\targ1 gloss (abbreviated)\targ2 gloss (abbreviated)"


def build_morphosemantic_tsv(inputs: Path, root: Path) -> Path:
    """Write ``ROOT/wordnet/morphosemantic-links.tsv`` from yawni's conversion under ``inputs``."""
    lines = (inputs / YAWNI_TSV.path).read_bytes().split(b"\n")
    body = b"".join((line[:-1] if line.endswith(b"\t") else line) + b"\n" for line in lines if line)
    target = root / "wordnet" / "morphosemantic-links.tsv"
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(target, MORPHOSEMANTIC_HEADER.encode() + b"\n" + body)
    return target


WORDNET_RESOURCES = DataSource(
    "wordnet",
    "the WordNet 3.0 side resources into DATA/wordnet/ (negkit data get wordnet); WordNet 3.0 itself: "
    "sudo apt-get install wordnet-base",
    licence="Princeton WordNet licence (Core, Morphosemantic); CC BY 3.0 (Domains, MCR); BLC: GPL-2.0 in its repository",
    files=declared_files(Path(__file__).with_name("wordnet_files.json")),
    citation="boydgraber2006,bentivogli2004,fellbaum2009,izquierdo2007,gonzalezagirre2012",
    inputs=(YAWNI_TSV,),
    build=build_morphosemantic_tsv,
)
