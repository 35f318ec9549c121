"""Where the negation-resolution corpora come from: one :class:`negkit.kit.data.source.DataSource` per corpus, its
files declared with their URLs at pinned commits, hashes and sizes (``negkit data get cd-sco``, ...)."""

from __future__ import annotations

from pathlib import Path

from negkit.kit.data.declared import declared_files
from negkit.kit.data.source import DataSource

_HERE = Path(__file__).parent
_PRETRAINING = "github joey234/negation-focused-pretraining (data/)"

#: The resolution corpora by name (the names of ``negkit data get``; ``sfu`` reads ``sfu-review``).
CORPUS_SOURCES: dict[str, DataSource] = {
    "cd-sco": DataSource(
        "cd-sco",
        f"the *SEM 2012 CD-SCO release, as in {_PRETRAINING}",
        licence="none stated (Conan Doyle's text is public domain; the annotation terms are unstated)",
        files=declared_files(_HERE / "cd_sco_files.json"),
        citation="morante2012",
    ),
    "bioscope": DataSource(
        "bioscope",
        f"the BioScope XML files, as in {_PRETRAINING}",
        licence="no licence file (the original site offered it free for research use)",
        files=declared_files(_HERE / "bioscope_files.json"),
        citation="vincze2008",
    ),
    "sfu-review": DataSource(
        "sfu-review",
        f"the SFU Review corpus with negation and speculation, as in {_PRETRAINING}",
        licence="GPL-3.0-or-later",
        files=declared_files(_HERE / "sfu_review_files.json"),
        citation="konstantinova2012",
    ),
    "norec-neg": DataSource(
        "norec-neg",
        "github ltgoslo/norec_neg data/negation_{train,dev,test}.json and modeling/evaluation/neg_{dev,test}.starsem",
        licence="CC BY-NC 4.0 (non-commercial)",
        files=declared_files(_HERE / "norec_neg_files.json"),
        citation="maehlum2021",
    ),
    "ud-english-ewt": DataSource(
        "training/ud-english-ewt",
        "github UniversalDependencies/UD_English-EWT en_ewt-ud-{train,dev,test}.conllu (gzipped) and LICENSE.txt",
        licence="CC BY-SA 4.0",
        files=declared_files(_HERE / "ud_english_ewt_files.json"),
        citation="silveira2014",
    ),
}
