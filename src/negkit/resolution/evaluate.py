"""In-domain and cross-domain evaluation of negation resolution systems with the *SEM and NIS scorers.

Gold and predicted sentences are written as CD-SCO text and scored exactly like files by
:func:`negkit.resolution.metrics.starsem.score_starsem` and :func:`negkit.resolution.metrics.nis.score_nis`. A model trained
on one corpus is evaluated on the test split of any corpus (Sineva et al. 2021, Tables 2 and 3).
With ``gold_cues=True`` only the scope resolver runs, on the annotated cues (scope resolution from gold
cues, the setting of NegBERT's and most published scope results). With ``bootstrap`` resamples, every
*SEM row and NIS score gets a 95% interval from resampling sentences.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from negkit.kit.metrics.intervals import IntervalSettings
from negkit.resolution.corpora.cdsco import format_cdsco, lines_from_text
from negkit.resolution.instances import ResolutionSentence
from negkit.resolution.metrics.nis import NisResult, count_nis_by_sentence, score_nis
from negkit.resolution.metrics.nis_intervals import nis_intervals
from negkit.resolution.metrics.starsem import StarsemResult, count_starsem_by_sentence, score_starsem
from negkit.resolution.metrics.starsem_intervals import starsem_intervals
from negkit.resolution.splits import load_split


@dataclass(frozen=True)
class Evaluation:
    """Scores of one system on one corpus split."""

    system: str
    corpus: str
    split: str
    starsem: StarsemResult
    nis: NisResult
    #: True when the system was given the gold cues and predicted only their scopes.
    gold_cues: bool = False
    #: ``{"starsem": {ROW.precision|recall|f1: interval}, "nis": {SCORE.precision|recall|f1: interval}}``
    #: (empty without a bootstrap).
    intervals: dict[str, Any] = field(default_factory=dict)

    def headline(self) -> dict[str, float]:
        """The numbers of the paper's tables, in percent: Cues-B F1, SCM, SCM-B, scope tokens, NIS_tok."""
        rows = {
            name: self.starsem.row(name)
            for name in ("Cues B", "Scopes(cue match)", "Scopes B (cue match)", "Scope tokens(no cue match)")
        }
        nis = self.nis.scores
        return {
            "cues_b_f1": float(rows["Cues B"].f1),
            "scm_f1": float(rows["Scopes(cue match)"].f1),
            "scm_b_f1": float(rows["Scopes B (cue match)"].f1),
            "scope_tokens_p": float(rows["Scope tokens(no cue match)"].precision),
            "scope_tokens_r": float(rows["Scope tokens(no cue match)"].recall),
            "scope_tokens_f1": float(rows["Scope tokens(no cue match)"].f1),
            "nis_cue_f1": nis.cue.f1 * 100,
            "nis_tok_p": nis.nis_tok.precision * 100,
            "nis_tok_r": nis.nis_tok.recall * 100,
            "nis_tok_f1": nis.nis_tok.f1 * 100,
        }

    def to_json(self) -> dict[str, object]:
        return {
            "system": self.system,
            "corpus": self.corpus,
            "split": self.split,
            "gold_cues": self.gold_cues,
            **self.headline(),
            "starsem": self.starsem.to_dict(),
            "nis": self.nis.to_dict(),
            **({"intervals": self.intervals} if self.intervals else {}),
        }

    def interval(self, key: str) -> tuple[float, float] | None:
        """The 95% interval (low, high) of a :meth:`headline` value, when a bootstrap was run."""
        source, path = _INTERVAL_PATHS[key]
        entry = self.intervals.get(source, {}).get(path)
        low, high = entry.get("ci", (None, None)) if entry else (None, None)
        if low is None or high is None:
            return None
        return float(low), float(high)


#: :meth:`Evaluation.headline` key -> (scorer, interval path).
_INTERVAL_PATHS: dict[str, tuple[str, str]] = {
    "cues_b_f1": ("starsem", "Cues B.f1"),
    "scm_f1": ("starsem", "Scopes(cue match).f1"),
    "scm_b_f1": ("starsem", "Scopes B (cue match).f1"),
    "scope_tokens_p": ("starsem", "Scope tokens(no cue match).precision"),
    "scope_tokens_r": ("starsem", "Scope tokens(no cue match).recall"),
    "scope_tokens_f1": ("starsem", "Scope tokens(no cue match).f1"),
    "nis_cue_f1": ("nis", "cue.f1"),
    "nis_tok_p": ("nis", "nis_tok.precision"),
    "nis_tok_r": ("nis", "nis_tok.recall"),
    "nis_tok_f1": ("nis", "nis_tok.f1"),
}


def score_sentences(
    gold: Sequence[ResolutionSentence],
    predicted: Sequence[ResolutionSentence],
    system: str = "system",
    corpus: str = "",
    split: str = "",
    *,
    gold_cues: bool = False,
    bootstrap: int = 0,
    seed: int = 0,
) -> Evaluation:
    """*SEM and NIS scores of ``predicted`` against ``gold`` (same sentences, same order); with ``bootstrap``
    resamples of sentences (seeded by ``seed``), 95% intervals of every score."""
    gold_lines = lines_from_text(format_cdsco(gold, final_newlines=2), f"{corpus or 'gold'}-{split or 'sentences'}")
    system_lines = lines_from_text(format_cdsco(predicted, final_newlines=2), system)
    starsem = score_starsem(gold_lines, system_lines)
    nis = score_nis(gold_lines, system_lines, validate=False)
    intervals: dict[str, Any] = {}
    if bootstrap:
        settings = IntervalSettings(bootstrap, seed)
        intervals = {
            "starsem": starsem_intervals(count_starsem_by_sentence(gold_lines, system_lines), settings),
            "nis": nis_intervals(count_nis_by_sentence(gold_lines, system_lines), settings),
        }
    return Evaluation(system, corpus, split, starsem, nis, gold_cues, intervals)


def evaluate_model(
    model: str | Path,
    corpora: Sequence[str],
    split: str = "test",
    data: str | Path | None = None,
    *,
    gold_cues: bool = False,
    bootstrap: int = 0,
    seed: int = 0,
) -> list[Evaluation]:
    """Evaluate a saved model on ``split`` of each corpus (in-domain or cross-domain).

    ``gold_cues=True`` runs only the scope resolver, on the gold cues; ``bootstrap`` > 0 adds 95% intervals
    (resampling sentences, seeded by ``seed``).
    """
    from negkit.resolution.systems import load_system  # pulls in torch: kept off the start-up path

    resolver = load_system(model)
    results = []
    for corpus in corpora:
        gold = load_split(corpus, split, data)
        predicted = resolver.predict(gold, gold_cues=gold_cues)
        results.append(
            score_sentences(
                gold, predicted, str(model), corpus, split, gold_cues=gold_cues, bootstrap=bootstrap, seed=seed
            )
        )
    return results


def format_evaluation(results: Sequence[Evaluation]) -> str:
    """A Markdown table with one row per evaluation (percentages)."""
    header = (
        "| system | corpus | split | cues | Cues-B F1 | SCM | SCM-B | Scope tok P | R | F1 "
        "| NIS cue F1 | NIS_tok P | R | F1 |"
    )
    lines = [header, "|" + "---|" * 14]
    for result in results:
        h = result.headline()
        values = " | ".join(_cell(h[key], result.interval(key)) for key in _INTERVAL_PATHS)
        cues = "gold" if result.gold_cues else "predicted"
        lines.append(f"| {result.system} | {result.corpus} | {result.split} | {cues} | {values} |")
    if any(result.intervals for result in results):
        lines.append("")
        lines.append("[low, high]: 95% percentile bootstrap intervals, resampling sentences.")
    return "\n".join(lines)


def _cell(value: float, interval: tuple[float, float] | None) -> str:
    return f"{value:.1f}" if interval is None else f"{value:.1f} [{interval[0]:.1f}, {interval[1]:.1f}]"
