"""Read NoReC_neg (Mæhlum et al., NoDaLiDa 2021): Norwegian review sentences with negation cues and scopes.

``negation_{train,dev,test}.json`` are JSON arrays of ``{"sent_id", "text", "negations"}``: ``text`` is the
tokenised sentence (tokens separated by single spaces), each negation ``{"Cue": [[strings], ["start:end"]], "Scope":
[[strings], [offsets]], "Affixal": bool}`` with character offsets into ``text``; cues and scopes may be
discontinuous, an affixal cue covers part of a token ("u" of "uvanlig", its scope "vanlig") and a scope may be
empty. :func:`read_norec` reads a split into the common :class:`~negkit.resolution.instances.ResolutionSentence`
(a span is cut into its tokens; a part of a token keeps its offset in the word; the sentence id is
``DOCUMENT/SENT_ID``, the document being the NoReC review id before the first ``-``, and written as *SEM the
sentence has the gold files' columns 1 and 2: ``_`` and ``SENT_ID``). The dev and test gold also come in
the *SEM 2012 (CD-SCO) format (``neg_{dev,test}.starsem``), which :func:`negkit.resolution.corpora.cdsco.read_cdsco`
reads as it is; the two give the same cues and scopes (checked by the tests). Bad input names the file and the
sentence (the files are one JSON array each).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from negkit.errors import InputFormatError, quoted
from negkit.io.textfiles import read_text
from negkit.resolution.instances import NegationInstance, ResolutionSentence, Token, TokenPart

SPLITS = ("train", "dev", "test")


def _token_spans(text: str) -> list[tuple[int, int]]:
    spans, start = [], 0
    for word in text.split(" "):
        if word:
            spans.append((start, start + len(word)))
        start += len(word) + 1
    return spans


def _parts(path: Path, where: str, text: str, spans: list[tuple[int, int]], field: Any) -> tuple[TokenPart, ...]:
    """The token parts of a ``[[strings], ["start:end", ...]]`` annotation."""
    if not (
        isinstance(field, list)
        and len(field) == 2
        and all(isinstance(values, list) for values in field)
        and len(field[0]) == len(field[1])
    ):
        raise InputFormatError(path, None, f"{where}: expected [[strings], [offsets]], found {quoted(field, 60)}")
    parts: list[TokenPart] = []
    for string, offsets in zip(*field):
        start_text, _, end_text = str(offsets).partition(":")
        if (
            not (start_text.isdigit() and end_text.isdigit())
            or int(end_text) > len(text)
            or text[int(start_text) : int(end_text)] != string
        ):
            raise InputFormatError(path, None, f"{where}: offsets {quoted(offsets)} do not hold {quoted(string)}")
        start, end = int(start_text), int(end_text)
        for index, (token_start, token_end) in enumerate(spans):
            low, high = max(start, token_start), min(end, token_end)
            if low < high:
                parts.append(TokenPart(index, text[low:high], low - token_start))
    # a span given twice (the data repeats some scope spans) is one part
    return tuple(sorted(set(parts), key=lambda part: (part.index, part.start or 0)))


def norec_sentence(path: Path, position: int, record: Mapping[str, Any]) -> ResolutionSentence:
    """One JSON record as a sentence (``position``: its place in the file's array, for errors)."""
    sent_id, text, negations = record.get("sent_id"), record.get("text"), record.get("negations")
    where = f"sentence {position} ({quoted(sent_id)})"
    if not isinstance(sent_id, str) or not isinstance(text, str) or not text.strip() or not isinstance(negations, list):
        raise InputFormatError(path, None, f"{where}: expected 'sent_id', 'text' and a list 'negations'")
    spans = _token_spans(text)
    instances = []
    for number, negation in enumerate(negations, start=1):
        if not isinstance(negation, dict) or "Cue" not in negation:
            raise InputFormatError(path, None, f"{where}, negation {number}: expected an object with 'Cue'")
        cue = _parts(path, f"{where}, negation {number}, Cue", text, spans, negation["Cue"])
        if not cue:
            raise InputFormatError(path, None, f"{where}, negation {number}: empty cue")
        scope = _parts(path, f"{where}, negation {number}, Scope", text, spans, negation.get("Scope", [[], []]))
        instances.append(NegationInstance(cue, scope))
    tokens = [Token(text[start:end], char_start=start, char_end=end) for start, end in spans]
    return ResolutionSentence(
        tokens,
        instances,
        f"{sent_id.split('-', 1)[0]}/{sent_id}",
        chapter="_",
        number=sent_id,
        text=text,
        source=str(path),
    )


def read_norec(folder: str | Path, split: str = "test") -> list[ResolutionSentence]:
    """The sentences of ``FOLDER/negation_SPLIT.json`` (``split``: train, dev or test; a file path is read as it is)."""
    path = Path(folder)
    if path.is_dir():
        if split not in SPLITS:
            raise InputFormatError(path, None, f"unknown NoReC_neg split {split!r} (expected {', '.join(SPLITS)})")
        path = path / f"negation_{split}.json"
    try:
        data = json.loads(read_text(path, "NoReC_neg file"))
    except json.JSONDecodeError as error:
        raise InputFormatError(path, error.lineno, f"invalid JSON ({error.msg})") from None
    if not isinstance(data, list):
        raise InputFormatError(path, 1, "expected a JSON array of sentences")
    return [
        norec_sentence(path, position, record if isinstance(record, dict) else {})
        for position, record in enumerate(data, start=1)
    ]


def instance_spans(sentences: Sequence[ResolutionSentence]) -> list[list[tuple[tuple[int, ...], tuple[int, ...]]]]:
    """Per sentence, each negation's cue and scope token indices (sorted): what two readings must agree on."""
    return [
        sorted(
            (tuple(sorted(set(instance.cue_indices))), tuple(sorted(set(instance.scope_indices))))
            for instance in sentence.instances
        )
        for sentence in sentences
    ]
