"""Held-out text: sentences of BioScope (biomedical abstracts and full papers) and of the SFU Review corpus
(product reviews), each scored whole for its log-probability per token and perplexity
(:mod:`negkit.kit.tasks.text_likelihood`). Not a negation benchmark: a guard against damage to a model's
language by negation training (docs/results/negation-training.md). No training source of ``negkit finetune``
reads these corpora, so every sentence is held out from it.

From each of the three corpora, in file order, the first :data:`PER_KIND` sentences with a negation cue and the
first :data:`PER_KIND` without one (``cue type="negation"``), of :data:`MIN_WORDS` to :data:`MAX_WORDS` words: 600
sentences, so every metric is given for negated and affirmative sentences too. BioScope's anonymised clinical
records (every word a ``*``) are left out. SFU's sentences are stored as tokens (``<W>``); they are joined back into
text by :func:`detokenize`. The data folder is ``bioscope``; SFU is read from its sibling ``sfu-review``.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from negkit.errors import InputFormatError
from negkit.kit.citations import BIOSCOPE_BIBTEX, SFU_REVIEW_BIBTEX
from negkit.kit.data.declared import declared_files
from negkit.kit.suites import DataSource, register_suite
from negkit.kit.suites.kinds import declared_suite
from negkit.kit.tasks.text_likelihood import HeldOutText, TextItem

NAME = "heldout-text"
#: BioScope's two corpora with text, by group name.
BIOSCOPE_FILES = {"bioscope-abstracts": "abstracts.xml", "bioscope-papers": "full_papers.xml"}
SFU_GROUP, SFU_FOLDER = "sfu-reviews", "sfu-review"
GROUPS = (*BIOSCOPE_FILES, SFU_GROUP)
#: Sentences kept per corpus and kind (with a negation cue, without one).
PER_KIND = 100
MIN_WORDS, MAX_WORDS = 4, 60
#: Tokens written without a space before them (punctuation, clitics) or after them (opening brackets).
NO_SPACE_BEFORE = re.compile(r"^([.,;:!?%)\]}]|n't|'[a-zA-Z]*)$")
NO_SPACE_AFTER = frozenset("([{$")


def detokenize(tokens: list[str]) -> str:
    """SFU's tokens as text: a space between tokens except before punctuation and clitics (``n't``, ``'s``) and
    after an opening bracket."""
    text = ""
    for position, token in enumerate(tokens):
        glued = position == 0 or NO_SPACE_BEFORE.match(token) or tokens[position - 1] in NO_SPACE_AFTER
        text += token if glued else " " + token
    return text


def _parsed(path: Path) -> ElementTree.Element:
    try:
        return ElementTree.parse(path).getroot()
    except ElementTree.ParseError as error:
        raise InputFormatError(path, error.position[0], f"not well-formed XML ({error})") from None
    except OSError as error:
        raise InputFormatError(path, None, f"cannot read it ({error.strerror or error})") from None


def _negated(sentence: ElementTree.Element) -> bool:
    return any(cue.get("type") == "negation" for cue in sentence.iter("cue"))


def _take(kept: list[TextItem], counts: dict[bool, int], item: TextItem) -> None:
    """Keep ``item`` while its kind has fewer than :data:`PER_KIND` and its length is in range."""
    words = len(item.text.split())
    if counts[item.negated] < PER_KIND and MIN_WORDS <= words <= MAX_WORDS:
        kept.append(item)
        counts[item.negated] += 1


def read_bioscope_text(path: Path, group: str) -> list[TextItem]:
    kept: list[TextItem] = []
    counts = {True: 0, False: 0}
    for sentence in _parsed(path).iter("sentence"):
        if min(counts.values()) >= PER_KIND:
            break
        text = " ".join("".join(sentence.itertext()).split())
        _take(kept, counts, TextItem(f"{group}-{sentence.get('id')}", group, text, _negated(sentence)))
    return kept


def sfu_files(folder: Path) -> list[Path]:
    files = sorted((folder / SFU_FOLDER).rglob("*.xml"))
    if not files:
        raise InputFormatError(folder / SFU_FOLDER, None, "no SFU Review corpus files (*.xml; see its README)")
    return files


def read_sfu_text(folder: Path) -> tuple[list[TextItem], list[Path]]:
    """The SFU sentences kept, and the files read to find them (in sorted order, until both kinds are full)."""
    kept: list[TextItem] = []
    counts = {True: 0, False: 0}
    read: list[Path] = []
    for path in sfu_files(folder):
        if min(counts.values()) >= PER_KIND:
            break
        read.append(path)
        document = path.relative_to(folder / SFU_FOLDER).with_suffix("").as_posix()
        for number, sentence in enumerate(_parsed(path).iter("SENTENCE")):
            text = detokenize([word.text or "" for word in sentence.iter("W")])
            _take(kept, counts, TextItem(f"sfu-{document}-{number}", SFU_GROUP, text, _negated(sentence)))
    return kept, read


def _bioscope_paths(folder: Path) -> dict[str, Path]:
    paths = {group: folder / name for group, name in BIOSCOPE_FILES.items()}
    for path in paths.values():
        if not path.is_file():
            raise InputFormatError(path, None, "no such file (a BioScope corpus file; see the data folder's README)")
    return paths


def read_heldout_text(folder: str | Path, split: str = "test") -> list[TextItem]:
    folder = Path(folder)
    items = [item for group, path in _bioscope_paths(folder).items() for item in read_bioscope_text(path, group)]
    return items + read_sfu_text(folder.parent)[0]


def heldout_files(folder: str | Path, split: str = "test") -> list[Path]:
    folder = Path(folder)
    return [*_bioscope_paths(folder).values(), *read_sfu_text(folder.parent)[1]]


HELDOUT_TEXT = HeldOutText(
    NAME,
    read_heldout_text,
    heldout_files,
    title="Held-out text: BioScope and SFU Review sentences (a guard, not a negation result)",
    dataset="bioscope",
    groups=GROUPS,
)

SUITE = register_suite(
    declared_suite(
        HELDOUT_TEXT,
        DataSource(
            "bioscope",
            "BioScope's abstracts.xml and full_papers.xml into DATA/bioscope/, and the SFU Review corpus "
            "(SFU_Review_Corpus_Negation_Speculation) into DATA/sfu-review/ (see each folder's README)",
            licence="BioScope: free for research use (Univ. of Szeged); SFU Review corpus: see its release",
            files=declared_files(Path(__file__).with_name("heldout_text_files.json")),
            citation="vincze2008,konstantinova2012",
        ),
        "Held-out text: log-probability per token and perplexity of 600 BioScope and SFU Review sentences, a guard "
        "against damage by negation training",
        bibtex=BIOSCOPE_BIBTEX + "\n\n" + SFU_REVIEW_BIBTEX,
        reader=read_heldout_text,
        order=62,
        default_run=False,
    )
)
