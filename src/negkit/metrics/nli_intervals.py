"""Which NaN-NLI and ScoNe metrics get a confidence interval, and how.

NaN-NLI's hypotheses are written in sets around one premise (the strict setting is per premise), so the
premise is the unit; ScoNe's six conditions are edits of one base pair (row ``i`` of every condition file), so
the row is the unit. Every metric of :func:`negkit.metrics.nli.nan_nli_report` and
:func:`negkit.metrics.nli.scone_accuracy` gets an interval under its own path: per-class and support-weighted F1
and accuracy of the standard and binary settings, strict accuracy (one row per premise), the macro P/R/F1 of
each negation-type breakdown (macro over the labels present in the resample, as the metric), the error rates
per construction (the paper's rows and per value) and per operation (both countings), the NaN-Quant settings and every cell of the normalised confusion matrix.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence

import numpy as np

from negkit.data.nli import NEGATION_TYPES, NLI_LABELS, SCONE_CONDITIONS, NLIItem
from negkit.metrics.intervals import Estimand, ratio_estimand, safe_divide
from negkit.metrics.nli import (
    BINARY_LABELS,
    NO_NEGATION,
    OPERATION_COUNTINGS,
    paper_construction_row,
    paper_operation_row,
    to_binary,
)

NAN_UNIT = "NaN-NLI premise"
SCONE_UNIT = "ScoNe base pair"


def nli_unit(item: NLIItem) -> Hashable:
    """The unit an NLI item is resampled with: its premise (NaN-NLI), its row (ScoNe), else the item itself."""
    if item.premise_id:
        return item.premise_id
    if item.row >= 0:
        return item.row
    return item.item_id


def _label_counts(gold: Sequence[str], predicted: Sequence[str], labels: Sequence[str]) -> np.ndarray:
    """Per item and label: [true positive, predicted, gold] (``3 * len(labels)`` columns)."""
    columns = []
    for label in labels:
        is_gold = np.array([g == label for g in gold], dtype=float)
        is_predicted = np.array([p == label for p in predicted], dtype=float)
        columns += [is_gold * is_predicted, is_predicted, is_gold]
    return np.column_stack(columns) if columns and len(gold) else np.zeros((len(gold), 3 * len(labels)))


def _per_class(sums: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Precision, recall, F1 and support per class from summed :func:`_label_counts` (each ``(B, L)``)."""
    tp, predicted, gold = sums[:, 0::3], sums[:, 1::3], sums[:, 2::3]
    precision, recall = safe_divide(tp, predicted), safe_divide(tp, gold)
    return precision, recall, safe_divide(2 * precision * recall, precision + recall), gold


def _class_f1(position: int) -> Callable[[np.ndarray], np.ndarray]:
    return lambda sums: _per_class(sums)[2][:, position]


def _weighted_f1(sums: np.ndarray) -> np.ndarray:
    _, _, f1, gold = _per_class(sums)
    return safe_divide((f1 * gold).sum(axis=1), gold.sum(axis=1))


def _accuracy(sums: np.ndarray) -> np.ndarray:
    tp, gold = sums[:, 0::3].sum(axis=1), sums[:, 2::3].sum(axis=1)
    return np.where(gold == 0, np.nan, tp / np.where(gold == 0, 1, gold))


def _macro(which: int) -> Callable[[np.ndarray], np.ndarray]:
    """Macro precision (0), recall (1) or F1 (2) over the labels present in gold or predictions."""

    def statistic(sums: np.ndarray) -> np.ndarray:
        scores = _per_class(sums)[which]
        present = (sums[:, 1::3] + sums[:, 2::3]) > 0
        return safe_divide((scores * present).sum(axis=1), present.sum(axis=1))

    return statistic


def _setting(prefix: str, counts: np.ndarray, units: list[Hashable], labels: Sequence[str], unit: str,
             name: str, headline: bool) -> list[Estimand]:
    estimands = [Estimand(f"{prefix}.per_class.{label}.f1", counts, units, _class_f1(position), unit, f"F1 {label} ({name})")
                 for position, label in enumerate(labels)]
    estimands.append(Estimand(f"{prefix}.all_f1", counts, units, _weighted_f1, unit, f"F1 All ({name})", headline=headline))
    estimands.append(Estimand(f"{prefix}.accuracy", counts, units, _accuracy, unit, f"accuracy ({name})", headline=headline))
    return estimands


def setting_estimands(prefix: str, gold: Sequence[str], predicted: Sequence[str], units: Sequence[Hashable],
                      labels: Sequence[str], unit: str, name: str, headline: bool = True) -> list[Estimand]:
    """Per-class F1 (``PREFIX.per_class.LABEL.f1``), support-weighted F1 (``PREFIX.all_f1``) and accuracy
    (``PREFIX.accuracy``) over ``labels``, resampling ``units`` (one per item); other suites' NLI settings."""
    return _setting(prefix, _label_counts(gold, predicted, labels), list(units), labels, unit, name, headline)


def _strict(prefix: str, items: Sequence[NLIItem], predicted: Sequence[str], headline: bool) -> Estimand:
    all_right: dict[str, bool] = {}
    for item, label in zip(items, predicted):
        all_right[item.premise_id] = all_right.get(item.premise_id, True) and label == item.label
    premises = list(all_right)
    return ratio_estimand(f"{prefix}strict.accuracy", [float(all_right[p]) for p in premises], None, premises, NAN_UNIT,
                          label="strict accuracy", headline=headline)


def _settings(prefix: str, items: Sequence[NLIItem], predicted: Sequence[str], mask: np.ndarray, headline: bool) -> list[Estimand]:
    units = [nli_unit(item) for item in items]
    gold = [item.label for item in items]
    standard = _label_counts(gold, predicted, NLI_LABELS) * mask[:, None]
    binary = _label_counts([to_binary(g) for g in gold], [to_binary(p) for p in predicted], BINARY_LABELS) * mask[:, None]
    chosen = [(item, label) for item, label, keep in zip(items, predicted, mask) if keep]
    return (_setting(f"{prefix}standard", standard, units, NLI_LABELS, NAN_UNIT, "standard", headline)
            + _setting(f"{prefix}binary", binary, units, BINARY_LABELS, NAN_UNIT, "binary", headline)
            + [_strict(prefix, [i for i, _ in chosen], [p for _, p in chosen], headline)])


def nan_nli_estimands(items: Sequence[NLIItem], predicted: Sequence[str], headline_only: bool = False,
                      operation_counting: str = "exactly-one") -> list[Estimand]:
    """Every interval of a NaN-NLI run, clustered by premise (see the module doc); ``headline_only``: the
    standard, binary and strict settings only (they need no annotation but the gold label and the premise).
    Tables 8 and 9 as :func:`negkit.metrics.nli.nan_nli_report` gives them: constructions grouped as the paper
    and per value, operations counted as ``operation_counting`` says and the other way."""
    if len(items) != len(predicted):
        raise ValueError(f"{len(items)} items but {len(predicted)} predictions")
    units = [nli_unit(item) for item in items]
    every = np.ones(len(items))
    estimands = _settings("", items, predicted, every, headline=True)
    if headline_only:
        return estimands
    counts = _label_counts([item.label for item in items], predicted, NLI_LABELS)
    for side, field in (("premise_negation_type", "premise_negation"), ("hypothesis_negation_type", "hypothesis_negation")):
        kinds: list[tuple[str, np.ndarray]] = [
            (kind, np.array([kind in getattr(item, field) for item in items], dtype=float)) for kind in NEGATION_TYPES
        ]
        if side == "hypothesis_negation_type":
            kinds.append((NO_NEGATION, np.array([not item.hypothesis_negation for item in items], dtype=float)))
        for kind, mask in kinds:
            for which, name in enumerate(("precision", "recall", "f1")):
                estimands.append(Estimand(f"{side}.{kind}.{name}", counts * mask[:, None], units, _macro(which), NAN_UNIT,
                                          f"macro {name} ({kind})"))
    wrong = np.array([label != item.label for item, label in zip(items, predicted)], dtype=float)

    def error_rates(prefix: str, keys_of: Callable[[NLIItem], Sequence[str]]) -> None:
        keys = [keys_of(item) for item in items]
        for key in dict.fromkeys(key for item_keys in keys for key in item_keys):
            mask = np.array([key in item_keys for item_keys in keys], dtype=float)
            estimands.append(ratio_estimand(f"{prefix}.{key}.rate", wrong * mask, mask, units, NAN_UNIT,
                                            label=f"error rate ({key})"))

    def row_of(item: NLIItem) -> Sequence[str]:
        row = paper_construction_row(item.construction)
        return () if row is None else (row,)

    error_rates("construction_error_rate", row_of)
    error_rates("construction_error_rate_by_value", lambda item: (item.construction,))
    other = next(counting for counting in OPERATION_COUNTINGS if counting != operation_counting)
    for prefix, counting in (("operation_error_rate", operation_counting), ("operation_error_rate_other", other)):
        keep: Callable[[int], bool] = (lambda count: count == 1) if counting == "exactly-one" else (lambda count: count > 0)
        error_rates(prefix, lambda item, keep=keep: [paper_operation_row(op) for op in item.operations
                                                     if keep(item.operation_count(op))])
    quant = np.array([item.quantification for item in items], dtype=float)
    estimands += _settings("nan_quant.", items, predicted, quant, headline=False)
    for true in NLI_LABELS:
        is_true = np.array([item.label == true for item in items], dtype=float)
        for guess in NLI_LABELS:
            hit = np.array([label == guess for label in predicted], dtype=float) * is_true
            estimands.append(ratio_estimand(f"confusion_matrix.{true}.{guess}", hit, is_true, units, NAN_UNIT,
                                            label=f"{true} -> {guess}"))
    return estimands


def scone_estimands(items: Sequence[NLIItem], predicted: Sequence[str]) -> list[Estimand]:
    """ScoNe accuracy per condition and overall (paths ``accuracy.CONDITION``), clustered by base pair."""
    if len(items) != len(predicted):
        raise ValueError(f"{len(items)} items but {len(predicted)} predictions")
    units = [nli_unit(item) for item in items]
    correct = np.array([label == item.label for item, label in zip(items, predicted)], dtype=float)
    estimands = []
    for condition in SCONE_CONDITIONS:
        mask = np.array([item.condition == condition for item in items], dtype=float)
        estimands.append(ratio_estimand(f"accuracy.{condition}", correct * mask, mask, units, SCONE_UNIT,
                                        label=condition, headline=True))
    estimands.append(ratio_estimand("accuracy.overall", correct, None, units, SCONE_UNIT, label="overall", headline=True))
    return estimands
