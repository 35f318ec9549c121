"""Held-out text, declared: a benchmark whose items are plain sentences states where they come from in a
:class:`HeldOutText` and gets their likelihood under the model from here: a guard against damage to a model's
language by fine-tuning, not a negation result.

Each sentence is scored whole, as BLiMP's sentences are (:mod:`negkit.kit.tasks.pairs`): the sum of the
log-probabilities of all its tokens after an empty context, the first conditioned on the model's prefix token. The
headline is the mean log-probability per token over all sentences (``sum of log-probabilities / sum of tokens``,
in nats; higher is better), with the perplexity ``exp(-mean)`` beside it; both per group (e.g. the corpus) and for
sentences with and without a negation cue, with intervals resampling sentences. ``limit`` keeps the first
``ceil(N / groups)`` sentences of every group.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from negkit.errors import InputFormatError, quoted
from negkit.kit.data.predictions import field as record_field
from negkit.kit.data.predictions import is_number, read_predictions, string
from negkit.kit.metrics.intervals import Estimand, ratio_estimand
from negkit.kit.render import plots
from negkit.kit.render.figures import triple
from negkit.kit.render.markdown import interval_note, markdown_table
from negkit.kit.runs import need
from negkit.kit.tasks.base import TaskData, load_grouped
from negkit.kit.tasks.declared import DeclaredTask, own_field
from negkit.kit.view import Figure
from negkit.models.base import LoglikelihoodRequest, LoglikelihoodResult

#: The two sentence kinds every metric is also given for.
POLARITIES = ("negated", "affirmative")


@dataclass(frozen=True)
class TextItem:
    """One sentence: its id, its group (e.g. the corpus), the text, and whether it holds a negation cue."""

    item_id: str
    group: str
    text: str
    negated: bool


@dataclass(frozen=True)
class HeldOutText(DeclaredTask[TextItem]):
    """Where a held-out-text benchmark's sentences come from (see the module documentation): ``read(folder,
    split)`` gives them and ``files(folder, split)`` the files it read; ``groups`` is the report order."""

    unit: str = own_field("sentence")

    def task(self) -> TextLikelihoodTask:
        return TextLikelihoodTask(self)


def polarity(negated: bool) -> str:
    return POLARITIES[0] if negated else POLARITIES[1]


class TextLikelihoodTask:
    """A :class:`HeldOutText` benchmark as a task (its only split is the whole set, ``test``)."""

    model_kind = "language_model"
    accepts: frozenset[str] = frozenset()
    uses_seed = False
    splits: tuple[str, ...] = ("test",)
    target_delimiter = " "

    def __init__(self, spec: HeldOutText) -> None:
        self.spec, self.name, self.dataset = spec, spec.name, spec.dataset or spec.name

    def config(self) -> dict[str, Any]:
        return {
            "task": self.name,
            "protocol": "sum of the log-probabilities of every token of ' ' + sentence, the first conditioned on "
            "the model's prefix token (BOS, else EOS); per token: that sum over the sentences / their tokens",
            "context": "",
            "target_delimiter": self.target_delimiter,
            "groups": list(self.spec.groups),
        }

    def prompt_template(self, model: Any) -> str:
        return self.target_delimiter + "{text}"

    def load(self, data: str | Path | None, split: str, limit: int | float | None, seed: int) -> TaskData:
        return load_grouped(self, data, split, limit, lambda item: item.group)

    def requests(self, items: Sequence[TextItem], model: Any = None) -> list[tuple[LoglikelihoodRequest, ...]]:
        return [(LoglikelihoodRequest("", self.target_delimiter + item.text),) for item in items]

    def records(
        self, items: Sequence[TextItem], responses: Sequence[Sequence[LoglikelihoodResult]]
    ) -> list[dict[str, Any]]:
        return [
            {
                "item_id": item.item_id,
                "group": item.group,
                "negated": item.negated,
                "text": item.text,
                "logprob": scored.logprob,
                "tokens": scored.n_tokens,
                "logprob_per_token": scored.logprob / scored.n_tokens if scored.n_tokens else 0.0,
            }
            for item, (scored,) in zip(items, responses)
        ]

    def metrics(self, items: Sequence[TextItem], records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        groups = {name: _summary([r for r in records if r["group"] == name]) for name in _groups(records, self.spec)}
        kinds = {kind: _summary([r for r in records if polarity(r["negated"]) == kind]) for kind in POLARITIES}
        return {
            "count": len(records),
            "groups": groups,
            "polarity": {kind: values for kind, values in kinds.items() if values["sentences"]},
            "overall": _summary(records),
        }

    def estimands(
        self, items: Sequence[TextItem], records: Sequence[Mapping[str, Any]], headline_only: bool = False
    ) -> list[Estimand]:
        """The mean log-probability per token overall (the headline), per group and per polarity, resampling
        sentences."""
        units = [str(record["item_id"]) for record in records]
        logprobs = [float(record["logprob"]) for record in records]
        tokens = [float(record["tokens"]) for record in records]

        def per_token(path: str, keep: Sequence[bool], label: str, headline: bool = False) -> Estimand:
            numerator = [value if kept else 0.0 for value, kept in zip(logprobs, keep)]
            denominator = [value if kept else 0.0 for value, kept in zip(tokens, keep)]
            return ratio_estimand(path, numerator, denominator, units, self.spec.unit, label=label, headline=headline)

        estimands = [per_token("overall.logprob_per_token", [True] * len(records), "log-probability per token", True)]
        if headline_only:
            return estimands
        for name in _groups(records, self.spec):
            estimands.append(per_token(f"groups.{name}.logprob_per_token", [r["group"] == name for r in records], name))
        for kind in POLARITIES:
            keep = [polarity(r["negated"]) == kind for r in records]
            if any(keep):
                estimands.append(per_token(f"polarity.{kind}.logprob_per_token", keep, kind))
        return estimands

    def tables(self, metrics: dict[str, Any]) -> str:
        """Sentences, tokens, log-probability per token and perplexity, with 95% intervals (the perplexity's is the
        per-token interval transformed)."""
        intervals = metrics.get("intervals")
        rows = [_row(label, values, intervals, path) for label, path, values in _reported(metrics)]
        parts = [
            f"### {self.spec.title or self.name} — {metrics['count']} sentences",
            "Each sentence scored whole after the model's prefix token; per token: the summed log-probabilities "
            "over the summed tokens (nats; higher is better), perplexity = exp(-that):",
            markdown_table(["sentences of", "sentences", "tokens", "log-probability per token", "perplexity"], rows),
        ]
        note = interval_note(intervals)
        return "\n\n".join(parts + ([note] if note else [])) + "\n"

    def predictions(self, path: Path, items: Sequence[TextItem]) -> list[dict[str, Any]]:
        """The records of a file of scores made elsewhere: lines name a sentence by ``item_id`` and give its summed
        ``logprob`` and its number of ``tokens``; ``negkit eval``'s samples file is read as well."""
        by_id = {item.item_id: item for item in items}

        def scores(line: int, record: Mapping[str, Any]) -> LoglikelihoodResult:
            logprob, tokens = (record_field(path, line, record, name) for name in ("logprob", "tokens"))
            if not is_number(logprob):
                raise InputFormatError(path, line, f"field 'logprob': expected a number, found {quoted(logprob, 40)}")
            if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 1:
                raise InputFormatError(path, line, f"field 'tokens': expected a count >= 1, found {quoted(tokens, 40)}")
            return LoglikelihoodResult(float(logprob), False, tokens)

        scored = read_predictions(path, set(by_id), lambda line, record: string(path, line, record, "item_id"), scores)
        chosen = [item for item in items if item.item_id in scored]
        return self.records(chosen, [(scored[item.item_id],) for item in chosen])

    def items_from_records(self, records: Sequence[Mapping[str, Any]], path: Path) -> list[TextItem]:
        """The sentences as far as ``negkit compare`` needs them, from a samples file."""
        items = []
        for number, record in enumerate(records, start=1):
            need(record, "logprob", path, number)
            need(record, "tokens", path, number, int)
            negated = need(record, "negated", path, number, bool)
            items.append(TextItem(str(record["item_id"]), str(need(record, "group", path, number)), "", negated))
        return items


def _groups(records: Sequence[Mapping[str, Any]], spec: HeldOutText) -> list[str]:
    present = {record["group"] for record in records}
    return [name for name in spec.groups if name in present] + sorted(present - set(spec.groups))


def _summary(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Sentences, tokens, the summed log-probability, its mean per token and the perplexity."""
    tokens = sum(int(record["tokens"]) for record in records)
    logprob = sum(float(record["logprob"]) for record in records)
    per_token = logprob / tokens if tokens else 0.0
    return {
        "sentences": len(records),
        "tokens": tokens,
        "logprob": logprob,
        "logprob_per_token": per_token,
        "perplexity": math.exp(-per_token) if tokens else None,
    }


def _reported(metrics: Mapping[str, Any]) -> list[tuple[str, str, Mapping[str, Any]]]:
    """What the table and the figure show, in order: each group, each polarity and all sentences, as (label, the
    metric path of its log-probability per token, its summary)."""
    reported = [(name, f"groups.{name}.logprob_per_token", values) for name, values in metrics["groups"].items()]
    reported += [
        (f"{kind} sentences", f"polarity.{kind}.logprob_per_token", values)
        for kind, values in metrics["polarity"].items()
    ]
    return [*reported, ("all", "overall.logprob_per_token", metrics["overall"])]


def _row(name: str, values: Mapping[str, Any], intervals: Mapping[str, Any] | None, path: str) -> list[Any]:
    interval = (intervals or {}).get(path)
    if values["perplexity"] is None:  # no tokens
        return [name, values["sentences"], values["tokens"], "-", "-"]
    per_token, perplexity = f"{values['logprob_per_token']:.4f}", f"{values['perplexity']:.2f}"
    low, high = (interval or {}).get("ci") or (None, None)
    if low is not None and high is not None:  # an interval with no bounds (one resampling unit) is left out
        per_token += f" [{low:.4f}, {high:.4f}]"
        perplexity += f" [{math.exp(-high):.2f}, {math.exp(-low):.2f}]"
    return [name, values["sentences"], values["tokens"], per_token, perplexity]


def text_figures(spec: HeldOutText) -> Callable[[dict[str, Any], Sequence[dict[str, Any]] | None], list[Figure]]:
    """The figure builder of ``spec``: log-probability per token per group, per polarity and overall (95%)."""

    def figures(metrics: dict[str, Any], records: Sequence[dict[str, Any]] | None = None) -> list[Figure]:
        paths = [(label, path) for label, path, _ in _reported(metrics)]
        values = [triple(metrics, path) for _, path in paths]
        bounds = [value[1] if value[1] is not None else value[0] for value in values if value[0] is not None]
        low = min(bounds, default=-1.0)  # the lowest interval bound, so that no bar is cut
        bars = plots.interval_bars(
            [name for name, _ in paths],
            {"log-probability per token": values},
            f"{spec.title or spec.name}: log-probability per token",
            "nats per token",
            (min(low * 1.1, -0.1), 0.0),
            width=8.0,
        )
        return [("Log-probability per token by group, by polarity and overall (95% intervals)", bars)]

    return figures
