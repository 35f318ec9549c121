"""Train/dev/test splits of the negation corpora.

* CD-SCO: the official *SEM 2012 files (test = cardboard followed by circle, as the scorer is run);
* BioScope abstracts and SFU Review: fixed 80/10/10 splits by document, drawn once with a seeded shuffle
  and shipped as document id lists in ``negkit/resolution/splits/*.json`` so everyone gets the same ones.
  :func:`make_document_split` is the procedure that drew them;
* NoReC_neg (``norec``, Norwegian): the authors' train / dev / test files (``negation_SPLIT.json``, the splits of
  NoReC, Mæhlum et al. 2021); written as *SEM, its test split is byte for byte the authors' ``neg_test.starsem``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

from negkit.errors import NegkitError
from negkit.kit.data.locate import locate_dataset
from negkit.resolution.corpora.cdsco import read_cdsco
from negkit.resolution.corpora.formats import read_corpus
from negkit.resolution.corpora.norec import read_norec
from negkit.resolution.instances import ResolutionSentence

CORPORA = ("cd-sco", "bioscope", "sfu")
#: CD-SCO read with coordinated negation split (CD-neg, :mod:`negkit.resolution.corpora.cdneg`).
CD_NEG = "cd-neg"
#: NoReC_neg, Norwegian (:mod:`negkit.resolution.corpora.norec`), read from the data folder ``norec-neg``.
NOREC, NOREC_FOLDER = "norec", "norec-neg"
#: Every corpus name :func:`load_split` takes.
ALL_CORPORA = (*CORPORA, CD_NEG, NOREC)
#: The corpora whose splits are files of their own (not document lists of negkit's).
FILE_SPLIT_CORPORA = ("cd-sco", CD_NEG, NOREC)
SPLITS = ("train", "dev", "test")
SPLIT_SEED = 2012
CDSCO_FILES: dict[str, tuple[str, ...]] = {
    "train": ("SEM-2012-SharedTask-CD-SCO-training-09032012.txt",),
    "dev": ("SEM-2012-SharedTask-CD-SCO-dev-09032012.txt",),
    "test": ("SEM-2012-SharedTask-CD-SCO-test-cardboard-GOLD.txt", "SEM-2012-SharedTask-CD-SCO-test-circle-GOLD.txt"),
}
#: The corpus file read for each document-split corpus, relative to its data folder.
DOCUMENT_CORPUS_FILES: dict[str, str] = {"bioscope": "abstracts.xml", "sfu": "."}


def document_id(sentence: ResolutionSentence) -> str:
    """The document a sentence belongs to: its id up to the last ``/`` (readers write ``DOCUMENT/SENTENCE``)."""
    return sentence.sentence_id.rsplit("/", 1)[0]


def make_document_split(
    document_ids: Sequence[str], seed: int = SPLIT_SEED, fractions: tuple[float, float] = (0.8, 0.1)
) -> dict[str, list[str]]:
    """Shuffle the distinct documents (sorted first, so input order does not matter) and cut 80/10/10."""
    documents = sorted(set(document_ids))
    random.Random(seed).shuffle(documents)
    n_train = round(fractions[0] * len(documents))
    n_dev = round(fractions[1] * len(documents))
    return {
        "train": documents[:n_train],
        "dev": documents[n_train : n_train + n_dev],
        "test": documents[n_train + n_dev :],
    }


def split_file(corpus: str) -> Path:
    """The packaged JSON file with the document ids of each split of ``corpus``."""
    return Path(str(resources.files("negkit.resolution") / "splits" / f"{corpus}.json"))


def documents_of_split(corpus: str, split: str) -> list[str]:
    data = json.loads(split_file(corpus).read_text())
    return list(data[split])


def load_split(corpus: str, split: str, data: str | Path | None = None) -> list[ResolutionSentence]:
    """The sentences of ``split`` ("train", "dev", "test") of ``corpus`` ("cd-sco", "bioscope", "sfu", "norec", or
    "cd-neg": CD-SCO with coordinated negation split into one instance per negator)."""
    if corpus not in ALL_CORPORA:
        raise NegkitError(f"unknown corpus {corpus!r} (expected one of {', '.join(ALL_CORPORA)})")
    if split not in SPLITS:
        raise NegkitError(f"unknown split {split!r} (expected one of {', '.join(SPLITS)})")
    if corpus in ("cd-sco", CD_NEG):
        folder = locate_dataset("cd-sco", data)
        return [
            sentence for name in CDSCO_FILES[split] for sentence in read_cdsco(folder / name, cd_neg=corpus == CD_NEG)
        ]
    if corpus == NOREC:
        return read_norec(locate_dataset(NOREC_FOLDER, data), split)
    wanted = set(documents_of_split(corpus, split))
    # a sentence without tokens (one SFU sentence holds only empty W elements) can be neither tagged nor
    # written as CD-SCO, so it is left out
    return [s for s in read_document_corpus(corpus, data) if document_id(s) in wanted and s.tokens]


def read_document_corpus(corpus: str, data: str | Path | None = None) -> list[ResolutionSentence]:
    """Every sentence of the BioScope abstracts or the SFU Review corpus."""
    folder = locate_dataset(corpus, data)
    return read_corpus(folder / DOCUMENT_CORPUS_FILES[corpus], format=corpus).sentences
