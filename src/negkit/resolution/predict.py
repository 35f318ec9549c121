"""Run a negation resolution system over a corpus file and get a CD-SCO system document back.

The library side of ``negkit resolution predict`` and ``negkit resolution baseline``:

* :func:`predict` runs a trained :class:`~negkit.resolution.train.NegationResolver`, either end to end
  (predicted cues, then their scopes) or, with ``gold_cues=True``, its scope resolver alone on the cues
  annotated in the input (the setting of most published scope results, e.g. NegBERT's);
* :func:`baseline` runs the punctuation baseline (Punct-BL), which always starts from the gold cues.

Both read any corpus negkit reads (:func:`negkit.resolution.corpora.formats.read_corpus`: CD-SCO, BioScope XML, an SFU
Review folder or file) or the split of a named corpus (:func:`corpus_sentences`), and return a
:class:`~negkit.resolution.corpora.cdsco.CdscoDocument` that :func:`write_system` writes. :func:`gold_document` gives
the gold side of the same sentences in CD-SCO form, so BioScope and SFU can be scored with
``negkit resolution score`` like CD-SCO.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from negkit.errors import InputFormatError, NegkitError
from negkit.io.atomic import atomic_write_bytes, make_folder
from negkit.resolution.baseline import PunctuationBaseline
from negkit.resolution.corpora.cdsco import CdscoDocument, format_cdsco
from negkit.resolution.corpora.formats import read_corpus
from negkit.resolution.splits import load_split


def corpus_sentences(
    input: str | Path | None = None, *, corpus: str | None = None, split: str = "test", data: str | Path | None = None
) -> CdscoDocument:
    """The sentences of a corpus file (``input``) or of ``split`` of a named corpus (``corpus``).

    Exactly one of ``input`` and ``corpus`` is given. Sentences without tokens (one SFU sentence holds only
    empty words) are left out, since no CD-SCO line can hold them. A CD-SCO input keeps its layout
    (annotated or blind, final empty line); the others become annotated documents ending with an empty line.
    """
    if (input is None) == (corpus is None):
        raise NegkitError("give either an input file or --corpus NAME, not both and not neither")
    if corpus is not None:
        final_newlines = 1 if corpus in ("cd-sco", "cd-neg") and split != "test" else 2
        return CdscoDocument(load_split(corpus, split, data), final_newlines=final_newlines)
    assert input is not None  # exactly one of input and corpus is given (checked above)
    read = read_corpus(input)
    sentences = [sentence for sentence in read.sentences if sentence.tokens]
    if isinstance(read.sentences, CdscoDocument):
        return CdscoDocument(
            sentences, annotated=read.sentences.annotated, final_newlines=read.sentences.final_newlines
        )
    return CdscoDocument(sentences)


def require_gold_cues(document: CdscoDocument, source: str) -> None:
    """Raise :class:`InputFormatError` when ``document`` has no negation annotation (a blind CD-SCO file)."""
    if not document.annotated:
        raise InputFormatError(
            source, None, "has no negation columns (a blind file): gold cues need an annotated corpus"
        )


def predict(
    model: str | Path,
    input: str | Path | CdscoDocument | None = None,
    *,
    gold_cues: bool = False,
    corpus: str | None = None,
    split: str = "test",
    data: str | Path | None = None,
) -> CdscoDocument:
    """Cues and scopes predicted by the model folder ``model`` for a corpus file (or sentences already read by
    :func:`corpus_sentences`) or a corpus split.

    ``gold_cues=True`` keeps the annotated cues and predicts only their scopes (no events are predicted in
    either mode).
    """
    from negkit.resolution.systems import load_system  # pulls in torch: kept off the start-up path

    document = _document(input, corpus, split, data)
    if gold_cues:
        require_gold_cues(document, _name(input, corpus))
    resolver = load_system(model)
    predicted = resolver.predict(document, gold_cues=gold_cues)
    return CdscoDocument(predicted, final_newlines=document.final_newlines)


def baseline(
    input: str | Path | CdscoDocument | None = None,
    *,
    corpus: str | None = None,
    split: str = "test",
    data: str | Path | None = None,
) -> CdscoDocument:
    """Punct-BL (gold cues, punctuation-bounded scopes) for a corpus file (or sentences already read by
    :func:`corpus_sentences`) or a corpus split."""
    document = _document(input, corpus, split, data)
    require_gold_cues(document, _name(input, corpus))
    return CdscoDocument(PunctuationBaseline().predict(document), final_newlines=document.final_newlines)


def _document(
    input: str | Path | CdscoDocument | None, corpus: str | None, split: str, data: str | Path | None
) -> CdscoDocument:
    if isinstance(input, CdscoDocument):
        return input
    return corpus_sentences(input, corpus=corpus, split=split, data=data)


def _name(input: str | Path | CdscoDocument | None, corpus: str | None) -> str:
    if isinstance(input, CdscoDocument):
        return input[0].source or "input" if input else "input"
    return str(input if input is not None else corpus)


def gold_document(document: CdscoDocument) -> CdscoDocument:
    """The gold annotation of ``document``'s sentences as a CD-SCO document (speculation left out)."""
    return CdscoDocument(
        [replace(s, speculation=[]) for s in document],
        annotated=document.annotated,
        final_newlines=document.final_newlines,
    )


def write_system(document: CdscoDocument, out: str | Path) -> None:
    """Write ``document`` as CD-SCO to the file ``out`` (atomically, exact bytes; its missing folders created) or,
    for ``"-"``, to stdout."""
    text = format_cdsco(document)
    if str(out) == "-":
        sys.stdout.write(text)
        return
    folder = Path(out).parent
    if not any(place.exists() and not place.is_dir() for place in (folder, *folder.parents)):
        make_folder(folder)  # a file in the way is the write's error below, naming ``out``
    atomic_write_bytes(out, text.encode("utf-8"))
