"""The parts of the leaderboard's ``index.html`` that draw on more than the run models: the published reference rows
(kept apart from the ranked rows, marked "published, not run here" with their source), the sentence saying which
models differ significantly from a column's best, and the scaling figures."""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping
from typing import Any

from negkit.leaderboard.published import MARK, published_in, published_value

#: Inline style of the published rows (kept apart from the ranked rows by a dashed frame and a muted colour).
STYLE = (
    "<style>tr.published td{color:#444;font-style:italic}td.hollow{border:3px dashed #777;background:#fff}"
    "span.pub{font-size:.75em;color:#6b4e00;background:#fff4d6;border-radius:3px;padding:0 .3em;"
    "font-style:normal;white-space:nowrap}</style>"
)


def _e(text: Any) -> str:
    return html.escape(str(text))


def marker() -> str:
    return f'<span class="pub">{MARK}</span>'


def _source(row: Mapping[str, Any]) -> str:
    note = f" ({_e(row['note'])})" if row.get("note") else ""
    return f"{_e(row['source'])}{note}"


def published_table(data: Mapping[str, Any]) -> str:
    """Every published row: model, task, metric, value (percent) and source; empty without published rows."""
    rows = data.get("published", [])
    if not rows:
        return ""
    body = "".join(
        f'<tr class="published"><td class="t">{_e(row["model"])} {marker()}</td><td class="t">{_e(row["column"])}</td>'
        f'<td class="t">{_e(row["metric_label"])}</td><td>{row["value"]:.1f}</td><td class="t">{_source(row)}</td></tr>'
        for row in rows
    )
    return (
        f"<h2>Published reference rows ({MARK})</h2>"
        '<p class="legend">Numbers printed in papers, for orientation: not recomputed here, on the data sets and '
        "settings of their sources (which can differ from the runs above), without intervals; they take no rank "
        "and enter no paired difference.</p>"
        '<table id="published"><tr><th class="t">model</th><th class="t">task</th><th class="t">metric</th>'
        f'<th>value (percent)</th><th class="t">source</th></tr>{body}</table>'
    )


def published_heatmap_rows(data: Mapping[str, Any], colour: Callable[[float], tuple[str, str]]) -> str:
    """Heatmap rows of the published rows on a column's primary metric, below a separating row: the value in a
    dashed frame of its colour."""
    columns = data["columns"]
    models: dict[str, dict[str, Mapping[str, Any]]] = {}
    for row in data.get("published", []):
        if row["primary"]:
            models.setdefault(row["model"], {})[row["column"]] = row
    if not models:
        return ""
    parts = [f'<tr class="published"><td class="t" colspan="{len(columns) + 1}">{marker()}</td></tr>']
    for name, cells in models.items():
        entries = [f'<td class="t">{_e(name)}</td>']
        for column in columns:
            row = cells.get(column["key"])
            if row is None:
                entries.append("<td></td>")
                continue
            background, _ = colour(row["value"])
            title = _e(f"{MARK}: {row['source']}")
            style = f"border-color:{background}"
            entries.append(f'<td class="hollow" style="{style}" title="{title}">{row["value"]:.1f}</td>')
        parts.append('<tr class="published">' + "".join(entries) + "</tr>")
    return "".join(parts)


def published_column_table(data: Mapping[str, Any], key: str) -> str:
    """The published rows of one column, in a table of their own after the ranked models."""
    rows = published_in(data, key)
    if not rows:
        return ""
    body = "".join(
        f'<tr class="published"><td class="t">{_e(row["model"])}</td><td>{_e(published_value(row))}</td>'
        f'<td class="t">{_source(row)}</td></tr>'
        for row in rows
    )
    return (
        f'<p class="meta">{marker()} (no interval, no rank, no paired difference):</p>'
        f'<table class="published-rows"><tr><th class="t">model</th><th>value (percent)</th><th class="t">source'
        f"</th></tr>{body}</table>"
    )


def significance_sentence(data: Mapping[str, Any], column: Mapping[str, Any]) -> str:
    """:func:`significance_text` as an HTML paragraph (empty without a best)."""
    text = significance_text(data, column)
    return f'<p class="legend">{_e(text)}</p>' if text else ""


def significance_text(data: Mapping[str, Any], column: Mapping[str, Any]) -> str:
    """Which models differ significantly from the column's best (the paired bootstrap interval excludes 0) and which
    do not, as a sentence; empty without a best."""
    best = column.get("best")
    if not best:
        return ""
    below, level, undecided, references = [], [], [], []
    for name, cells in data["cells"].items():
        cell = cells.get(column["key"])
        if cell is None or name == best:
            continue
        versus = cell.get("vs_best")
        if cell.get("reference"):  # a baseline: said apart, it is not among the models
            if versus is not None:
                references.append(f"{name} {versus['difference']:+.1f} (p={versus['p_value']:.3f})")
        elif versus is None:
            undecided.append(name)
        elif versus["significant"]:
            below.append(f"{name} (p={versus['p_value']:.3f})")
        else:
            level.append(name)
    parts = [
        f"significantly below {best}: {', '.join(below) or 'none'}",
        f"not distinguishable from {best}: {', '.join(level) or 'none'}",
    ]
    if undecided:
        parts.append(f"not paired with {best}: {', '.join(undecided)}")
    if references:
        parts.append(f"baselines (reference rows) against {best}: {', '.join(references)}")
    return f"Paired differences: {'; '.join(parts)}."


def scaling_section(data: Mapping[str, Any], figures: Mapping[str, tuple[str, str]]) -> str:
    """Per column, the scaling figure (inline SVG, with a link to its file) and the models left out of it."""
    parts = [
        "<h2>Scaling</h2>",
        '<p class="legend">Per task, the primary metric (percent) against the parameter count (log scale), with '
        "its 95% interval; baselines are dashed horizontal lines, published rows with a parameter count hollow "
        "markers. Parameter counts come from negkit's model catalogue or <code>--parameters NAME=COUNT</code>.</p>",
    ]
    for panel in data.get("scaling", []):
        parts.append(f"<h3>{_e(panel['key'])}</h3>")
        if panel["key"] in figures:
            name, svg = figures[panel["key"]]
            parts.append(f'<figure>{svg}<figcaption><a href="{_e(name)}">{_e(name)}</a></figcaption></figure>')
        else:
            why = (
                "matplotlib is not installed (pip install negkit[report])"
                if panel["points"] or panel["published"]
                else "no model of this task has a parameter count"
            )
            parts.append(f'<p class="meta">No figure: {why}.</p>')
        if panel["without_parameters"]:
            parts.append(
                f'<p class="meta">Left out (no parameter count; give one with --parameters): '
                f"{_e(', '.join(panel['without_parameters']))}.</p>"
            )
    return "\n".join(parts)


def model_count(data: Mapping[str, Any]) -> str:
    """``3 models and 2 baselines``: the ranked models and the reference rows."""
    baselines = sum(1 for model in data["models"] if model.get("baseline"))
    models = len(data["models"]) - baselines
    text = f"{models} model{'s' if models != 1 else ''}"
    return text + (f" and {baselines} baseline{'s' if baselines != 1 else ''}" if baselines else "")
