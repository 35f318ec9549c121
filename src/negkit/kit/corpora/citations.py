"""The papers behind the negation-resolution corpora, for ``negkit cite CORPUS`` (BibTeX by corpus name)."""

from __future__ import annotations

from negkit.kit.citations import BIOSCOPE_BIBTEX, SFU_REVIEW_BIBTEX

#: The *SEM 2012 shared task (its scorer and the CD-SCO splits) and the ConanDoyle-neg annotation.
CD_SCO_BIBTEX = r"""@inproceedings{morante2012,
  title = {*{SEM} 2012 Shared Task: Resolving the Scope and Focus of Negation},
  author = {Morante, Roser and Blanco, Eduardo},
  booktitle = {*SEM 2012: The First Joint Conference on Lexical and Computational Semantics},
  year = {2012},
  publisher = {Association for Computational Linguistics},
  url = {https://aclanthology.org/S12-1035}
}

@inproceedings{morante2012a,
  title = {{ConanDoyle-neg}: Annotation of negation cues and their scope in {C}onan {D}oyle stories},
  author = {Morante, Roser and Daelemans, Walter},
  booktitle = {Proceedings of the Eighth International Conference on Language Resources and Evaluation ({LREC}'12)},
  year = {2012},
  publisher = {European Language Resources Association (ELRA)}
}"""
#: UD English EWT, the treebank the dependency-parser systems train on.
UD_ENGLISH_EWT_BIBTEX = r"""@inproceedings{silveira2014,
  title = {A Gold Standard Dependency Corpus for {E}nglish},
  author = {Silveira, Natalia and Dozat, Timothy and de Marneffe, Marie-Catherine and Bowman, Samuel and Connor, Miriam and Bauer, John and Manning, Christopher D.},
  booktitle = {Proceedings of the Ninth International Conference on Language Resources and Evaluation ({LREC}'14)},
  year = {2014},
  publisher = {European Language Resources Association (ELRA)}
}"""
NOREC_BIBTEX = r"""@inproceedings{maehlum2021,
  title = {Negation in {N}orwegian: an annotated dataset},
  author = {M{\ae}hlum, Petter and Barnes, Jeremy and Kurtz, Robin and {\O}vrelid, Lilja and Velldal, Erik},
  booktitle = {Proceedings of the 23rd Nordic Conference on Computational Linguistics (NoDaLiDa)},
  year = {2021},
  publisher = {Link{\"o}ping University Electronic Press}
}"""

#: BibTeX of each resolution data set, by its name in ``negkit data get`` (the keys of
#: :data:`negkit.kit.corpora.sources.CORPUS_SOURCES`).
CORPUS_BIBTEX: dict[str, str] = {
    "cd-sco": CD_SCO_BIBTEX,
    "bioscope": BIOSCOPE_BIBTEX,
    "sfu-review": SFU_REVIEW_BIBTEX,
    "norec-neg": NOREC_BIBTEX,
    "ud-english-ewt": UD_ENGLISH_EWT_BIBTEX,
}
#: The corpus names of ``negkit resolution`` (:data:`negkit.resolution.splits.ALL_CORPORA`) that differ from them.
CORPUS_ALIASES: dict[str, str] = {"cd-neg": "cd-sco", "sfu": "sfu-review", "norec": "norec-neg"}


def corpus_bibtex(name: str) -> str | None:
    """The BibTeX of a resolution corpus by either name (None: not a corpus)."""
    return CORPUS_BIBTEX.get(CORPUS_ALIASES.get(name, name))
