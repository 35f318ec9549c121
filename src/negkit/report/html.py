"""``report.html``: one self-contained page (inline CSS and SVG, no script, nothing fetched) with a run's tables and
figures, written next to ``report.md``; and the HTML form of ``negkit compare``.

The page has a summary of every task's headline metrics with their 95% intervals, then per task its figures
(:mod:`negkit.report.figures`) and the same tables as ``report.md`` (intervals in grey). Negation resolution
scores are included when the folder holds ``resolution*.json`` files written by ``negkit resolution score
--json``. Without matplotlib (``pip install negkit[report]``) the page says so and keeps the tables.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from negkit.io.atomic import atomic_write_text
from negkit.io.textfiles import iter_json_objects
from negkit.report import plots
from negkit.report.figures import resolution_figures
from negkit.report.markdown import markdown_table, with_interval
from negkit.report.run_records import read_run
from negkit.report.suite_view import Figure, SuiteLookup, no_suites, run_sections

HTML_FILE = "report.html"
_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2rem auto;max-width:1180px;padding:0 1rem;
color:#222;line-height:1.45}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{border-bottom:2px solid #4e79a7;padding-bottom:.2rem;margin-top:2.4rem}
h3{margin-top:1.6rem}.meta{color:#555;margin-top:0}
table{border-collapse:collapse;margin:.6rem 0 1rem;font-size:.86rem;font-variant-numeric:tabular-nums;
display:block;max-width:100%;overflow-x:auto}
th,td{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:right;vertical-align:top}
th{background:#f3f5f8}td:first-child,th:first-child,td.t{text-align:left}
.ci{color:#6a737d;font-size:.8em;display:inline-block}.sig{color:#b3261e;font-weight:600}
.figures{display:flex;flex-wrap:wrap;gap:1rem}
figure{margin:0;border:1px solid #e1e4e8;border-radius:6px;padding:.5rem;background:#fff;max-width:100%}
figure svg{max-width:100%;height:auto}figcaption{font-size:.85rem;color:#444;margin-top:.3rem}
.note{background:#fff8e1;border-left:4px solid #edc948;padding:.4rem .8rem}
pre{background:#f6f8fa;padding:.6rem;overflow-x:auto}code{font-size:.9em}
"""


# -- Markdown (the subset negkit's reports use) -> HTML ----------------------------------------------------


def _inline(text: str) -> str:
    text = html.escape(text, quote=False)
    text = re.sub(r"`([^`]+)`", r"<code>\1</code>", text)
    return re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", text)


def _cell(text: str, tag: str) -> str:
    text = text.strip().replace("\\|", "|")
    match = re.fullmatch(r"(.*?) (\[[^\]]*\])((?: p=[0-9.]+)?)( \*)?", text)
    if tag == "td" and match:
        significant = ' <span class="sig">*</span>' if match.group(4) else ""
        body = f'{_inline(match.group(1))} <span class="ci">{_inline(match.group(2) + match.group(3))}</span>{significant}'
    else:
        body = _inline(text)
    numeric = re.match(r"(\*\*)?[+\-−–]?(\d|\.\d|–$)", text)  # a bold number (a best value) too
    return f"<{tag}>{body}</{tag}>" if numeric or tag == "th" else f'<{tag} class="t">{body}</{tag}>'


def _split_row(line: str) -> list[str]:
    return re.split(r"(?<!\\)\|", line.strip().strip("|"))


def markdown_to_html(text: str) -> str:
    """Headings, paragraphs, code blocks and pipe tables (negkit's generated Markdown) as HTML."""
    out: list[str] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.startswith("```"):
            end = next((i for i in range(index + 1, len(lines)) if lines[i].startswith("```")), len(lines))
            out.append(f"<pre><code>{html.escape(chr(10).join(lines[index + 1:end]))}</code></pre>")
            index = end + 1
        elif line.startswith("#"):
            level = min(len(line) - len(line.lstrip("#")) + 1, 5)
            out.append(f"<h{level}>{_inline(line.lstrip('#').strip())}</h{level}>")
            index += 1
        elif line.startswith("|"):
            block = []
            while index < len(lines) and lines[index].startswith("|"):
                block.append(lines[index])
                index += 1
            header, body = block[0], [row for row in block[1:] if not re.fullmatch(r"\|[\s:|-]*", row)]
            rows = ["<tr>" + "".join(_cell(c, "th") for c in _split_row(header)) + "</tr>"]
            rows += ["<tr>" + "".join(_cell(c, "td") for c in _split_row(row)) + "</tr>" for row in body]
            out.append("<table>" + "".join(rows) + "</table>")
        elif line.strip():
            block = []
            while index < len(lines) and lines[index].strip() and not lines[index].startswith(("#", "|", "```")):
                block.append(lines[index].strip())
                index += 1
            out.append(f"<p>{_inline(' '.join(block))}</p>")
        else:
            index += 1
    return "\n".join(out)


# -- page assembly ----------------------------------------------------------------------------------------


def page(title: str, body: Iterable[str]) -> str:
    """A complete HTML document with the inline style sheet."""
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>{html.escape(title)}</title>\n'
            f"<style>{_CSS}</style>\n</head>\n<body>\n" + "\n".join(body) + "\n</body>\n</html>\n")


def figures_html(figures: Sequence[Figure]) -> str:
    """Figures side by side, each with its caption."""
    items = [f"<figure>{svg}<figcaption>{html.escape(caption)}</figcaption></figure>" for caption, svg in figures]
    return '<div class="figures">' + "\n".join(items) + "</div>"


def no_plots() -> str:
    return '<p class="note">Figures need matplotlib: <code>pip install negkit[report]</code>.</p>'


def _records(result: dict[str, Any]) -> list[dict[str, Any]]:
    path = result.get("files", {}).get("samples")
    if not path or not Path(path).is_file():
        return []
    return [record for _, record in iter_json_objects(path)]  # a damaged line is FILE:LINE: problem


def summary_table(results: Sequence[dict[str, Any]], suites: SuiteLookup = no_suites) -> str:
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
            rows.append([task, result.get("data", {}).get("count", "–"), entry.get("label", path),
                         percent_cell(entry, scale)])
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


def run_html(results: Sequence[dict[str, Any]], resolution_scores: Sequence[dict[str, Any]] = (),
             suites: SuiteLookup = no_suites) -> str:
    """The report page of one ``negkit eval`` run (its task results, as :func:`negkit.run.evaluate.evaluate`
    returns); ``suites`` gives each task's figures and main metric (:func:`negkit.suites.suite_view`)."""
    model = results[0]["model"] if results else {}
    title = f"negkit report: {model.get('name', 'no task')}"
    body = [f"<h1>{html.escape(title)}</h1>",
            f'<p class="meta">{html.escape(str(model.get("backend", "")))}, {html.escape(str(model.get("dtype", "")))}; '
            f"negkit {html.escape(str(results[0].get('negkit_version', '')) if results else '')}</p>"]
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
        tables = result.get("files", {}).get("tables")
        if tables and Path(tables).is_file():
            body.append(markdown_to_html(Path(tables).read_text(encoding="utf-8")))
    for score in resolution_scores:
        body.append(f"<h2>Negation resolution: {html.escape(Path(str(score.get('gold', ''))).name)}</h2>")
        body.append(figures_html(resolution_figures(score)) if plots.available() else no_plots())
        body.append(_resolution_table(score))
    return page(title, body)


def _resolution_table(score: dict[str, Any]) -> str:
    rows = []
    for entry in score.get("systems", []):
        intervals = entry.get("intervals", {})
        for row in entry.get("starsem", {}).get("rows", []):
            rows.append([Path(str(entry.get("system", "?"))).name, row["row"]] + [
                with_interval(float(row[name]) if row.get(name) is not None else None, intervals, f"{row['row']}.{name}", 2)
                for name in ("precision", "recall", "f1")])
    return markdown_to_html(markdown_table(["system", "measure", "P", "R", "F1"], rows))


def resolution_scores(folder: Path) -> list[dict[str, Any]]:
    """The ``resolution*.json`` files of a folder that hold ``negkit resolution score --json`` output."""
    scores = []
    for path in sorted(folder.glob("resolution*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            continue
        if isinstance(data, dict) and isinstance(data.get("systems"), list):
            scores.append(data)
    return scores


def write_html_report(results: Sequence[dict[str, Any]], out: str | Path, suites: SuiteLookup = no_suites) -> Path:
    """Write ``report.html`` into ``out`` (atomically) and return its path."""
    out = Path(out)
    path = out / HTML_FILE
    atomic_write_text(path, run_html(results, resolution_scores(out), suites))
    return path


def write_run_folder_html(folder: Path, suites: SuiteLookup = no_suites) -> Path:
    """Write ``report.html`` of an existing run folder from its task files (see ``negkit report``); tasks in the
    suites' order."""
    run = read_run(folder)

    def order(name: str) -> tuple[int, str]:
        view = suites(name)
        return (view.order if view else 1_000_000, name)

    results = []
    for name in sorted(run.tasks, key=order):
        task = run.tasks[name]
        tables = folder / f"{name}.md"
        results.append({**task.results, "files": {"samples": str(task.samples_file),
                                                   **({"tables": str(tables)} if tables.is_file() else {})}})
    return write_html_report(results, folder, suites)
