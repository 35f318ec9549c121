"""The pages of ``negkit leaderboard``: ``index.html`` (ranking, heatmap, differences from the best) and one page per
model, from the data :func:`negkit.leaderboard.site.leaderboard_data` builds.

Static and offline: inline CSS, a small inline script that sorts the ranking table when a header is clicked, the
heatmap drawn as coloured table cells; links are relative (to the model pages and to each run's ``report.html``),
nothing is fetched. The same data gives the same bytes.
"""

from __future__ import annotations

import html
import os
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from negkit.kit.render.html import page
from negkit.leaderboard.sections import (
    STYLE,
    model_count,
    published_column_table,
    published_heatmap_rows,
    published_table,
    scaling_section,
    significance_sentence,
)

MODELS_FOLDER = "models"

_STYLE = """<style>
body{max-width:1600px}table.sortable th{cursor:pointer;user-select:none;white-space:nowrap}
table.sortable td{white-space:nowrap}
.runs{display:block;max-width:26rem;white-space:normal}
table.sortable th[aria-sort=ascending]::after{content:" \\25B2";font-size:.7em}
table.sortable th[aria-sort=descending]::after{content:" \\25BC";font-size:.7em}
th.t{text-align:left}td.best{font-weight:700}.worse{color:#b3261e;font-size:.8em}
table.heat td{text-align:center;min-width:4.5rem}table.heat td.t{text-align:left}
.legend{font-size:.85rem;color:#444}
tr.reference td{color:#555;font-style:italic;background:#f6f6f6}
tbody.references tr:first-child td{border-top:2px solid #999}
</style>"""

#: Sorts a table.sortable by the clicked header: cells' data-sort (numbers numerically), empty cells last.
_SCRIPT = """<script>
(function () {
  function key(cell) { return cell ? cell.getAttribute("data-sort") : null; }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var headers = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(headers, function (header) {
      header.addEventListener("click", function () {
        var index = header.cellIndex, body = table.tBodies[0];
        var current = header.getAttribute("aria-sort");
        var ascending = current ? current !== "ascending" : header.getAttribute("data-first") !== "descending";
        Array.prototype.forEach.call(headers, function (h) { h.removeAttribute("aria-sort"); });
        header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = key(a.cells[index]), y = key(b.cells[index]);
          if (!x || !y) { return (!x) - (!y); }
          var nx = Number(x), ny = Number(y);
          var order = (isNaN(nx) || isNaN(ny)) ? x.localeCompare(y) : nx - ny;
          return ascending ? order : -order;
        });
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
  });
})();
</script>"""

#: Colour stops of the heatmap (viridis), from 0 to 100 percent.
_STOPS = ((0x44, 0x01, 0x54), (0x3B, 0x52, 0x8B), (0x21, 0x91, 0x8C), (0x5E, 0xC9, 0x62), (0xFD, 0xE7, 0x25))


def colour(value: float) -> tuple[str, str]:
    """Background and text colour of a heatmap cell holding ``value`` percent (clipped to 0-100)."""
    share = min(max(value / 100.0, 0.0), 1.0) * (len(_STOPS) - 1)
    low = min(int(share), len(_STOPS) - 2)
    weight = share - low
    rgb = [round(a + (b - a) * weight) for a, b in zip(_STOPS[low], _STOPS[low + 1])]
    return "#" + "".join(f"{c:02x}" for c in rgb), ("#ffffff" if share < 2.6 else "#111111")


def _e(text: Any) -> str:
    return html.escape(str(text))


def _number(value: float | None, digits: int = 1) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _interval(ci: Sequence[float | None], signed: bool = False) -> str:
    low, high = ci
    if low is None or high is None:
        return ""
    form = "+.1f" if signed else ".1f"
    return f' <span class="ci">[{low:{form}}, {high:{form}}]</span>'


def _difference(entry: dict[str, Any] | None) -> str:
    if not entry:
        return "–"
    text = f"{entry['difference']:+.1f}" + _interval(entry["ci"], signed=True)
    if entry.get("p_value") is not None:
        text += f' <span class="ci">p={entry["p_value"]:.3f}</span>'
    return text + (' <span class="sig">*</span>' if entry.get("significant") else "")


def _ordered(data: dict[str, Any]) -> list[str]:
    """Model names by mean rank (models without a ranked column last), then by name."""
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


def _rank_cell(cell: dict[str, Any]) -> str:
    """A cell's rank, or "baseline (reference)" for a baseline pseudo-model, which is never ranked."""
    return "baseline (reference)" if cell.get("reference") else _number(cell["rank"], 1)


def _reference_class(cell: dict[str, Any]) -> str:
    return ' class="reference"' if cell.get("reference") else ""


def _sort_key(value: float | None) -> str:
    return "" if value is None else f"{value:.6f}"


def _value_cell(cell: dict[str, Any] | None) -> str:
    if not cell:
        return '<td data-sort="">–</td>'
    worse = cell.get("vs_best") or {}
    mark = ""
    if worse.get("significant"):
        low, high = worse["ci"]
        title = f"{worse['difference']:+.1f} [{low:+.1f}, {high:+.1f}] from the best, p={worse['p_value']:.3f}"
        mark = f' <span class="worse" title="{_e(title)}">&#9660;</span>'
    css = ' class="best"' if cell.get("best") else ""
    return f'<td{css} data-sort="{cell["estimate"]:.6f}">{_number(cell["estimate"])}{_interval(cell["ci"])}{mark}</td>'


def ranking_table(data: dict[str, Any], slugs: dict[str, str]) -> str:
    """The sortable table: one row per model, its mean rank and its primary metric on every column."""
    columns = data["columns"]
    head = [
        '<th data-first="ascending">#</th>',
        '<th class="t" data-first="ascending">model</th>',
        '<th data-first="ascending" title="average rank over the columns every model has; in brackets, the '
        'columns the model has">mean rank</th>',
    ]
    head += [
        f'<th data-first="descending" title="{_e(c["metric_label"])}; unit: {_e(c["unit"])}">{_e(c["label"])}</th>'
        for c in columns
    ]
    rows: list[str] = []
    references: list[str] = []
    folders = {model["name"]: ", ".join(_folder_names(model["folders"])) for model in data["models"]}
    position = 0
    for name in _ordered(data):
        mean = data["mean_rank"][name]
        reference = bool(mean.get("reference"))
        if not reference:
            position += 1
        place = str(position) if mean["mean"] is not None and not reference else "–"  # no shared column: not ordered
        rank = (
            f'<td data-sort="">baseline <span class="ci">(reference, not ranked; has {mean["covered"]} of '
            f"{mean['of']})</span></td>"
            if reference
            else f'<td data-sort="{_sort_key(mean["mean"])}">{_number(mean["mean"], 2)}'
            f' <span class="ci">(over {mean["columns"]} shared; has {mean["covered"]} of {mean["of"]})</span></td>'
        )
        cells = [
            f'<td data-sort="{position}">{place}</td>',
            f'<td class="t" data-sort="{_e(name)}"><a href="models/{_e(slugs[name])}.html">{_e(name)}</a>'
            f' <span class="ci runs">{_e(folders.get(name, ""))}</span></td>',
            rank,
        ]
        cells += [_value_cell(data["cells"][name].get(c["key"])) for c in columns]
        css = ' class="reference"' if reference else ""
        (references if reference else rows).append(f'<tr data-model="{_e(name)}"{css}>' + "".join(cells) + "</tr>")
    # the baselines in a body of their own: sorting the table moves the models only, the references stay below
    tail = f'<tbody class="references">{"".join(references)}</tbody>' if references else ""
    return (
        '<table class="sortable" id="ranking"><thead><tr>'
        + "".join(head)
        + "</tr></thead><tbody>"
        + "".join(rows)
        + "</tbody>"
        + tail
        + "</table>"
    )


def heatmap_table(data: dict[str, Any]) -> str:
    """Model x column: the primary metric as a coloured cell (0 to 100 percent)."""
    columns = data["columns"]
    head = '<tr><th class="t">model</th>' + "".join(f"<th>{_e(c['label'])}</th>" for c in columns) + "</tr>"
    rows = []
    for name in _ordered(data):
        reference = bool(data["mean_rank"][name].get("reference"))
        cells = [f'<td class="t">{_e(name)}{" <span class=ci>(baseline)</span>" if reference else ""}</td>']
        for column in columns:
            cell = data["cells"][name].get(column["key"])
            if not cell:
                cells.append("<td></td>")
                continue
            background, text = colour(cell["estimate"])
            star = "&#9733;" if cell.get("best") else ""
            cells.append(f'<td style="background:{background};color:{text}">{_number(cell["estimate"])}{star}</td>')
        rows.append("<tr>" + "".join(cells) + "</tr>")
    published = published_heatmap_rows(data, colour)
    return '<table class="heat" id="heatmap">' + head + "".join(rows) + published + "</table>"


def differences_tables(data: dict[str, Any]) -> str:
    """Per column: every model's value and its paired difference from the best model."""
    parts = []
    for column in data["columns"]:
        entries = [(name, cells[column["key"]]) for name, cells in data["cells"].items() if column["key"] in cells]
        entries.sort(key=lambda item: (item[1]["rank"] is None, item[1]["rank"] or 0.0, item[0]))
        rows = "".join(
            f"<tr{_reference_class(cell)}><td>{_rank_cell(cell)}</td>"
            f'<td class="t">{_e(name)}</td><td>{cell["items"]}</td>'
            f"<td>{_number(cell['estimate'])}{_interval(cell['ci'])}</td>"
            f"<td>{'best' if cell['best'] else _difference(cell.get('vs_best'))}</td>"
            f"<td>{'' if not cell.get('vs_best') else cell['vs_best']['shared_items']}</td></tr>"
            for name, cell in entries
        )
        split = f", split {_e(column['split'])}" if column["split"] else ""
        parts.append(
            f'<h3>{_e(column["label"])}</h3><p class="meta">{_e(column["metric_label"])} (percent){split}; '
            f"unit of the intervals: {_e(column['unit'])}</p>"
            '<table><tr><th>rank</th><th class="t">model</th><th>items</th><th>value [95% interval]</th>'
            f"<th>difference from {_e(column['best'] or 'the best')} [95% interval]</th><th>shared items</th></tr>{rows}</table>"
            + significance_sentence(data, column)
            + published_column_table(data, column["key"])
        )
    return "\n".join(parts)


def _settings(data: dict[str, Any]) -> str:
    settings = data["settings"]
    skipped = ""
    if data["skipped"]:
        skipped = (
            f" Tasks left out (negkit cannot rebuild their metrics from the per-sample records): "
            f"{_e(', '.join(data['skipped']))}."
        )
    return (
        f'<p class="legend">Values in percent: the suite\'s primary metric with its {settings["level"]:.0%} '
        f"percentile bootstrap interval ({settings['resamples']:,} resamples, seed {settings['seed']}) over the "
        f"suite's unit, recomputed from each run's per-sample records. <b>Bold</b>: the best model of the column; "
        f"&#9660;: significantly below the best (the paired bootstrap interval of the difference, over the units "
        f"of the items both scored, excludes 0; hover for it); unmarked: not distinguishable from the best. "
        f"Click a header to sort. Baselines (random, majority, constant answers; in italics below the models) are "
        f"reference rows: compared with the best, never ranked.{skipped}</p>"
    )


def index_html(
    data: dict[str, Any], slugs: dict[str, str], figures: Mapping[str, tuple[str, str]] | None = None
) -> str:
    """``index.html``: the ranking table, the published rows, the heatmap, the differences from the best model per
    column and the scaling figures (``figures``: column key -> (file, SVG), drawn or not)."""
    title = "negkit negation leaderboard"
    body = [
        _STYLE,
        STYLE,
        f"<h1>{title}</h1>",
        f'<p class="meta">{_e(model_count(data))}, {len(data["columns"])} tasks.</p>',
        "<h2>Ranking</h2>",
        ranking_table(data, slugs),
        _settings(data),
        published_table(data),
        "<h2>Heatmap</h2>",
        heatmap_table(data),
        '<p class="legend">Colour: the value on a scale from 0 (dark) to 100 percent (yellow); &#9733;: best; '
        "dashed frame: a published row, not run here (the frame in its value's colour).</p>",
        "<h2>Differences from the best model</h2>",
        differences_tables(data),
        scaling_section(data, figures or {}),
        _SCRIPT,
    ]
    return page(title, body)


def url_path(path: str) -> str:
    """A relative file path as a URL path: every character but letters, digits, ``/`` and ``-._~`` percent-encoded,
    so a folder named ``javascript:alert(1)`` or holding ``#``, ``?`` or ``%`` links to itself, never to a script."""
    return quote(path, safe="/")


def model_html(data: dict[str, Any], name: str, links: Sequence[tuple[str, str | None]]) -> str:
    """A model's page: its runs (with links to their ``report.html``), its place per column and every headline
    metric with its interval."""
    model = next(entry for entry in data["models"] if entry["name"] == name)
    title = f"negkit leaderboard: {name}"
    items = []
    for folder, link in links:
        target = (
            f'<a href="{_e(url_path(link))}">report.html</a>'
            if link
            else "no report.html (write it with <code>negkit report RUN_DIR</code>)"
        )
        items.append(f"<li><code>{_e(folder)}</code>: {target}</li>")
    commands = "".join(
        f"<li><code>{_e(command)}</code></li>" for command in dict.fromkeys(model["commands"]) if command
    )
    body = [
        _STYLE,
        '<p><a href="../index.html">&larr; leaderboard</a></p>',
        f"<h1>{_e(title)}</h1>",
        f'<p class="meta">model: {_e(", ".join(model["model"]))}</p>',
        "<h2>Runs</h2>",
        f"<ul>{''.join(items)}</ul>",
    ]
    if commands:
        body += ["<h3>Commands</h3>", f"<ul>{commands}</ul>"]
    rows = []
    for column in data["columns"]:
        cell = data["cells"][name].get(column["key"])
        if not cell:
            continue
        total = sum(1 for cells in data["cells"].values() if column["key"] in cells)
        rows.append(
            f'<tr><td class="t">{_e(column["label"])}</td><td class="t">{_e(column["metric_label"])}</td>'
            f"<td>{_rank_cell(cell)} of {total}</td>"
            f"<td>{_number(cell['estimate'])}{_interval(cell['ci'])}</td>"
            f"<td>{'best' if cell['best'] else _difference(cell.get('vs_best'))}</td></tr>"
        )
    body += [
        "<h2>Place per task</h2>",
        "<table><tr><th>task</th><th>metric</th><th>rank</th><th>value [95% interval]"
        "</th><th>difference from the best</th></tr>" + "".join(rows) + "</table>",
    ]
    for key, metrics in data["metrics"][name].items():
        table = "".join(
            f'<tr><td class="t">{_e(m["label"])}</td><td>{_number(m["estimate"])}{_interval(m["ci"])}</td></tr>'
            for m in metrics
        )
        body += [
            f"<h3>{_e(key)}: headline metrics (percent)</h3>",
            f"<table><tr><th>metric</th><th>value [95% interval]</th></tr>{table}</table>",
        ]
    return page(title, body)


def slug(name: str) -> str:
    """A file name for a model's page: letters, digits, ``.``, ``_`` and ``-`` kept, anything else ``-``."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.") or "model"


def _folder_names(folders: Sequence[str]) -> list[str]:
    """Each folder once, by its name; with its parent's where two of them share a name (a suite's sample folder and
    its full-run folder, say)."""
    unique = [Path(folder) for folder in dict.fromkeys(folders)]
    counts = Counter(folder.name for folder in unique)
    return [folder.name if counts[folder.name] == 1 else f"{folder.parent.name}/{folder.name}" for folder in unique]


def report_links(data: dict[str, Any], out: Path) -> dict[str, list[tuple[str, str | None]]]:
    """Per model, each folder with the relative path from ``out/models/`` to its ``report.html`` (None: absent)."""
    links: dict[str, list[tuple[str, str | None]]] = {}
    pages = (out / MODELS_FOLDER).resolve()
    for model in data["models"]:
        entries = []
        for folder in model["folders"]:
            report = Path(folder).resolve() / "report.html"
            relative = os.path.relpath(report, pages).replace(os.sep, "/") if report.is_file() else None
            entries.append((folder, relative))
        links[model["name"]] = entries
    return links


def unique_slugs(names: Sequence[str]) -> dict[str, str]:
    """A file name per model: :func:`slug`, numbered where two would be the same (ignoring case)."""
    slugs: dict[str, str] = {}
    used: set[str] = set()
    for name in names:
        base = candidate = slug(name)
        number = 2
        while candidate.lower() in used:
            candidate, number = f"{base}-{number}", number + 1
        used.add(candidate.lower())
        slugs[name] = candidate
    return slugs
