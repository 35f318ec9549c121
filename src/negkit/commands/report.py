"""``report.html``: one self-contained page with a run's tables and figures, written next to ``report.md``
(``negkit eval``, ``negkit report``), with ``samples.html`` beside it (the run's items: :mod:`negkit.commands.samples_page`).

The page has a summary of every task's headline metrics with their 95% intervals, then per task its figures (its
suite's) and its tables (intervals in grey), then the sections the caller adds from other files of the folder
(``negkit report`` adds negation resolution scores: :func:`negkit.resolution.report.resolution_sections`). Without
matplotlib (``pip install negkit[report]``) the page says so and keeps the tables.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from negkit.commands.samples_page import SAMPLES_FILE, write_samples_page
from negkit.io.atomic import atomic_write_text
from negkit.kit.citations import bibtex_text, lookup_citations
from negkit.kit.render import plots
from negkit.kit.render.html import figures_html, markdown_to_html, no_plots, page
from negkit.kit.render.markdown import markdown_table
from negkit.kit.results import TaskResult
from negkit.kit.runlog import iter_sample_records
from negkit.kit.runs import read_run
from negkit.kit.suites import suite_view
from negkit.kit.view import RunSection, SuiteLookup, no_suites, report_order, run_sections

HTML_FILE = "report.html"


def _records(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A task's per-sample records: from memory for a task just run, else its samples file."""
    if isinstance(result, TaskResult) and result.records:
        return result.records
    path = result.get("files", {}).get("samples")
    if not path or not Path(path).is_file():
        return []
    return [record.fields() for _, record in iter_sample_records(path)]  # a damaged line is FILE:LINE: problem


def summary_table(results: Sequence[Mapping[str, Any]], suites: SuiteLookup = no_suites) -> str:
    """Markdown: per task its items and main metric with the interval, every value in percent (some suites'
    metrics are percentages, others' fractions: the summary puts them on one scale, from each suite's ``scale``;
    each section keeps its own); ``suites`` says each task's main metric."""
    rows = []
    for result in results:
        task = result["task"].get("task", "?")
        intervals = result.get("metrics", {}).get("intervals", {})
        view = suites(task)
        path = view.primary_metric if view else None
        entry = intervals.get(path) if path else None
        if entry and view:
            scale = 100.0 / (view.scale[1] or 1.0)
            rows.append(
                [task, result.get("data", {}).get("count", "–"), entry.get("label", path), percent_cell(entry, scale)]
            )
    header = ["task", "items", "main metric", "value in % [95% interval]"]
    return markdown_table(header, rows) if rows else ""


def percent_cell(entry: dict[str, Any], scale: float) -> str:
    """``estimate [low, high]`` of an interval entry, times ``scale``, with two decimals (the estimate alone when
    the interval is missing)."""
    value = entry.get("estimate")
    if value is None:
        return "–"
    low, high = entry.get("ci", (None, None))
    if low is None or high is None:
        return f"{value * scale:.2f}"
    return f"{value * scale:.2f} [{low * scale:.2f}, {high * scale:.2f}]"


def run_html(
    results: Sequence[Mapping[str, Any]], suites: SuiteLookup = no_suites, sections: Sequence[RunSection] = ()
) -> str:
    """The report page of one ``negkit eval`` run (its task results, as :func:`negkit.commands.eval.evaluate.evaluate`
    returns); ``suites`` gives each task's figures and main metric (:func:`negkit.kit.suites.suite_view`)."""
    model = results[0]["model"] if results else {}
    title = f"negkit report: {model.get('name', 'no task')}"
    body = [
        f"<h1>{html.escape(title)}</h1>",
        f'<p class="meta">{html.escape(str(model.get("backend", "")))}, {html.escape(str(model.get("dtype", "")))}; '
        f"negkit {html.escape(str(results[0].get('negkit_version', '')) if results else '')}</p>",
    ]
    if results:
        body.append(
            f'<p class="meta"><a href="{SAMPLES_FILE}">samples.html</a>: every item with its prompt, gold answer, '
            "prediction and scores, filterable and searchable.</p>"
        )
    summary = summary_table(results, suites)
    if summary:
        body += ["<h2>Summary</h2>", markdown_to_html(summary)]
    for section in run_sections(results, suites):  # parts drawing on several tasks (e.g. a paper's table)
        body.append(f"<h2>{html.escape(section.title)}</h2>")
        if section.figures is not None:
            body.append(figures_html(section.figures()) if plots.available() else no_plots())
        body.append(markdown_to_html(section.markdown))
    for result in results:
        task = result["task"].get("task", "?")
        body.append(f"<h2>{html.escape(task)}</h2>")
        view = suites(task)
        builder = view.figures if view else None
        if builder is not None:
            body.append(figures_html(builder(result["metrics"], _records(result))) if plots.available() else no_plots())
        tables = result.tables if isinstance(result, TaskResult) and result.tables is not None else None
        path = result.get("files", {}).get("tables")
        if tables is None and path and Path(path).is_file():
            tables = Path(path).read_text(encoding="utf-8")
        if tables:
            body.append(markdown_to_html(tables))
    for section in sections:  # parts from other files of the folder (e.g. negation resolution scores)
        body.append(f"<h2>{html.escape(section.title)}</h2>")
        if section.figures is not None:
            body.append(figures_html(section.figures()) if plots.available() else no_plots())
        body.append(markdown_to_html(section.markdown))
    citations = lookup_citations([result["task"].get("task", "?") for result in results], suites)
    body += [
        "<h2>How to cite</h2>",
        f"<p>negkit and the papers whose data and protocols this run used (<code>negkit cite RUN_DIR</code>):</p>"
        f'<pre class="bibtex">{html.escape(bibtex_text(citations))}</pre>',
    ]
    return page(title, body)


def write_html_report(
    results: Sequence[Mapping[str, Any]],
    out: str | Path,
    suites: SuiteLookup = no_suites,
    sections: Sequence[RunSection] = (),
) -> Path:
    """Write ``report.html`` into ``out`` (atomically), and beside it ``samples.html``, the run's items
    (:mod:`negkit.commands.samples_page`); ``sections`` come after the tasks; return the report's path."""
    out = Path(out)
    path = out / HTML_FILE
    if results:
        model = results[0].get("model", {})
        write_samples_page(results, out, _records, f"negkit samples: {model.get('name', '')}")
    atomic_write_text(path, run_html(results, suites, sections))
    return path


def write_run_folder_html(folder: Path, suites: SuiteLookup | None = None, sections: Sequence[RunSection] = ()) -> Path:
    """Write ``report.html`` of an existing run folder from its task files (see ``negkit report``); tasks in the
    suites' order (``suites``: default the registry's), then ``sections``."""
    suites = suites or suite_view
    run = read_run(folder)
    results = [run.tasks[name] for name in sorted(run.tasks, key=lambda name: report_order(suites, name))]
    return write_html_report(results, folder, suites, sections)
