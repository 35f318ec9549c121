"""``leaderboard.md``: the tables of the leaderboard's ``index.html`` in Markdown (for documentation pages), from the
data :func:`negkit.leaderboard.site.leaderboard_data` builds: the ranking, the published reference rows (apart,
marked "published, not run here"), per task the values with their differences from the best, and links to the
scaling figures."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from negkit.kit.render.markdown import markdown_table
from negkit.leaderboard.published import MARK, published_in, published_value
from negkit.leaderboard.sections import model_count, significance_text


def _value(cell: Mapping[str, Any] | None) -> str:
    if not cell:
        return "–"
    low, high = cell["ci"]
    text = f"{cell['estimate']:.1f}" + ("" if low is None or high is None else f" [{low:.1f}, {high:.1f}]")
    if cell.get("best"):
        return f"**{text}**"
    versus = cell.get("vs_best") or {}
    return text + (" ▼" if versus.get("significant") else "")


def _difference(entry: Mapping[str, Any] | None) -> str:
    if not entry:
        return "–"
    low, high = entry["ci"]
    interval = "" if low is None or high is None else f" [{low:+.1f}, {high:+.1f}]"
    p_value = "" if entry.get("p_value") is None else f", p={entry['p_value']:.3f}"
    return f"{entry['difference']:+.1f}{interval}{p_value}" + (" *" if entry.get("significant") else "")


#: How a baseline pseudo-model's row is marked: a reference, not a ranked model.
BASELINE_MARK = "baseline, reference"


def _order(data: Mapping[str, Any]) -> list[str]:
    """The ranked models by mean rank, then the baselines (reference rows) by name."""
    ranks = data["mean_rank"]
    return sorted(
        (model["name"] for model in data["models"]),
        key=lambda name: (
            bool(ranks[name].get("reference")),
            ranks[name]["mean"] is None,
            ranks[name]["mean"] or 0.0,
            name,
        ),
    )


def _ranking(data: Mapping[str, Any]) -> str:
    columns = data["columns"]
    rows = []
    position = 0
    for name in _order(data):
        mean = data["mean_rank"][name]
        if mean.get("reference"):
            place, label, rank = "–", f"{name} ({BASELINE_MARK})", f"not ranked (has {mean['covered']} of {mean['of']})"
        else:
            position += 1
            place = str(position) if mean["mean"] is not None else "–"
            rank = "–" if mean["mean"] is None else f"{mean['mean']:.2f}"
            label, rank = name, f"{rank} (over {mean['columns']} shared; has {mean['covered']} of {mean['of']})"
        rows.append([place, label, rank, *(_value(data["cells"][name].get(column["key"])) for column in columns)])
    return markdown_table(["#", "model", "mean rank", *(column["label"] for column in columns)], rows)


def _rank_text(cell: Mapping[str, Any]) -> str:
    return "ref." if cell.get("reference") or cell["rank"] is None else f"{cell['rank']:.1f}"


def _column_order(item: tuple[str, Mapping[str, Any]]) -> tuple[bool, float, str]:
    """Ranked models by rank, then reference rows by name."""
    name, cell = item
    return (cell["rank"] is None, cell["rank"] or 0.0, name)


def _published(rows: Sequence[Mapping[str, Any]], with_task: bool) -> str:
    headers = ["model", *(["task", "metric"] if with_task else []), "value (percent)", "source"]
    lines = []
    for row in rows:
        source = row["source"] + (f" ({row['note']})" if row.get("note") else "")
        middle = [row["column"], row["metric_label"], f"{row['value']:.1f}"] if with_task else [published_value(row)]
        lines.append([f"{row['model']} ({MARK})", *middle, source])
    return markdown_table(headers, lines)


def _column(data: Mapping[str, Any], column: Mapping[str, Any]) -> list[str]:
    key = column["key"]
    entries = sorted(
        ((name, cells[key]) for name, cells in data["cells"].items() if key in cells),
        key=_column_order,
    )
    rows = [
        [
            _rank_text(cell),
            f"{name} ({BASELINE_MARK})" if cell.get("reference") else name,
            str(cell["items"]),
            _value(cell).replace("**", "").replace(" ▼", ""),
            "best" if cell["best"] else _difference(cell.get("vs_best")),
        ]
        for name, cell in entries
    ]
    split = f", split {column['split']}" if column["split"] else ""
    parts = [
        f"### {key}",
        "",
        f"{column['metric_label']} (percent){split}; unit of the intervals: {column['unit']}.",
        "",
        markdown_table(
            [
                "rank",
                "model",
                "items",
                "value [95% interval]",
                f"difference from {column['best'] or 'the best'} [95% interval]",
            ],
            rows,
        ),
    ]
    sentence = significance_text(data, column)
    if sentence:
        parts += ["", sentence]
    published = published_in(data, key)
    if published:
        parts += [
            "",
            f"{MARK.capitalize()} (no interval, no rank, no paired difference):",
            "",
            _published(published, False),
        ]
    return [*parts, ""]


def _scaling(data: Mapping[str, Any]) -> list[str]:
    parts = ["## Scaling", ""]
    for panel in data.get("scaling", []):
        figure = panel.get("figure")
        line = f"- {panel['key']}: " + (f"![scaling {panel['key']}]({figure})" if figure else "no figure")
        if panel["without_parameters"]:
            line += f" (left out, no parameter count: {', '.join(panel['without_parameters'])})"
        parts.append(line)
    return [*parts, ""]


def leaderboard_markdown(data: Mapping[str, Any]) -> str:
    """The leaderboard as Markdown (see the module's docstring)."""
    settings = data["settings"]
    parts = [
        "# negkit negation leaderboard",
        "",
        f"{model_count(data)}, {len(data['columns'])} tasks. Values in percent: each suite's primary metric "
        f"with its {settings['level']:.0%} percentile bootstrap interval ({settings['resamples']:,} resamples, seed "
        f"{settings['seed']}), recomputed from each run's per-sample records. **Bold**: the best model of a task; "
        "▼: significantly below it (paired bootstrap over the units of the items both scored). Baselines (random, "
        f'majority, constant answers) are reference rows, marked "{BASELINE_MARK}": compared with the best, never '
        "ranked.",
        "",
        "## Ranking",
        "",
        _ranking(data),
        "",
    ]
    if data.get("published"):
        parts += [f"## Published reference rows ({MARK})", "", _published(data["published"], True), ""]
    left_out = sorted({row["task"] for row in data.get("published_left_out", [])})
    if left_out:
        count = len(data["published_left_out"])
        parts += [f"Published rows left out, their tasks not on this leaderboard: {count} ({', '.join(left_out)}).", ""]
    parts += ["## Per task", ""]
    for column in data["columns"]:
        parts += _column(data, column)
    parts += _scaling(data)
    return "\n".join(parts).rstrip() + "\n"
