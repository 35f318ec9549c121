"""Which NaN-NLI metrics get a confidence interval, and how.

NaN-NLI's hypotheses are written in sets around one premise (the strict setting is per premise), so the premise is
the unit. Every metric of :func:`negkit.benchmarks.nan_nli.metrics.nan_nli_report` gets an interval under its own
path: per-class and support-weighted F1 and accuracy of the standard and binary settings, strict accuracy (one row
per premise), the macro P/R/F1 of each negation-type breakdown (macro over the labels present in the resample, as
the metric), the error rates per construction (the paper's rows and per value) and per operation (both countings),
the NaN-Quant settings and every cell of the normalised confusion matrix.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from negkit.benchmarks.nan_nli.data import NEGATION_TYPES, NaNNLIItem
from negkit.benchmarks.nan_nli.metrics import (
    NO_NEGATION,
    OPERATION_COUNTINGS,
    paper_construction_row,
    paper_operation_row,
)
from negkit.kit.data.nli import NLI_LABELS
from negkit.kit.metrics.intervals import Estimand, ratio_estimand
from negkit.kit.metrics.nli import BINARY_LABELS, to_binary
from negkit.kit.metrics.nli_intervals import confusion_estimands, label_counts, macro_of, nli_unit, setting_block

NAN_UNIT = "NaN-NLI premise"


def _strict(prefix: str, items: Sequence[NaNNLIItem], predicted: Sequence[str], headline: bool) -> Estimand:
    all_right: dict[str, bool] = {}
    for item, label in zip(items, predicted):
        all_right[item.premise_id] = all_right.get(item.premise_id, True) and label == item.label
    premises = list(all_right)
    return ratio_estimand(
        f"{prefix}strict.accuracy",
        [float(all_right[p]) for p in premises],
        None,
        premises,
        NAN_UNIT,
        label="strict accuracy",
        headline=headline,
    )


def _settings(
    prefix: str, items: Sequence[NaNNLIItem], predicted: Sequence[str], mask: np.ndarray, headline: bool
) -> list[Estimand]:
    units = [nli_unit(item) for item in items]
    gold = [item.label for item in items]
    standard = label_counts(gold, predicted, NLI_LABELS) * mask[:, None]
    binary = (
        label_counts([to_binary(g) for g in gold], [to_binary(p) for p in predicted], BINARY_LABELS) * mask[:, None]
    )
    chosen = [(item, label) for item, label, keep in zip(items, predicted, mask) if keep]
    return (
        setting_block(f"{prefix}standard", standard, units, NLI_LABELS, NAN_UNIT, "standard", headline)
        + setting_block(f"{prefix}binary", binary, units, BINARY_LABELS, NAN_UNIT, "binary", headline)
        + [_strict(prefix, [i for i, _ in chosen], [p for _, p in chosen], headline)]
    )


def _operation_rows(keep: Callable[[int], bool]) -> Callable[[NaNNLIItem], list[str]]:
    """The printed Table 9 rows of a pair's operations whose count ``keep`` accepts."""
    return lambda item: [paper_operation_row(op) for op in item.operations if keep(item.operation_count(op))]


def nan_nli_estimands(
    items: Sequence[NaNNLIItem],
    predicted: Sequence[str],
    headline_only: bool = False,
    operation_counting: str = "exactly-one",
) -> list[Estimand]:
    """Every interval of a NaN-NLI run, clustered by premise (see the module doc); ``headline_only``: the
    standard, binary and strict settings only (they need no annotation but the gold label and the premise).
    Tables 8 and 9 as :func:`negkit.kit.metrics.nli.nan_nli_report` gives them: constructions grouped as the paper
    and per value, operations counted as ``operation_counting`` says and the other way."""
    if len(items) != len(predicted):
        raise ValueError(f"{len(items)} items but {len(predicted)} predictions")
    units = [nli_unit(item) for item in items]
    every = np.ones(len(items))
    estimands = _settings("", items, predicted, every, headline=True)
    if headline_only:
        return estimands
    counts = label_counts([item.label for item in items], predicted, NLI_LABELS)
    for side, field in (
        ("premise_negation_type", "premise_negation"),
        ("hypothesis_negation_type", "hypothesis_negation"),
    ):
        kinds: list[tuple[str, np.ndarray]] = [
            (kind, np.array([kind in getattr(item, field) for item in items], dtype=float)) for kind in NEGATION_TYPES
        ]
        if side == "hypothesis_negation_type":
            kinds.append((NO_NEGATION, np.array([not item.hypothesis_negation for item in items], dtype=float)))
        for kind, mask in kinds:
            for which, name in enumerate(("precision", "recall", "f1")):
                estimands.append(
                    Estimand(
                        f"{side}.{kind}.{name}",
                        counts * mask[:, None],
                        units,
                        macro_of(which),
                        NAN_UNIT,
                        f"macro {name} ({kind})",
                    )
                )
    wrong = np.array([label != item.label for item, label in zip(items, predicted)], dtype=float)

    def error_rates(prefix: str, keys_of: Callable[[NaNNLIItem], Sequence[str]]) -> None:
        keys = [keys_of(item) for item in items]
        for key in dict.fromkeys(key for item_keys in keys for key in item_keys):
            mask = np.array([key in item_keys for item_keys in keys], dtype=float)
            estimands.append(
                ratio_estimand(f"{prefix}.{key}.rate", wrong * mask, mask, units, NAN_UNIT, label=f"error rate ({key})")
            )

    def row_of(item: NaNNLIItem) -> Sequence[str]:
        row = paper_construction_row(item.construction)
        return () if row is None else (row,)

    error_rates("construction_error_rate", row_of)
    error_rates("construction_error_rate_by_value", lambda item: (item.construction,))
    other = next(counting for counting in OPERATION_COUNTINGS if counting != operation_counting)
    for prefix, counting in (("operation_error_rate", operation_counting), ("operation_error_rate_other", other)):
        keep: Callable[[int], bool] = (
            (lambda count: count == 1) if counting == "exactly-one" else (lambda count: count > 0)
        )
        error_rates(prefix, _operation_rows(keep))
    quant = np.array([item.quantification for item in items], dtype=float)
    estimands += _settings("nan_quant.", items, predicted, quant, headline=False)
    estimands += confusion_estimands([item.label for item in items], predicted, units, NLI_LABELS, NAN_UNIT)
    return estimands
