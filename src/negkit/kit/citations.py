"""Citations: the BibTeX entries of negkit and of the papers whose data and protocols a run used.

Each benchmark declares its papers' entries beside its code (``SuiteDescription.bibtex``, raw BibTeX); this module
parses such text into entries keyed by their citation key, merges the entries of several suites without
repeating one, and holds negkit's own entry. ``negkit cite`` (:mod:`negkit.commands.cite`), ``results.json``
(``citations``) and ``report.html`` (its "How to cite" section) all read them through here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from negkit.kit.view import SuiteLookup

#: negkit's own entry (CITATION.cff at the repository's root says the same).
NEGKIT_BIBTEX = r"""@software{negkit,
  title = {negkit: measuring how language models handle negation},
  author = {{The negkit developers}},
  year = {2026},
  version = {0.1.0},
  license = {Apache-2.0},
  note = {TIND, Thunder-NUBench, negation resolution, NaN-NLI, ScoNe and other negation benchmarks in one toolkit}
}"""

#: Corpora that both a benchmark (the held-out text guard) and negation resolution read, cited by both.
BIOSCOPE_BIBTEX = r"""@article{vincze2008,
  title = {The {BioScope} corpus: biomedical texts annotated for uncertainty, negation and their scopes},
  author = {Vincze, Veronika and Szarvas, Gy{\"o}rgy and Farkas, Rich{\'a}rd and M{\'o}ra, Gy{\"o}rgy and Csirik, J{\'a}nos},
  journal = {BMC Bioinformatics},
  volume = {9},
  number = {Suppl 11},
  pages = {S9},
  year = {2008}
}"""
SFU_REVIEW_BIBTEX = r"""@inproceedings{konstantinova2012,
  title = {A review corpus annotated for negation, speculation and their scope},
  author = {Konstantinova, Natalia and de Sousa, Sheila C. M. and Cruz D{\'i}az, Noa P. and Ma{\~n}a L{\'o}pez, Manuel J. and Taboada, Maite and Mitkov, Ruslan},
  booktitle = {Proceedings of the Eighth International Conference on Language Resources and Evaluation ({LREC}'12)},
  year = {2012},
  publisher = {European Language Resources Association (ELRA)}
}"""

_ENTRY_START = re.compile(r"@\s*([A-Za-z]+)\s*\{\s*([^,\s]+)\s*,")


class BibtexError(ValueError):
    """Text that is not a sequence of BibTeX entries (an unbalanced brace, a missing key)."""


def bibtex_entries(text: str) -> dict[str, str]:
    """The entries of BibTeX ``text`` by citation key, each as written (from ``@`` to its closing brace), in order.

    A brace left open, text outside an entry or a key given twice is a :class:`BibtexError`."""
    entries: dict[str, str] = {}
    position = 0
    while True:
        rest = text[position:]
        if not rest.strip():
            return entries
        match = _ENTRY_START.search(text, position)
        if match is None or text[position : match.start()].strip():
            raise BibtexError(f"expected a BibTeX entry ('@type{{key, ...}}') at: {rest.strip()[:40]!r}")
        depth, end = 0, None
        for index in range(text.index("{", match.start()), len(text)):
            if text[index] == "{":
                depth += 1
            elif text[index] == "}":
                depth -= 1
                if depth == 0:
                    end = index + 1
                    break
        key = match.group(2)
        if end is None:
            raise BibtexError(f"BibTeX entry {key!r}: a brace is never closed")
        if key in entries:
            raise BibtexError(f"BibTeX key {key!r} is given twice")
        entries[key] = text[match.start() : end]
        position = end


def merge_bibtex(texts: Iterable[str]) -> dict[str, str]:
    """The entries of several BibTeX texts by key, each key once (the first text that gives it wins), in order."""
    merged: dict[str, str] = {}
    for text in texts:
        for key, entry in bibtex_entries(text).items():
            merged.setdefault(key, entry)
    return merged


def bibtex_text(entries: dict[str, str]) -> str:
    """Entries as one BibTeX file's text (a blank line between entries, a final newline)."""
    return "\n\n".join(entries.values()) + "\n" if entries else ""


def lookup_citations(task_names: Iterable[str], suites: SuiteLookup) -> dict[str, str]:
    """negkit's entry, then the entries of the suites of ``task_names`` as ``suites`` gives them (each paper once)."""
    texts = [NEGKIT_BIBTEX]
    for name in task_names:
        view = suites(name)
        if view is not None:
            texts.append(view.bibtex)
    return merge_bibtex(texts)
