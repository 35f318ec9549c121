"""BLiMP's negation and NPI-licensing paradigms (Warstadt et al., 2020): seven paradigms of 1,000 minimal pairs.

Each sentence of a pair is scored whole: its log-probability is the sum over all its tokens, the first one
conditioned on the model's prefix token (the tokenizer's BOS token where it defines one, else its EOS token; the
results record which under ``model.load.prefix_token``). This is the LM Evaluation Harness's ``blimp_*`` protocol:
an empty context (the prefix token) and each sentence as the continuation after the Harness's default target
delimiter, one space (``" " + sentence``). The pair is right when the good sentence scores at least as high as the
bad one (a tie goes to the first choice, the good sentence, as the Harness's arg-max). The two sentences of a pair
share their beginning, which the engine's prefix tree runs once. Reader: :func:`negkit.data.blimp.read_blimp`;
metrics: :mod:`negkit.metrics.blimp` (accuracy per paradigm, the mean over the seven and the pooled accuracy);
intervals resample pairs. ``--limit N`` keeps the first ``ceil(N / 7)`` pairs of every paradigm.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from negkit.data.blimp import PARADIGMS, MinimalPair, blimp_files, read_blimp
from negkit.data.locate import locate_dataset
from negkit.data.predictions import field, read_predictions, string
from negkit.errors import InputFormatError, quoted
from negkit.metrics.blimp import blimp_estimands, blimp_report, pair_correct
from negkit.metrics.intervals import IntervalSettings, intervals_json
from negkit.models.base import LoglikelihoodRequest, LoglikelihoodResult
from negkit.report import plots
from negkit.report.blimp import blimp_tables
from negkit.report.figures import triple
from negkit.report.run_records import need
from negkit.report.suite_view import Figure
from negkit.suites.description import DataSource, SuiteDescription, SuiteScore, TaskEntry
from negkit.suites.registry import register_suite
from negkit.tasks.base import TaskData, resolve_limit

NAME = "blimp-negation"
#: The LM Evaluation Harness's default target delimiter, put before each sentence (after the empty context).
TARGET_DELIMITER = " "
PROTOCOL = ("sum of the log-probabilities of every token of ' ' + sentence, the first conditioned on the model's "
            "prefix token (BOS, else EOS)")


class BlimpTask:
    """The seven BLiMP negation paradigms (the only split is the whole set: ``test``)."""

    name = NAME
    dataset = NAME
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
        return intervals_json(blimp_estimands(records), settings)

    def tables(self, metrics: dict[str, Any]) -> str:
        return blimp_tables(metrics)


def read_pair_predictions(path: str | Path, pairs: Mapping[str, MinimalPair]) -> dict[str, bool]:
    """BLiMP predictions: item id -> whether the good sentence was chosen. A line names its pair by ``item_id``
    (``blimp-PARADIGM-PAIRID``, or ``paradigm`` and ``pairID``) and gives ``prediction`` (``good`` / ``bad``, or
    0 / 1: the index of the sentence chosen) or the two log-probabilities ``logprob_good`` and ``logprob_bad``;
    ``negkit eval``'s ``blimp-negation.samples.jsonl`` is read as well."""
    path = Path(path)

    def item_id_of(line: int, record: Mapping[str, Any]) -> str:
        if "item_id" not in record and "paradigm" in record and "pairID" in record:
            return f"blimp-{string(path, line, record, 'paradigm')}-{record['pairID']}"
        if "item_id" not in record:
            raise InputFormatError(path, line, "missing field 'item_id' (or 'paradigm' and 'pairID')")
        return string(path, line, record, "item_id")

    def good_chosen(line: int, record: Mapping[str, Any]) -> bool:
        if "prediction" not in record and "logprob_good" in record:
            scores = [field(path, line, record, name) for name in ("logprob_good", "logprob_bad")]
            if any(isinstance(score, bool) or not isinstance(score, (int, float)) for score in scores):
                raise InputFormatError(path, line, "fields 'logprob_good' and 'logprob_bad' must be numbers")
            return pair_correct(float(scores[0]), float(scores[1]))
        value = field(path, line, record, "prediction")
        if value in ("good", 0) and not isinstance(value, bool):
            return True
        if value in ("bad", 1) and not isinstance(value, bool):
            return False
        raise InputFormatError(path, line, f"field 'prediction': {quoted(value, 40)} is not good, bad, 0 or 1")

    return read_predictions(path, set(pairs), item_id_of, good_chosen)


def score_blimp(path: Path, name: str = "predictions", data: str | None = None,
                intervals: IntervalSettings | None = IntervalSettings()) -> SuiteScore:
    """Accuracy per paradigm and over the seven for the predicted pairs."""
    pairs = {pair.item_id: pair for pair in read_blimp(locate_dataset(NAME, data))}
    chosen = read_pair_predictions(path, pairs)
    records = [{"item_id": item_id, "paradigm": pair.paradigm, "correct": chosen[item_id]}
               for item_id, pair in pairs.items() if item_id in chosen]
    metrics = blimp_report(records) | {"data_count": len(pairs), "source": name}
    if intervals is not None:
        metrics["intervals"] = intervals_json(blimp_estimands(records), intervals)
    return SuiteScore(metrics, blimp_tables(metrics))


def blimp_figures(metrics: dict[str, Any], records: Sequence[dict[str, Any]] | None = None) -> list[Figure]:
    """Accuracy per paradigm and over the seven (95% intervals; dashed: chance)."""
    names = list(metrics["paradigms"])
    bars = plots.interval_bars(
        [*names, "mean of paradigms"],
        {"accuracy": [triple(metrics, f"paradigms.{name}.accuracy") for name in names] + [triple(metrics, "overall.accuracy")]},
        "BLiMP negation / NPI licensing: good sentence preferred", "accuracy", (0, 1), reference=0.5, width=8.0)
    return [("Accuracy per paradigm and over the seven (95% intervals; dashed: chance)", bars)]


def _estimands(records: Sequence[dict[str, Any]], path: Path) -> list[Any]:
    fields = ("item_id", "paradigm", "correct")
    return blimp_estimands([{name: need(record, name, path, number) for name in fields}
                            for number, record in enumerate(records, start=1)])


SUITE = register_suite(SuiteDescription(
    name=NAME,
    title="BLiMP negation and NPI licensing",
    aliases=("blimp",),
    tasks=(TaskEntry(NAME, BlimpTask, "BLiMP negation / NPI licensing: whole-sentence log-probability of each "
                     "minimal pair (7 paradigms)"),),
    main_task=NAME,
    data=DataSource(NAME, "github alexwarstadt/blimp data/PARADIGM.jsonl of the seven negation / NPI paradigms into "
                    "DATA/blimp-negation/", licence="CC BY 4.0 (github alexwarstadt/blimp)"),
    reader=read_blimp,
    metrics=blimp_report,
    scorer=score_blimp,
    scorer_help="BLiMP negation: accuracy per paradigm from {item_id, prediction (good/bad)} or "
                "{item_id, logprob_good, logprob_bad} lines",
    interval_unit="minimal pair",
    primary_metric="overall.accuracy",
    figures=blimp_figures,
    record_estimands=_estimands,
    order=60,
))
