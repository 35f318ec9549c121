"""Tag raw text: tokenise it CD-SCO style, split it into sentences, find cues and their scopes.

:func:`tag` uses a trained :class:`~negkit.resolution.train.NegationResolver` (a model folder given
explicitly, by ``NEGKIT_RESOLUTION_MODEL``, or the cache folder ``~/.cache/negkit/resolution-model``).
Without one it can fall back to :class:`LexiconPunctuationTagger`: a fixed list of common English
negation words as cues and the punctuation baseline's scope; results then say so in their ``system``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from negkit.errors import NegkitError
from negkit.resolution.baseline import punctuation_scope
from negkit.resolution.instances import NegationInstance, ResolutionSentence, Token, TokenPart
from negkit.resolution.tokenize import tokenize

MODEL_ENVIRONMENT_VARIABLE = "NEGKIT_RESOLUTION_MODEL"
DEFAULT_MODEL_CACHE = Path("~/.cache/negkit/resolution-model")
FALLBACK_SYSTEM = "fallback: negation word list + punctuation scope (no trained model)"
#: Whole-word cues of the fallback tagger (lower case).
FALLBACK_CUES = frozenset("not n't no never nothing nobody none nowhere neither nor without cannot".split())
_SENTENCE_END = frozenset({".", "!", "?"})
_CLOSERS = frozenset({"''", '"', "'", ")", "\u201d", "\u2019"})


def split_sentences(text: str) -> list[list[Token]]:
    """Tokens of ``text`` grouped into sentences: a sentence ends after ``.``/``!``/``?`` and any closing
    quotes or brackets (a straight quote glued to the next word opens the next sentence instead)."""
    tokens = tokenize(text)
    sentences: list[list[Token]] = []
    start = position = 0
    while position < len(tokens):
        if tokens[position].text in _SENTENCE_END:
            while position + 1 < len(tokens) and _is_closing(tokens, position + 1):
                position += 1
            sentences.append(tokens[start : position + 1])
            start = position + 1
        position += 1
    if start < len(tokens):
        sentences.append(tokens[start:])
    return sentences


def _is_closing(tokens: list[Token], position: int) -> bool:
    token = tokens[position]
    if token.text not in _CLOSERS:
        return False
    following = tokens[position + 1] if position + 1 < len(tokens) else None
    return following is None or following.char_start != token.char_end


def raw_sentences(text: str) -> list[ResolutionSentence]:
    """Unannotated sentences of ``text`` whose tokens keep character offsets into ``text``."""
    return [
        ResolutionSentence(tokens=tokens, sentence_id=f"text/{number}", chapter="text", number=str(number), text=text)
        for number, tokens in enumerate(split_sentences(text))
    ]


class LexiconPunctuationTagger:
    """The always-available fallback: cues from :data:`FALLBACK_CUES`, scopes from the punctuation baseline."""

    name = FALLBACK_SYSTEM

    def predict(self, sentences: Sequence[ResolutionSentence]) -> list[ResolutionSentence]:
        result = []
        for sentence in sentences:
            cues = [
                (TokenPart(i, t.text, 0),) for i, t in enumerate(sentence.tokens) if t.text.lower() in FALLBACK_CUES
            ]
            instances = [NegationInstance(cue=cue, scope=punctuation_scope(sentence.tokens, cue)) for cue in cues]
            result.append(replace(sentence, instances=instances))
        return result


def default_model_dir() -> Path | None:
    """``NEGKIT_RESOLUTION_MODEL`` if set, else the cache folder when it holds a model, else ``None``."""
    from negkit.resolution.train import CONFIG_FILE  # loads torch: off the start-up path

    configured = os.environ.get(MODEL_ENVIRONMENT_VARIABLE)
    if configured:
        return Path(configured)
    cached = DEFAULT_MODEL_CACHE.expanduser()
    return cached if (cached / CONFIG_FILE).exists() else None


def load_tagging_system(model: str | Path | None = None, fallback: bool = True):
    """The system :func:`tag` uses: ``model``, else :func:`default_model_dir`, else the fallback (if allowed)."""
    from negkit.resolution.systems import load_system  # loads torch: off the start-up path

    folder = Path(model) if model is not None else default_model_dir()
    if folder is not None:
        return load_system(folder)
    if fallback:
        return LexiconPunctuationTagger()
    raise NegkitError(
        "no trained negation resolution model: pass --model DIR, set "
        f"{MODEL_ENVIRONMENT_VARIABLE}, or train one with "
        f"`negkit resolution train --corpus cd-sco --out {DEFAULT_MODEL_CACHE}`"
    )


@dataclass(frozen=True)
class Span:
    """A cue or scope part: token index, the annotated text and its character offsets in the input text."""

    token: int
    text: str
    char_start: int | None
    char_end: int | None


def part_span(part: TokenPart, token: Token) -> Span:
    """Character offsets of ``part`` (a whole token or an affix/remainder of it) in the input text."""
    if token.char_start is None or part.start is None:
        return Span(part.index, part.text, None, None)
    start = token.char_start + part.start
    return Span(part.index, part.text, start, start + len(part.text))


def sentence_to_json(sentence: ResolutionSentence) -> dict[str, object]:
    """A JSON-ready description of a tagged sentence: tokens with offsets, cues and scopes as spans."""
    return {
        "text": sentence.text[sentence.tokens[0].char_start : sentence.tokens[-1].char_end]
        if sentence.text is not None and sentence.tokens and sentence.tokens[0].char_start is not None
        else " ".join(sentence.words),
        "tokens": [{"text": t.text, "char_start": t.char_start, "char_end": t.char_end} for t in sentence.tokens],
        "negations": [
            {
                "cue": [part_span(p, sentence.tokens[p.index]).__dict__ for p in instance.cue],
                "scope": [part_span(p, sentence.tokens[p.index]).__dict__ for p in instance.scope],
            }
            for instance in sentence.instances
        ],
    }


def tag(text: str, model: str | Path | None = None, fallback: bool = True) -> list[ResolutionSentence]:
    """Negation cues and scopes of raw ``text``, one annotated sentence per sentence of the text.

    ``model`` is a folder written by ``negkit resolution train``; see :func:`load_tagging_system` for what
    is used when it is ``None``. Turn the result into JSON with :func:`sentence_to_json` or into CD-SCO
    lines with :func:`negkit.resolution.corpora.cdsco.format_cdsco`.
    """
    return load_tagging_system(model, fallback).predict(raw_sentences(text))
