"""Cloze probes, declared: a benchmark whose items are a sentence with a slot to fill, asked in one or more forms (an
affirmative statement and its negated twin), states how in a :class:`Cloze` and gets the task, metrics, intervals,
tables, figures and the records of predictions files from here.

How a causal LM fills the slot: the context is the text before the slot (the slot ends the sentence or is followed
only by punctuation in the data sets negkit reads), and the model ranks a **candidate vocabulary**, the benchmark's
restriction of the words that may fill the slot (LAMA's probes rank a vocabulary too; here it is usually every gold
answer of the data set or of the probe's relation). ``scoring``:

- ``"first-token"``: one next-token distribution per context (:class:`~negkit.models.base.NextTokenRequest`), each
  candidate scored by its first sub-token after the ``delimiter`` (a space); candidates sharing a first sub-token
  tie, and ties keep the vocabulary's order (:func:`negkit.kit.metrics.ranking.ordered`). This is what a masked LM
  or LAMA's causal-LM probes do (the next token), at the cost of one forward pass per context;
- ``"word"``: every candidate scored whole, ``delimiter + word`` as the continuation of the context (one request per
  candidate: exact for words of several tokens, and as many times dearer).

A form may also carry a **contrast**: a context and a true and a false continuation (Ettinger's NEG-136: " a fish" /
" a tool" after "A trout is not"), scored by log-likelihood; ``prefers_true`` says whether the true one wins.

Per probe the records keep each form's best ``keep`` candidates (``top``), the rank of the best-ranked gold answer
(``gold_rank``), and for two forms Spearman's rank correlation of their candidate scores (``spearman``) and whether
their best candidates are the same (``same_top1``). Metrics (:func:`cloze_metrics`): per form ``p_at_K`` (a gold
answer among the best K) and ``prefers_true``; across the first two forms ``overlap_at_1`` (and, declared,
``flip_at_1``) and ``spearman``. Each is
a mean over probes per group, families and overall (:mod:`negkit.kit.metrics.grouped`); intervals resample probes
(a statement and its negated twin together).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from negkit.errors import InputFormatError, quoted
from negkit.kit.data.predictions import read_predictions, string
from negkit.kit.metrics.grouped import AVERAGES, RecordMetric, grouped_estimands, grouped_means
from negkit.kit.metrics.intervals import Estimand
from negkit.kit.metrics.ranking import gold_rank, spearman, top_k
from negkit.kit.render.grouped import grouped_tables
from negkit.kit.runs import need
from negkit.kit.tasks.base import TaskData, load_grouped
from negkit.kit.tasks.declared import DeclaredTask, own_field
from negkit.models.base import AnswerSpace, LoglikelihoodRequest, NextTokenRequest, Request

SCORINGS = ("first-token", "word")


@dataclass(frozen=True)
class ClozeForm:
    """One way of asking a probe: the ``context`` before the slot, the ``golds`` that fill it rightly (may be none),
    and an optional ``contrast``: ``(context, true continuation, false continuation)``."""

    context: str
    golds: tuple[str, ...] = ()
    contrast: tuple[str, str, str] | None = None


@dataclass(frozen=True)
class ClozeProbe:
    """One probe: its forms by name (the declaration's ``forms``, in that order; a form a probe lacks is not asked
    and its measures leave the probe out), the candidate vocabulary, its group (and family), the unit the intervals
    resample (None: the probe) and fields to keep in records."""

    item_id: str
    group: str
    forms: Mapping[str, ClozeForm]
    vocabulary: tuple[str, ...]
    family: str | None = None
    unit: str | None = None
    fields: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Cloze(DeclaredTask[ClozeProbe]):
    """How a cloze benchmark is asked (see the module documentation). ``read(folder, split)`` gives the probes and
    ``files(folder, split)`` the files read; ``group_field`` names a probe's group in records and ``groups_key`` the
    metrics' table of groups; ``average`` (``groups`` or ``records``) how the overall values are taken; ``ks`` the
    ``p_at_K`` reported (each at most ``keep``); ``headline`` the metric paths flagged as headline numbers (the first
    is the primary metric)."""

    forms: tuple[str, ...] = ("affirmative", "negated")
    scoring: str = "first-token"
    delimiter: str = " "
    ks: tuple[int, ...] = (1, 5, 10)
    keep: int = 10
    average: str = "groups"
    unit: str = own_field("probe")
    headline: tuple[str, ...] = ("overlap_at_1",)
    #: Also report ``flip_at_1``, one minus ``overlap_at_1`` per probe (a best word that changes with the form).
    flips: bool = False
    #: What the overall table says about the protocol (one sentence).
    protocol: str = ""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.scoring not in SCORINGS:
            raise ValueError(f"cloze {self.name}: scoring must be one of {SCORINGS}, got {self.scoring!r}")
        if self.average not in AVERAGES:
            raise ValueError(f"cloze {self.name}: average must be one of {AVERAGES}, got {self.average!r}")
        if not self.forms or max(self.ks, default=0) > self.keep:
            raise ValueError(f"cloze {self.name}: needs forms, and every k of {self.ks} at most keep={self.keep}")

    def task(self) -> ClozeTask:
        return ClozeTask(self)

    def metrics(self, records: Sequence[Mapping[str, Any]]) -> list[RecordMetric]:
        """The metrics this declaration reports on ``records`` (those that apply to at least one record)."""
        found: list[RecordMetric] = []
        for form in self.forms:
            for k in self.ks:
                found.append(RecordMetric(f"{form}.p_at_{k}", _hit(form, k), f"{form} P@{k}"))
            found.append(RecordMetric(f"{form}.prefers_true", _flag(form, "prefers_true"), f"{form}: true > false"))
        if len(self.forms) > 1:
            found.append(RecordMetric("overlap_at_1", _same_top1(self.forms[0], self.forms[1]), "top-1 overlap"))
            if self.flips:
                same = _same_top1(self.forms[0], self.forms[1])

                def flip(record: Mapping[str, Any]) -> float | None:
                    overlap = same(record)
                    return None if overlap is None else 1 - overlap

                found.append(RecordMetric("flip_at_1", flip, "top-1 flip"))
            found.append(RecordMetric("spearman", lambda record: record.get("spearman"), "Spearman rho"))
        found = [metric for metric in found if any(metric.value(record) is not None for record in records)]
        return [RecordMetric(m.path, m.value, m.label, m.path in self.headline) for m in found]


def _hit(form: str, k: int) -> Callable[[Mapping[str, Any]], float | None]:
    def value(record: Mapping[str, Any]) -> float | None:
        part = record.get(form) or {}
        if not part.get("gold"):
            return None
        rank = part.get("gold_rank")
        return float(rank is not None and rank <= k)

    return value


def _flag(form: str, name: str) -> Callable[[Mapping[str, Any]], float | None]:
    def value(record: Mapping[str, Any]) -> float | None:
        flag = (record.get(form) or {}).get(name)
        return None if flag is None else float(bool(flag))

    return value


def _same_top1(first: str, second: str) -> Callable[[Mapping[str, Any]], float | None]:
    def value(record: Mapping[str, Any]) -> float | None:
        a, b = (record.get(first) or {}).get("top"), (record.get(second) or {}).get("top")
        return float(a[0] == b[0]) if a and b else None

    return value


class ClozeTask:
    """A :class:`Cloze` benchmark as a task (its only split is ``test``; ``--limit`` keeps the first probes of each
    group, as evenly as whole groups allow)."""

    model_kind = "language_model"
    accepts: frozenset[str] = frozenset()
    uses_seed = False
    splits: tuple[str, ...] = ("test",)

    def __init__(self, spec: Cloze) -> None:
        self.spec, self.name, self.dataset = spec, spec.name, spec.dataset or spec.name

    def config(self) -> dict[str, Any]:
        return {
            "task": self.name,
            "style": f"cloze ({self.spec.scoring} scoring of a candidate vocabulary)",
            "forms": list(self.spec.forms),
            "delimiter": self.spec.delimiter,
            "ks": list(self.spec.ks),
            "keep": self.spec.keep,
            "average": self.spec.average,
            "protocol": self.spec.protocol,
        }

    def prompt_template(self, model: Any) -> str:
        return "{context}" + self.spec.delimiter + "{candidate}"

    def load(self, data: str | Path | None, split: str, limit: int | float | None, seed: int) -> TaskData:
        return load_grouped(self, data, split, limit, lambda probe: probe.group)

    def _form_requests(self, probe: ClozeProbe, form: ClozeForm) -> list[Request]:
        candidates = [self.spec.delimiter + word for word in probe.vocabulary]
        requests: list[Request] = (
            [NextTokenRequest(form.context, tuple(candidates))]
            if self.spec.scoring == "first-token"
            else [LoglikelihoodRequest(form.context, candidate) for candidate in candidates]
        )
        if form.contrast is not None:
            context, true, false = form.contrast
            requests += [LoglikelihoodRequest(context, true), LoglikelihoodRequest(context, false)]
        return requests

    def requests(self, items: Sequence[ClozeProbe], model: Any = None) -> list[tuple[Request, ...]]:
        return [
            tuple(
                request
                for name in self.spec.forms
                if name in probe.forms
                for request in self._form_requests(probe, probe.forms[name])
            )
            for probe in items
        ]

    def records(self, items: Sequence[ClozeProbe], responses: Sequence[Sequence[Any]]) -> list[dict[str, Any]]:
        records = []
        for probe, answers in zip(items, responses):
            position = 0
            scores: dict[str, list[float]] = {}
            parts: dict[str, dict[str, Any] | None] = {}
            for name in self.spec.forms:
                form = probe.forms.get(name)
                if form is None:
                    parts[name] = None
                    continue
                if self.spec.scoring == "first-token":
                    row = answers[position]
                    scores[name] = [float(row[self.spec.delimiter + word]) for word in probe.vocabulary]
                    position += 1
                else:
                    scores[name] = [
                        float(answer.logprob) for answer in answers[position : position + len(probe.vocabulary)]
                    ]
                    position += len(probe.vocabulary)
                contrast = None
                if form.contrast is not None:
                    true, false = answers[position].logprob, answers[position + 1].logprob
                    contrast = {"logprob_true": true, "logprob_false": false, "prefers_true": bool(true > false)}
                    position += 2
                parts[name] = _form_record(probe, form, scores[name], self.spec.keep, contrast)
            extra = {}
            if len(self.spec.forms) > 1:
                first, second = self.spec.forms[:2]
                a, b = parts[first], parts[second]
                both = a is not None and b is not None and probe.vocabulary
                extra = {
                    "same_top1": a["top"][0] == b["top"][0] if a is not None and b is not None and both else None,
                    "spearman": spearman(scores[first], scores[second]) if both else None,
                }
            records.append(self._record(probe, parts, extra))
        return records

    def _record(self, probe: ClozeProbe, parts: Mapping[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
        family = {"family": probe.family} if probe.family is not None else {}
        return {
            "item_id": probe.item_id,
            self.spec.group_field: probe.group,
            **family,
            **probe.fields,
            "vocabulary_size": len(probe.vocabulary),
            **parts,
            **extra,
            "unit": probe.unit or probe.item_id,
        }

    def answer_space(self, items: Sequence[ClozeProbe]) -> AnswerSpace | None:
        """Every candidate by name, for ``constant:WORD`` and ``majority`` (the most frequent first gold answer of
        the first form), when all probes share one vocabulary; None otherwise."""
        vocabularies = {probe.vocabulary for probe in items}
        if not vocabularies:  # before the data is read: the answers come from it
            return AnswerSpace({})
        if len(vocabularies) != 1:
            return None
        first = self.spec.forms[0]
        return AnswerSpace(
            {word: self.spec.delimiter + word for word in vocabularies.pop()},
            tuple(probe.forms[first].golds[0] for probe in items if probe.forms[first].golds),
        )

    def _groups(self, records: Sequence[Mapping[str, Any]]) -> tuple[list[str], list[str] | None]:
        groups = [str(record[self.spec.group_field]) for record in records]
        families = (
            [str(record["family"]) for record in records] if records and all("family" in r for r in records) else None
        )
        return groups, families

    def metrics(self, items: Sequence[ClozeProbe], records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        groups, families = self._groups(records)
        return cloze_metrics(records, self.spec, groups, families)

    def estimands(
        self, items: Sequence[ClozeProbe], records: Sequence[Mapping[str, Any]], headline_only: bool = False
    ) -> list[Estimand]:
        groups, families = self._groups(records)
        units = [str(record.get("unit", record["item_id"])) for record in records]
        return grouped_estimands(
            records,
            self.spec.metrics(records),
            groups,
            units,
            self.spec.unit,
            self.spec.groups_key,
            self.spec.groups,
            families,
            self.spec.average,
            headline_only,
        )

    def tables(self, metrics: dict[str, Any]) -> str:
        spec = self.spec
        return grouped_tables(
            metrics, spec.title or spec.name, spec.groups_key, spec.group_field, "probes", spec.protocol
        )

    def predictions(self, path: Path, items: Sequence[ClozeProbe]) -> list[dict[str, Any]]:
        """The records of a predictions file made elsewhere: lines ``{"item_id": ..., "FORM": {"top": [best words,
        best first]}}`` for each form (optional per form: ``gold_rank``, else the rank of the first gold answer in
        ``top``; ``prefers_true``), and optionally ``spearman``; ``negkit eval``'s samples file is read as well."""
        by_id = {probe.item_id: probe for probe in items}

        def item_id_of(line: int, record: Mapping[str, Any]) -> str:
            if "item_id" not in record:
                raise InputFormatError(path, line, "missing field 'item_id'")
            return string(path, line, record, "item_id")

        def parts_of(line: int, record: Mapping[str, Any]) -> dict[str, Any]:
            probe = by_id[item_id_of(line, record)]
            parts = {
                name: _read_form(path, line, record, name, probe.forms[name], self.spec.keep)
                if name in probe.forms
                else None
                for name in self.spec.forms
            }
            extra: dict[str, Any] = {}
            if len(self.spec.forms) > 1:
                first, second = self.spec.forms[:2]
                value = record.get("spearman")
                if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
                    raise InputFormatError(path, line, f"field 'spearman': expected a number, found {quoted(value)}")
                a, b = ((parts[name] or {}).get("top") for name in (first, second))
                both = bool(a and b)
                extra = {"same_top1": a[0] == b[0] if a and b else None, "spearman": value if both else None}
            return self._record(probe, parts, extra)

        predicted = read_predictions(path, set(by_id), item_id_of, parts_of)
        return [predicted[probe.item_id] for probe in items if probe.item_id in predicted]

    def items_from_records(self, records: Sequence[Mapping[str, Any]], path: Path) -> list[ClozeProbe]:
        """The probes as far as ``negkit compare`` needs them (group and family), from a samples file."""
        probes = []
        for number, record in enumerate(records, start=1):
            for name in self.spec.forms:
                need(record, name, path, number)
            probes.append(
                ClozeProbe(
                    str(record["item_id"]),
                    str(need(record, self.spec.group_field, path, number)),
                    {},
                    (),
                    record.get("family"),
                    record.get("unit"),
                )
            )
        return probes


def _form_record(
    probe: ClozeProbe, form: ClozeForm, scores: Sequence[float], keep: int, contrast: Mapping[str, Any] | None
) -> dict[str, Any]:
    rank = gold_rank(probe.vocabulary, scores, set(form.golds)) if form.golds else None
    return {
        "context": form.context,
        "gold": list(form.golds),
        "top": top_k(probe.vocabulary, scores, keep),
        "gold_rank": rank,
        **(contrast or {}),
    }


def _read_form(
    path: Path, line: int, record: Mapping[str, Any], name: str, form: ClozeForm, keep: int
) -> dict[str, Any]:
    value = record.get(name)
    if (
        not isinstance(value, dict)
        or not isinstance(value.get("top"), list)
        or not all(isinstance(w, str) for w in value["top"])
    ):
        raise InputFormatError(path, line, f"field {name!r}: expected an object with 'top', a list of words best first")
    top = value["top"][:keep]
    rank = value.get("gold_rank")
    if "gold_rank" in value and rank is not None and (isinstance(rank, bool) or not isinstance(rank, int) or rank < 1):
        raise InputFormatError(path, line, f"field {name!r}: 'gold_rank' must be a whole number from 1, or null")
    if "gold_rank" not in value:
        rank = next((position for position, word in enumerate(top, start=1) if word in form.golds), None)
    prefers = value.get("prefers_true")
    if prefers is not None and not isinstance(prefers, bool):
        raise InputFormatError(path, line, f"field {name!r}: 'prefers_true' must be true, false or null")
    return {
        "context": form.context,
        "gold": list(form.golds),
        "top": top,
        "gold_rank": rank,
        **({"prefers_true": prefers} if form.contrast is not None else {}),
    }


def cloze_metrics(
    records: Sequence[Mapping[str, Any]], spec: Cloze, groups: Sequence[str], families: Sequence[str] | None = None
) -> dict[str, Any]:
    """The metrics of :class:`Cloze` ``spec`` on its records (see the module documentation)."""
    metrics = grouped_means(
        records, spec.metrics(records), groups, spec.groups_key, spec.groups, families, spec.average
    )
    return {**metrics, "forms": list(spec.forms), "average": spec.average}


def check_vocabulary(path: Path, line: int | None, vocabulary: Sequence[str]) -> tuple[str, ...]:
    """A candidate vocabulary: non-empty words without surrounding spaces, each once (sorted)."""
    words = tuple(sorted(set(vocabulary)))
    if not words or any(not word or word != word.strip() for word in words):
        raise InputFormatError(
            path, line, "the candidate vocabulary must hold non-empty words without surrounding spaces"
        )
    return words
