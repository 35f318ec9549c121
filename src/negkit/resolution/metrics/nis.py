"""Negation-instance based scores (NIS) of Sineva, Grünewald, Friedrich and Kuhn (CoNLL 2021).

Reproduces ``instance_based_eval/run_evaluation.py`` of their published code with its Python
3.11/3.12 bug fixed (empty cells are found by equality with ``_``), see the metric specification,
section 8:

* files are read the script's way: stripped lines, ``#`` lines skipped, sentences paired by position,
  the last sentence read completely (no end-of-file rule), token ids from field 3;
* an instance is a triple with at least one cue cell; its cue is the list of (token id, cue cell) and
  its scope the list of (token id, scope cell) over scope cells containing a Unicode word character
  (punctuation is decided by the cell text, not the POS tag; no abbreviation rule);
* system instances are paired, in order, with unused gold instances whose cue list is identical;
* cue P/R = pairs / system instances, pairs / gold instances;
* NIS_tok (the script's default): per pair p = c / |system scope| and r = c / |gold scope| with c the
  shared scope entries (empty/empty: 1, 1; empty gold: 0, 1; empty system: 1, 0), P = sum p / N_s,
  R = sum r / N_g;
* the token-weighted ``-t`` variant: P = sum c / all system scope entries, R = sum c / all gold scope
  entries;
* NIS_ex, which the published code does not compute, in two readings, both reported:
  ``nis_ex``, the **instance-based reading** (the formula taken literally): e = 1 when the two scope lists are
  identical (two empty scopes included), P = sum e / N_s, R = sum e / N_g; and ``nis_ex_nonempty``, the reading
  of the paper's table column (which it equates with *SEM's "Scopes B (cue match)"): only instances with a
  non-empty scope count, e = 1 when a non-empty gold scope is matched exactly, P = sum e / system instances with
  a non-empty scope, R = sum e / gold instances with a non-empty scope (docs/scorer.md says why they differ).

F1 = 2PR / (P + R) from unrounded values. Where the script divides by zero (no system or gold
instance, no scope entry at all) the value here is 0 and nothing crashes. Before scoring, the files
go through the *SEM scorer's checks (:func:`negkit.resolution.metrics.starsem.validate_system`; strict by default),
as the specification recommends, because the script itself checks nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields

from negkit.errors import InputFormatError
from negkit.resolution.corpora.cdsco import BASE_FIELDS, EMPTY_CELL, NO_NEGATION, CdscoLines
from negkit.resolution.metrics.starsem_lines import validate_system

_UNICODE_WORD_CHARACTER = re.compile(r"\w")
_NO_ANNOTATION_END = "\t" + NO_NEGATION


@dataclass(frozen=True)
class NisInstance:
    """A negation instance as the NIS script sees it: (token id, cell) lists of its cue and scope."""

    cue: tuple[tuple[str, str], ...]
    scope: tuple[tuple[str, str], ...]


def read_nis_sentences(source: CdscoLines) -> list[list[list[str]]]:
    """Sentences as the NIS script reads them: stripped, non-comment lines split on tabs.

    A line without annotation (8 fields, the last ``***``) contributes nothing and is kept as an empty
    list, which saves splitting it.
    """
    sentences: list[list[list[str]]] = []
    current: list[list[str]] = []
    for number, line in enumerate(source.lines, start=1):
        stripped = line.strip()
        if not stripped:
            if current:
                sentences.append(current)
                current = []
            continue
        if stripped.startswith("#"):
            continue
        if stripped.endswith(_NO_ANNOTATION_END) and stripped.count("\t") == BASE_FIELDS:
            current.append([])
            continue
        parts = stripped.split("\t")
        extra = len(parts) - BASE_FIELDS
        if extra > 0 and extra % 3 and not (len(parts) == BASE_FIELDS + 1 and parts[BASE_FIELDS] == NO_NEGATION):
            raise InputFormatError(
                source.path, number, f"{len(parts)} fields: the NIS script reads only 7 + 3n fields or 8 with ***"
            )
        current.append(parts)
    if current:
        sentences.append(current)
    return sentences


def nis_instances(sentence: Sequence[Sequence[str]]) -> list[NisInstance]:
    """The instances of one sentence (spec 8.2), in triple order."""
    triples = max((len(parts) - BASE_FIELDS) // 3 for parts in sentence)
    instances = []
    for k in range(triples):
        column = BASE_FIELDS + 3 * k
        cue: list[tuple[str, str]] = []
        scope: list[tuple[str, str]] = []
        for parts in sentence:
            if len(parts) < column + 3:
                continue
            if parts[column] != EMPTY_CELL:
                cue.append((parts[2], parts[column]))
            cell = parts[column + 1]
            if cell != EMPTY_CELL and _UNICODE_WORD_CHARACTER.search(cell):
                scope.append((parts[2], cell))
        if cue:
            instances.append(NisInstance(tuple(cue), tuple(scope)))
    return instances


@dataclass
class NisCounts:
    """The sums behind every NIS number."""

    gold_instances: int = 0
    system_instances: int = 0
    pairs: int = 0
    precision_sum: float = 0.0  # NIS_tok: sum over pairs of per-instance precision
    recall_sum: float = 0.0  # NIS_tok: sum over pairs of per-instance recall
    exact_scopes: int = 0  # NIS_ex: pairs with identical scope lists
    exact_nonempty_scopes: int = 0  # NIS_ex, non-empty reading: pairs with identical non-empty scope lists
    gold_nonempty_scopes: int = 0  # instances with a non-empty scope
    system_nonempty_scopes: int = 0
    shared_scope_tokens: int = 0  # -t: sum over pairs of shared scope entries
    gold_scope_tokens: int = 0
    system_scope_tokens: int = 0


def _pair_scores(gold: NisInstance, system: NisInstance) -> tuple[float, float, int]:
    """Per-instance precision, recall and shared entry count of a pair (spec 8.5)."""
    system_entries = set(system.scope)
    shared = sum(1 for entry in gold.scope if entry in system_entries)
    if not gold.scope:
        return (1.0 if not system.scope else 0.0), 1.0, shared
    if not system.scope:
        return 1.0, 0.0, shared
    return shared / len(system.scope), shared / len(gold.scope), shared


def count_nis_by_sentence(gold: CdscoLines, system: CdscoLines) -> list[NisCounts]:
    """The NIS sums of each sentence pair, in order (no validation; see :func:`score_nis`).

    Every NIS number is a ratio of sums over sentences, so these per-sentence counts are what a bootstrap
    over sentences resamples (:mod:`negkit.resolution.metrics.nis_intervals`).
    """
    result = []
    for gold_sentence, system_sentence in zip(read_nis_sentences(gold), read_nis_sentences(system)):
        result.append(NisCounts())
        _accumulate(result[-1], nis_instances(gold_sentence), nis_instances(system_sentence))
    return result


def _accumulate(counts: NisCounts, gold_instances: list[NisInstance], system_instances: list[NisInstance]) -> None:
    """Add one sentence pair's sums to ``counts`` (pairs in the script's order, so float sums match it)."""
    counts.gold_instances += len(gold_instances)
    counts.system_instances += len(system_instances)
    counts.gold_scope_tokens += sum(len(g.scope) for g in gold_instances)
    counts.system_scope_tokens += sum(len(s.scope) for s in system_instances)
    counts.gold_nonempty_scopes += sum(1 for g in gold_instances if g.scope)
    counts.system_nonempty_scopes += sum(1 for s in system_instances if s.scope)
    used = [False] * len(gold_instances)
    for s in system_instances:
        for index, g in enumerate(gold_instances):
            if used[index] or g.cue != s.cue:
                continue  # the script goes on after a pair; identical gold cues could pair twice
            used[index] = True
            precision, recall, shared = _pair_scores(g, s)
            counts.pairs += 1
            counts.precision_sum += precision
            counts.recall_sum += recall
            counts.shared_scope_tokens += shared
            counts.exact_scopes += g.scope == s.scope
            counts.exact_nonempty_scopes += bool(g.scope) and g.scope == s.scope


def count_nis(gold: CdscoLines, system: CdscoLines) -> NisCounts:
    """Accumulate the NIS sums over sentence pairs (no validation; see :func:`score_nis`)."""
    counts = NisCounts()
    for gold_sentence, system_sentence in zip(read_nis_sentences(gold), read_nis_sentences(system)):
        _accumulate(counts, nis_instances(gold_sentence), nis_instances(system_sentence))
    return counts


@dataclass(frozen=True)
class PRF:
    """Precision, recall and F1 as fractions in [0, 1]."""

    precision: float
    recall: float
    f1: float

    @classmethod
    def from_values(cls, precision: float, recall: float) -> PRF:
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        return cls(precision, recall, f1)

    def percent(self) -> dict[str, float]:
        return {"precision": self.precision * 100, "recall": self.recall * 100, "f1": self.f1 * 100}


def _ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else 0.0


@dataclass(frozen=True)
class NisScores:
    """Cue scores (exact cue match), NIS_tok, its token-weighted variant and NIS_ex in its two readings."""

    cue: PRF
    nis_tok: PRF
    nis_tok_tokens: PRF
    nis_ex: PRF
    nis_ex_nonempty: PRF

    @classmethod
    def from_counts(cls, c: NisCounts) -> NisScores:
        return cls(
            cue=PRF.from_values(_ratio(c.pairs, c.system_instances), _ratio(c.pairs, c.gold_instances)),
            nis_tok=PRF.from_values(
                _ratio(c.precision_sum, c.system_instances), _ratio(c.recall_sum, c.gold_instances)
            ),
            nis_tok_tokens=PRF.from_values(
                _ratio(c.shared_scope_tokens, c.system_scope_tokens), _ratio(c.shared_scope_tokens, c.gold_scope_tokens)
            ),
            nis_ex=PRF.from_values(
                _ratio(c.exact_scopes, c.system_instances), _ratio(c.exact_scopes, c.gold_instances)
            ),
            nis_ex_nonempty=PRF.from_values(
                _ratio(c.exact_nonempty_scopes, c.system_nonempty_scopes),
                _ratio(c.exact_nonempty_scopes, c.gold_nonempty_scopes),
            ),
        )

    def format_script(self, *, token_weighted: bool = False) -> str:
        """The six lines ``run_evaluation.py`` prints (``token_weighted``: its ``-t`` output)."""
        scope = self.nis_tok_tokens if token_weighted else self.nis_tok
        lines = [
            f"Cue precision: {self.cue.precision * 100:.1f}",
            f"Cue recall: {self.cue.recall * 100:.1f}",
            f"Cue F1: {self.cue.f1 * 100:.1f}",
            "",
            f"Scope precision: {scope.precision * 100:.1f}",
            f"Scope recall: {scope.recall * 100:.1f}",
            f"Scope F1: {scope.f1 * 100:.1f}",
        ]
        return "\n".join(lines) + "\n"

    def format_block(self, title: str = "NIS (Sineva et al. 2021)") -> str:
        """A small table of every NIS number in percent with one decimal."""
        rows = [
            ("Cues (exact match):", self.cue),
            ("NIS_tok:", self.nis_tok),
            ("NIS_tok token-weighted (-t):", self.nis_tok_tokens),
            ("NIS_ex (literal, all instances):", self.nis_ex),
            ("NIS_ex (paper's column, = SCM-B):", self.nis_ex_nonempty),
        ]
        lines = [f"{title:<34}| precision (%) | recall (%) | F1  (%)"]
        for label, prf in rows:
            lines.append(f"{label:<34}| {prf.precision * 100:13.1f} | {prf.recall * 100:10.1f} | {prf.f1 * 100:7.1f}")
        return "\n".join(lines) + "\n"

    def to_dict(self) -> dict[str, dict[str, float]]:
        """Percentages (unrounded) of every score."""
        return {item.name: getattr(self, item.name).percent() for item in fields(self)}


def mean_scores(scores: Sequence[NisScores]) -> NisScores:
    """The arithmetic mean of each number over several system files (the mean of the F1s, spec 8.8)."""
    if not scores:
        raise ValueError("mean_scores needs at least one result")

    def mean_prf(name: str) -> PRF:
        values = [getattr(s, name) for s in scores]
        return PRF(
            sum(v.precision for v in values) / len(values),
            sum(v.recall for v in values) / len(values),
            sum(v.f1 for v in values) / len(values),
        )

    return NisScores(**{item.name: mean_prf(item.name) for item in fields(NisScores)})


@dataclass(frozen=True)
class NisResult:
    """NIS scores of one system file and the sums they come from."""

    scores: NisScores
    counts: NisCounts
    gold_path: str = ""
    system_path: str = ""

    def to_dict(self) -> dict:
        return {**self.scores.to_dict(), "counts": asdict(self.counts)}


def score_nis(gold: CdscoLines, system: CdscoLines, *, strict: bool = True, validate: bool = True) -> NisResult:
    """Score a system file with the NIS metrics (see the module docstring).

    The files first pass :func:`negkit.resolution.metrics.starsem.validate_system` (``strict`` as there); pass
    ``validate=False`` only when they already did.
    """
    if validate:
        validate_system(gold, system, strict=strict)
    counts = count_nis(gold, system)
    return NisResult(NisScores.from_counts(counts), counts, gold.path, system.path)
