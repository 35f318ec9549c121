"""BLiMP's negation and NPI-licensing paradigms asked of a language model (Warstadt et al., 2020).

Each sentence of a pair is scored whole: its log-probability is the sum over all its tokens, the first one
conditioned on the model's prefix token (the tokenizer's BOS token where it defines one, else its EOS token; the
results record which under ``model.load.prefix_token``). This is the LM Evaluation Harness's ``blimp_*`` protocol:
an empty context (the prefix token) and each sentence as the continuation after the Harness's default target
delimiter, one space (``" " + sentence``). The pair is right when the good sentence scores at least as high as the
bad one. The two sentences of a pair share their beginning (often most of the sentence), which the engine's prefix
tree runs once.

``--limit N`` keeps the first ``ceil(N / 7)`` pairs of every paradigm.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from negkit.data.blimp import PARADIGMS, MinimalPair, blimp_files, read_blimp
from negkit.data.locate import locate_dataset
from negkit.metrics.blimp import blimp_report, pair_correct
from negkit.models.base import LoglikelihoodRequest, LoglikelihoodResult
from negkit.tasks.base import TaskData, register_task, resolve_limit

#: The LM Evaluation Harness's default target delimiter, put before each sentence (after the empty context).
TARGET_DELIMITER = " "
PROTOCOL = ("sum of the log-probabilities of every token of ' ' + sentence, the first conditioned on the model's "
            "prefix token (BOS, else EOS)")


@register_task("blimp-negation", "BLiMP negation / NPI licensing: whole-sentence log-probability of each minimal pair")
class BlimpTask:
    """The seven BLiMP negation paradigms (the only split is the whole set: ``test``)."""

    name = "blimp-negation"
    dataset = "blimp-negation"
    model_kind = "language_model"
    accepts: frozenset[str] = frozenset()
    uses_seed = False
    splits: tuple[str, ...] = ("test",)

    def __init__(self, target_delimiter: str = TARGET_DELIMITER) -> None:
        self.target_delimiter = target_delimiter

    def config(self) -> dict[str, Any]:
        return {"task": self.name, "protocol": PROTOCOL, "context": "", "target_delimiter": self.target_delimiter,
                "first_token_conditioned_on": "the model's prefix token (results: model.load.prefix_token)",
                "choices": ["sentence_good", "sentence_bad"], "paradigms": list(PARADIGMS)}

    def prompt_template(self, model: Any) -> str:
        """What is scored: the sentence after the delimiter (the context is the prefix token alone)."""
        return self.target_delimiter + "{sentence}"

    def load(self, data: str | Path | None, split: str, limit: int | None, seed: int) -> TaskData:
        folder = locate_dataset(self.dataset, data)
        pairs = read_blimp(folder)
        total = len(pairs)
        limit = resolve_limit(limit, total)
        if limit is not None:
            per_paradigm = -(-limit // len(PARADIGMS))
            counts: dict[str, int] = {}
            kept = []
            for pair in pairs:
                counts[pair.paradigm] = counts.get(pair.paradigm, 0) + 1
                if counts[pair.paradigm] <= per_paradigm:
                    kept.append(pair)
            pairs = kept
        selection = {"split": split, "limit": limit, "count": len(pairs), "items_in_split": total}
        return TaskData(pairs, blimp_files(folder), selection)

    def requests(self, items: Sequence[MinimalPair], model: Any = None) -> list[tuple[LoglikelihoodRequest, ...]]:
        """Per pair: the good sentence, then the bad one, each a whole sequence after the empty context."""
        return [(LoglikelihoodRequest("", self.target_delimiter + pair.good),
                 LoglikelihoodRequest("", self.target_delimiter + pair.bad)) for pair in items]

    def records(self, items: Sequence[MinimalPair], responses: Sequence[Sequence[LoglikelihoodResult]]) -> list[dict[str, Any]]:
        records = []
        for pair, (good, bad) in zip(items, responses):
            correct = pair_correct(good.logprob, bad.logprob)
            records.append({"item_id": pair.item_id, "paradigm": pair.paradigm, "pair_id": pair.pair_id,
                            "sentence_good": pair.good, "sentence_bad": pair.bad,
                            "logprob_good": good.logprob, "logprob_bad": bad.logprob,
                            "tokens_good": good.n_tokens, "tokens_bad": bad.n_tokens,
                            "prediction": "good" if correct else "bad", "gold": "good", "correct": correct})
        return records

    def metrics(self, items: Sequence[MinimalPair], records: Sequence[dict[str, Any]]) -> dict[str, Any]:
        return blimp_report(records) | {"protocol": "whole sentence after the prefix token"}

    def intervals(self, items: Sequence[MinimalPair], records: Sequence[dict[str, Any]], settings: Any = None) -> dict[str, Any]:
        """95% intervals of the accuracies, resampling pairs (:mod:`negkit.metrics.blimp`)."""
        from negkit.metrics.blimp import blimp_estimands
        from negkit.metrics.intervals import intervals_json

        return intervals_json(blimp_estimands(records), settings)

    def tables(self, metrics: dict[str, Any]) -> str:
        from negkit.report.blimp import blimp_tables

        return blimp_tables(metrics)
