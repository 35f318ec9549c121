"""In-domain and cross-domain evaluation of negation resolution systems with the *SEM and NIS scorers.

Gold and predicted sentences are written as CD-SCO text and scored exactly like files by
:func:`negkit.metrics.starsem.score_starsem` and :func:`negkit.metrics.nis.score_nis`. A model trained
on one corpus is evaluated on the test split of any corpus (Sineva et al. 2021, Tables 2 and 3).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from negkit.data.cdsco import format_cdsco, lines_from_text
from negkit.data.resolution import ResolutionSentence
from negkit.metrics.nis import NisResult, score_nis
from negkit.metrics.starsem import StarsemResult, score_starsem
from negkit.resolution.splits import load_split


@dataclass(frozen=True)
class Evaluation:
    """Scores of one system on one corpus split."""

    system: str
    corpus: str
    split: str
    starsem: StarsemResult
    nis: NisResult

    def headline(self) -> dict[str, float]:
        """The numbers of the paper's tables, in percent: Cues-B F1, SCM, SCM-B, scope tokens, NIS_tok."""
        rows = {name: self.starsem.row(name) for name in
                ("Cues B", "Scopes(cue match)", "Scopes B (cue match)", "Scope tokens(no cue match)")}
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
        return {"system": self.system, "corpus": self.corpus, "split": self.split, **self.headline(),
                "starsem": self.starsem.to_dict(), "nis": self.nis.to_dict()}


def score_sentences(gold: Sequence[ResolutionSentence], predicted: Sequence[ResolutionSentence],
                    system: str = "system", corpus: str = "", split: str = "") -> Evaluation:
    """*SEM and NIS scores of ``predicted`` against ``gold`` (same sentences, same order)."""
    gold_lines = lines_from_text(format_cdsco(gold, final_newlines=2), f"{corpus or 'gold'}-{split or 'sentences'}")
    system_lines = lines_from_text(format_cdsco(predicted, final_newlines=2), system)
    starsem = score_starsem(gold_lines, system_lines)
    nis = score_nis(gold_lines, system_lines, validate=False)
    return Evaluation(system, corpus, split, starsem, nis)


def evaluate_model(model: str | Path, corpora: Sequence[str], split: str = "test",
                   data: str | Path | None = None) -> list[Evaluation]:
    """Evaluate a saved model on ``split`` of each corpus (in-domain or cross-domain)."""
    from negkit.resolution.train import NegationResolver  # loads torch: off the start-up path

    resolver = NegationResolver.load(model)
    results = []
    for corpus in corpora:
        gold = load_split(corpus, split, data)
        results.append(score_sentences(gold, resolver.predict(gold), str(model), corpus, split))
    return results


def format_evaluation(results: Sequence[Evaluation]) -> str:
    """A Markdown table with one row per evaluation (percentages)."""
    header = ("| system | corpus | split | Cues-B F1 | SCM | SCM-B | Scope tok P | R | F1 "
              "| NIS cue F1 | NIS_tok P | R | F1 |")
    lines = [header, "|" + "---|" * 13]
    for result in results:
        h = result.headline()
        values = " | ".join(f"{h[key]:.1f}" for key in (
            "cues_b_f1", "scm_f1", "scm_b_f1", "scope_tokens_p", "scope_tokens_r", "scope_tokens_f1",
            "nis_cue_f1", "nis_tok_p", "nis_tok_r", "nis_tok_f1"))
        lines.append(f"| {result.system} | {result.corpus} | {result.split} | {values} |")
    return "\n".join(lines)
