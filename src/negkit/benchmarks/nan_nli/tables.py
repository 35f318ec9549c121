"""NaN-NLI tables (Truong et al., 2022: Tables 5, 6, 8, 9, 10, 13 and Figure 1) and the ScoNe accuracy table."""

from __future__ import annotations

from typing import Any

from negkit.benchmarks.nan_nli.metrics import PAPER_TABLE9, paper_construction_row
from negkit.kit.data.nli import NLI_LABELS
from negkit.kit.metrics.nli import BINARY_LABELS
from negkit.kit.render.markdown import interval_note, markdown_table, with_interval

Intervals = dict[str, Any] | None


def _setting_row(
    name: str, setting: dict[str, Any], labels: tuple[str, ...], intervals: Intervals, prefix: str
) -> list[str]:
    path = f"{prefix}{name}"
    return (
        [name]
        + [
            with_interval(setting["per_class"][label]["f1"], intervals, f"{path}.per_class.{label}.f1")
            for label in labels
        ]
        + [with_interval(setting["all_f1"], intervals, f"{path}.all_f1")]
    )


def _settings_table(metrics: dict[str, Any], intervals: Intervals, prefix: str = "") -> str:
    """Tables 5 and 6 (``prefix`` "nan_quant." for Table 10's subset)."""
    standard = markdown_table(
        ["setting", "F1 contradiction", "F1 entailment", "F1 neutral", "All (support-weighted F1)"],
        [_setting_row("standard", metrics["standard"], NLI_LABELS, intervals, prefix)],
    )
    binary = markdown_table(
        ["setting", "F1 entailment", "F1 not-entailment", "All (support-weighted F1)"],
        [_setting_row("binary", metrics["binary"], BINARY_LABELS, intervals, prefix)],
    )
    strict = metrics["strict"]
    strict_table = markdown_table(
        ["setting", "premises all correct", "premises", "strict accuracy"],
        [
            [
                "strict",
                strict["correct"],
                strict["total"],
                with_interval(strict["accuracy"], intervals, f"{prefix}strict.accuracy"),
            ]
        ],
    )
    return f"{standard}\n\n{binary}\n\n{strict_table}"


def _macro_table(title: str, rows: dict[str, Any], intervals: Intervals, table: str) -> str:
    body = [
        [kind, values["count"]]
        + [with_interval(values[name], intervals, f"{table}.{kind}.{name}") for name in ("precision", "recall", "f1")]
        for kind, values in rows.items()
    ]
    return markdown_table([title, "pairs", "macro P", "macro R", "macro F1"], body)


def _error_table(title: str, rows: dict[str, Any], intervals: Intervals = None, table: str = "") -> str:
    body = [
        [key, values["wrong"], values["total"], with_interval(values["rate"], intervals, f"{table}.{key}.rate")]
        for key, values in rows.items()
    ]
    return markdown_table([title, "wrong", "pairs", "error rate"], body)


def _construction_tables(metrics: dict[str, Any]) -> list[str]:
    """Table 8 with the paper's printed rows, labels and order, then the breakdown per ``Construction`` value
    with the printed row it is counted in."""
    left_out = metrics.get("constructions_left_out", {})
    note = ", ".join(f"{name} ({count} pairs)" for name, count in left_out.items())
    by_value = metrics.get("construction_error_rate_by_value", {})
    intervals = metrics.get("intervals")
    value_table = markdown_table(
        ["construction (nan.csv)", "Table 8 row", "wrong", "pairs", "error rate"],
        [
            [
                key,
                paper_construction_row(key) or "(no row in the paper)",
                values["wrong"],
                values["total"],
                with_interval(values["rate"], intervals, f"construction_error_rate_by_value.{key}.rate"),
            ]
            for key, values in by_value.items()
        ],
    )
    parts = [
        "Error rate per construction (Table 8: the paper's printed rows, labels and order; affixally negated "
        "adjective and adverb merged, absolute and approximate negators merged"
        + (f"; the paper prints no row for: {note}" if note else "")
        + "):",
        _error_table("construction", metrics["construction_error_rate"], intervals, "construction_error_rate"),
    ]
    if by_value:
        parts += ["Error rate per construction value (every `Construction` value of nan.csv):", value_table]
    return parts


def _operation_tables(metrics: dict[str, Any]) -> list[str]:
    """Table 9 (printed rows, labels and order) in the default counting, with each row's nan.csv column, Table 1's
    application counts and the other counting's differences."""
    counting = metrics.get("operation_counting", "exactly-one")
    applied = metrics.get("operation_applications", {})
    rows = metrics["operation_error_rate"]
    intervals = metrics.get("intervals")
    columns = {row: column for row, column in PAPER_TABLE9}
    table = markdown_table(
        ["operation", "nan.csv column", "applied (Table 1)", "wrong", "pairs", "error rate"],
        [
            [
                key,
                columns.get(key, key),
                applied.get(key, ""),
                values["wrong"],
                values["total"],
                with_interval(values["rate"], intervals, f"operation_error_rate.{key}.rate"),
            ]
            for key, values in rows.items()
        ],
    )
    how = (
        "a pair counts for each operation whose cell is exactly 1 (this reproduces the printed Table 9)"
        if counting == "exactly-one"
        else "a pair counts for each operation whose cell is non-zero"
    )
    parts = [f"Error rate per operation (Table 9: the paper's printed rows, labels and order; {how}):", table]
    other = metrics.get("operation_error_rate_other", {})
    differing = [(key, values) for key, values in other.items() if rows.get(key) != values]
    if differing:
        label = metrics.get("operation_counting_other", "other")
        parts.append(
            f"Counting `{label}` instead: "
            + "; ".join(
                f"{key}: {values['wrong']} wrong of {values['total']} pairs, error rate "
                f"{with_interval(values['rate'], intervals, f'operation_error_rate_other.{key}.rate')}"
                for key, values in differing
            )
            + "."
        )
    return parts


def nan_nli_tables(metrics: dict[str, Any]) -> str:
    """Markdown for :func:`negkit.kit.metrics.nli.nan_nli_report`."""
    quant = metrics["nan_quant"]
    confusion = metrics["confusion_matrix"]
    intervals = metrics.get("intervals")
    confusion_table = markdown_table(
        ["true \\ predicted", *NLI_LABELS],
        [
            [true]
            + [
                with_interval(confusion[true][pred], intervals, f"confusion_matrix.{true}.{pred}")
                for pred in NLI_LABELS
            ]
            for true in NLI_LABELS
        ],
    )
    parts = [
        f"### NaN-NLI — {metrics['count']} pairs",
        "Settings (Tables 5 and 6):",
        _settings_table(metrics, intervals),
        "By premise negation type (Table 13):",
        _macro_table("premise negation", metrics["premise_negation_type"], intervals, "premise_negation_type"),
        "By hypothesis negation type (Table 13):",
        _macro_table("hypothesis negation", metrics["hypothesis_negation_type"], intervals, "hypothesis_negation_type"),
        *_construction_tables(metrics),
        *_operation_tables(metrics),
        f"NaN-Quant subset, {quant['count']} pairs (Table 10):",
        _settings_table(quant, intervals, "nan_quant."),
        "Confusion matrix normalised by the true label (Figure 1):",
        confusion_table,
    ]
    note = interval_note(intervals)
    return "\n\n".join(parts + ([note] if note else [])) + "\n"
