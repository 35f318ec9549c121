"""Tiny CD-SCO files written inline for the scorer tests.

``S(1, "not RB not _ _", "bad JJ _ bad bad")`` is sentence 1 of chapter ``c``: each token is
"WORD POS CELLS...", where the cells are ``***`` or three cells (cue, scope, event) per instance.
The lemma is the lower-cased word and the parse fragment ``*``.
"""

from __future__ import annotations

from negkit.resolution.corpora.cdsco import CdscoLines, lines_from_text
from negkit.resolution.metrics.starsem import StarsemResult, score_starsem


def S(number: int, *tokens: str, chapter: str = "c") -> list[str]:
    lines = []
    for index, token in enumerate(tokens):
        word, pos, *cells = token.split(" ")
        lines.append("\t".join([chapter, str(number), str(index), word, word.lower(), pos, "*", *cells]))
    return lines


def conll(*sentences: list[str], final_blank: bool = True) -> str:
    text = "\n\n".join("\n".join(lines) for lines in sentences) + "\n"
    return text + "\n" if final_blank else text


def lines(text: str, name: str) -> CdscoLines:
    return lines_from_text(text, name)


def score(gold: str, system: str, **options) -> StarsemResult:
    return score_starsem(lines(gold, "gold.txt"), lines(system, "system.txt"), **options)


def row(result: StarsemResult, label: str) -> tuple:
    """(gold, system, tp, fp, fn, precision, recall, F1) of a row, as printed."""
    r = result.row(label)
    return (r.gold, r.system, r.tp, r.fp, r.fn, r.precision, r.recall, r.f1)


def sentence_stats(result: StarsemResult) -> tuple:
    """(# sentences, # negation sentences, # negation sentences with errors, % correct, % correct negation)."""
    c = result.counts
    return (
        c.sentences,
        c.negation_sentences,
        c.negation_error_sentences,
        result.percent_correct_sentences,
        result.percent_correct_negation_sentences,
    )
