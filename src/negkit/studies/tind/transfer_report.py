"""TIND's Figure 2 as a Markdown page and a heatmap (SVG and PNG) from :func:`negkit.studies.tind.transfer_metrics.transfer_numbers`."""

from __future__ import annotations

import io
import math
from collections.abc import Mapping
from typing import Any

from negkit.kit.render.markdown import markdown_table
from negkit.kit.render.plots import _pyplot, to_svg


def row_label(row: str) -> str:
    """``pattern-05`` -> ``trained on #05``, ``all`` -> ``trained on all`` (Figure 2's "All"); other rows as they
    are."""
    if row == "all":
        return "trained on all"
    return f"trained on #{row.split('-', 1)[1]}" if row.startswith("pattern-") else row


def _cell(entry: Mapping[str, Any] | None) -> str:
    if not entry or entry.get("accuracy") is None:
        return "-"
    low, high = entry["ci"]
    interval = f" [{low:.2f}, {high:.2f}]" if low is not None and high is not None else ""
    return f"{entry['accuracy']:.2f}{interval}"


def _difference(entry: Mapping[str, Any] | None) -> str:
    if not entry or entry.get("difference") is None:
        return "-"
    low, high = entry["ci"]
    interval = f" [{low:+.2f}, {high:+.2f}]" if low is not None and high is not None else ""
    return f"{entry['difference']:+.2f}{interval}{' *' if entry.get('significant') else ''}"


def transfer_markdown(
    numbers: Mapping[str, Any],
    title: str = "TIND Figure 2: train on one pattern, test on every pattern",
    notes: str = "",
) -> str:
    """The accuracy matrix with intervals, the differences from the base row, and the per-row summary."""
    columns, cells = numbers["columns"], numbers["cells"]
    parts = [f"# {title}", ""]
    if notes:
        parts += [notes, ""]
    parts += [
        f"Accuracy (%) per test pattern (columns) of each model (rows), `estimate [low, high]`: 95% percentile "
        f"bootstrap intervals resampling groups ({numbers['resamples']} resamples, seed {numbers['seed']}).",
        "",
    ]
    counts = next(iter(cells.values())) if cells else {}
    parts.append(
        markdown_table(
            ["row", *columns],
            [["test sentences / groups", *(f"{counts[c]['sentences']} / {counts[c]['groups']}" for c in columns)]]
            + [[row_label(row), *(_cell(cells[row].get(c)) for c in columns)] for row in cells],
        )
    )
    if numbers.get("differences"):
        parts += [
            "",
            "Difference from the base row (paired bootstrap over the same groups; `*`: the interval excludes 0):",
            "",
        ]
        parts.append(
            markdown_table(
                ["row", *columns],
                [
                    [row_label(row), *(_difference(diffs.get(c)) for c in columns)]
                    for row, diffs in numbers["differences"].items()
                ],
            )
        )
    summary = numbers.get("summary") or {}
    if summary:
        parts += [
            "",
            "Per row: the trained pattern's accuracy (the diagonal) and the unweighted mean over the other "
            "patterns, each minus the base row's on the same columns.",
            "",
        ]
        parts.append(
            markdown_table(
                ["row", "diagonal", "diagonal - base", "mean of other patterns", "other patterns - base"],
                [
                    [
                        row_label(row),
                        _number(entry.get("diagonal")),
                        _signed(entry.get("diagonal_minus_base")),
                        _number(entry.get("off_diagonal_mean")),
                        _signed(entry.get("off_diagonal_minus_base")),
                    ]
                    for row, entry in summary.items()
                ],
            )
        )
    return "\n".join(parts) + "\n"


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _signed(value: float | None) -> str:
    return "-" if value is None else f"{value:+.2f}"


def transfer_heatmap(
    numbers: Mapping[str, Any], title: str = "TIND: train on one pattern (rows), test on each (columns)"
) -> tuple[str, bytes]:
    """The accuracy matrix as a heatmap (0-100, the diagonal outlined): SVG text and PNG bytes."""
    plt = _pyplot()
    columns, cells = numbers["columns"], numbers["cells"]
    rows = list(cells)
    values = [
        [math.nan if cells[row][c]["accuracy"] is None else cells[row][c]["accuracy"] for c in columns] for row in rows
    ]
    figure, axes = plt.subplots(figsize=(0.62 * len(columns) + 2.6, 0.42 * len(rows) + 1.4))
    image = axes.imshow(values, cmap="viridis", vmin=0, vmax=100, aspect="auto")
    axes.set_xticks(range(len(columns)), columns, fontsize=8)
    axes.set_yticks(range(len(rows)), [row_label(row) for row in rows], fontsize=8)
    axes.set_xlabel("test pattern")
    axes.tick_params(length=0)
    for index, row in enumerate(rows):
        for column, value in enumerate(values[index]):
            if not math.isnan(value):
                axes.text(
                    column,
                    index,
                    f"{value:.0f}",
                    ha="center",
                    va="center",
                    fontsize=7,
                    color="white" if value < 55 else "black",
                )
        trained = (numbers.get("summary") or {}).get(row, {}).get("trained_pattern")
        if trained in columns:
            axes.add_patch(
                plt.Rectangle(
                    (columns.index(trained) - 0.5, index - 0.5), 1, 1, fill=False, edgecolor="red", linewidth=1.5
                )
            )
    figure.colorbar(image, ax=axes, fraction=0.04, pad=0.02, label="accuracy (%)")
    axes.set_title(title, fontsize=9)
    png = io.BytesIO()
    figure.savefig(png, format="png", dpi=120, bbox_inches="tight", metadata={"Software": None})
    return to_svg(figure), png.getvalue()
