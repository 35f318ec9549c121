"""This is not a Dataset (TIND; García-Ferrero et al., 2023): true/false probing of WordNet-generated sentences,
affirmative and negated, in groups; the authors' first-token protocol is the main task (:mod:`negkit.benchmarks.tind.task`).

Reader: :func:`negkit.benchmarks.tind.data.read_tind` (the authors' encrypted zip read in place, HF-layout files or the hub);
metrics: :func:`negkit.benchmarks.tind.metrics.tind_metrics` (the authors' accuracy buckets and coherence); intervals resample
whole groups. Its parts: :mod:`~negkit.benchmarks.tind.figures`, :mod:`~negkit.benchmarks.tind.harness` (the Harness
export, ids and hashes only), :mod:`~negkit.benchmarks.tind.training` (``negkit finetune --train tind``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from negkit.benchmarks.tind.data import read_tind
from negkit.benchmarks.tind.hf import parse_bool, read_tind_predictions
from negkit.benchmarks.tind.types import PATTERN_NAMES, TruthItem
from negkit.kit.metrics.intervals import IntervalSettings, intervals_json
from negkit.benchmarks.tind.metrics import record_p_true, tind_metrics
from negkit.benchmarks.tind.intervals import tind_estimands
from negkit.kit.runs import need
from negkit.benchmarks.tind.tables import tind_report
from negkit.kit.suites.description import DataSource, HarnessExport, SuiteDescription, SuiteScore, TaskEntry
from negkit.kit.suites.registry import register_suite
from negkit.benchmarks.tind import harness
from negkit.benchmarks.tind.figures import tind_figures
from negkit.benchmarks.tind.training import TRAINING
from negkit.benchmarks.tind.task import TruthTask

NAME = "tind"


class TindTask(TruthTask):
    """:class:`TruthTask` with the suite's tables (the authors' Tables 2-5)."""

    def tables(self, metrics: dict[str, Any]) -> str:
        return tind_report(metrics, name=self.name, title=f"TIND results ({self.prompt_id()})")


def _variant(name: str, **fixed: Any) -> Any:
    return lambda **options: TindTask(name=name, **fixed, **options)


def score_tind(path: Path, name: str = "predictions", intervals: IntervalSettings | None = IntervalSettings()) -> SuiteScore:
    """Score TIND predictions in the authors' layout: the HF fields plus a boolean ``prediction`` per line.

    ``intervals`` (None: none) sets the bootstrap of the 95% intervals, as for every suite scorer."""
    items, predictions = read_tind_predictions(path)
    metrics = tind_metrics(items, predictions)
    if intervals is not None:
        metrics["intervals"] = intervals_json(tind_estimands(items, predictions), intervals)
    return SuiteScore(metrics, tind_report(metrics, name=name, title=f"TIND: {Path(path).name}"))


def tind_items(records: Sequence[dict[str, Any]], path: Path) -> tuple[list[TruthItem], list[bool]]:
    """TIND items (without sentences) and predictions from ``negkit eval``'s TIND records (the HF fields
    ``pattern_id``, ``test_id``, ``negation_type``, ``semantic_type``, ``syntactic_scope``, ``isDistractor``,
    ``label`` and the boolean ``prediction``)."""
    items, predictions = [], []
    for number, record in enumerate(records, start=1):
        pattern_id = need(record, "pattern_id", path, number, int)
        items.append(TruthItem(
            item_id=str(record["item_id"]), group_id=need(record, "test_id", path, number, int), pattern_id=pattern_id,
            pattern=str(record.get("pattern", PATTERN_NAMES.get(pattern_id, ""))), template_id=str(record.get("template_id", "")),
            negation_type=str(need(record, "negation_type", path, number)),
            semantic_type=str(need(record, "semantic_type", path, number)),
            syntactic_scope=str(need(record, "syntactic_scope", path, number)), kind=str(record.get("kind", "")),
            is_distractor=need(record, "isDistractor", path, number, bool, parse_bool),
            label=need(record, "label", path, number, bool, parse_bool), sentence="",
        ))
        predictions.append(need(record, "prediction", path, number, bool, parse_bool))
    return items, predictions


def _estimands(records: Sequence[dict[str, Any]], path: Path) -> list[Any]:
    return tind_estimands(*tind_items(records, path), record_p_true(records))


SUITE = register_suite(SuiteDescription(
    name=NAME,
    title="This is not a Dataset (TIND)",
    aliases=("this-is-not-a-dataset",),
    tasks=(
        TaskEntry(NAME, _variant(NAME), "TIND true/false probing, zero-shot, the authors' first-token protocol"),
        TaskEntry(f"{NAME}-fewshot", _variant(f"{NAME}-fewshot", fewshot=True),
                  "TIND with the authors' 44 few-shot examples (4 per pattern) and prompts"),
        TaskEntry(f"{NAME}-generate", _variant(f"{NAME}-generate", style="generate"),
                  "TIND, greedy generation; True iff the output contains 'true'"),
        TaskEntry(f"{NAME}-continuation", _variant(f"{NAME}-continuation", style="continuation"),
                  "TIND, LM-harness style: log-likelihood of ' True' vs ' False' (not the authors' protocol)"),
    ),
    main_task=NAME,
    data=DataSource(NAME, "the authors' release (HiTZ/This-is-not-a-dataset) or raw-public.zip in DATA/tind/",
                    licence="Apache-2.0 (the authors' repository); distributed encrypted: keep it out of repositories"),
    reader=read_tind,
    metrics=tind_metrics,
    scorer=score_tind,
    scorer_help="TIND: the authors' accuracy buckets, negation analysis and coherence from HF fields + 'prediction'",
    interval_unit="group (the sentences generated from one WordNet pair)",
    primary_metric="all.accuracy",
    digits=2,
    scale=(0.0, 100.0),
    fractions=("p_true_auc.all",),
    figures=tind_figures,
    record_estimands=_estimands,
    harness=HarnessExport((harness.CHAT, harness.PLAIN), harness.write_harness_task, loaders={"load_tind": None},
                          utils_source=harness.utils_source(), readme=harness.readme_commands),
    training=(TRAINING,),
    order=10,
))
