"""One report for a ``negkit eval`` run over several tasks: every task's tables in one Markdown file and every
task's results in one JSON file (in the LM Evaluation Harness's layout, see :mod:`negkit.kit.harness.layout`)."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from negkit.commands.report import write_html_report
from negkit.errors import NegkitError
from negkit.io.atomic import atomic_write_text
from negkit.kit.citations import lookup_citations
from negkit.kit.render.markdown import markdown_table
from negkit.kit.results import RunResult, TaskResult
from negkit.kit.runs import read_task
from negkit.kit.view import SuiteLookup, no_suites, report_order, run_sections
from negkit.runs.files import RESULTS_SUFFIX

REPORT_FILE = "report.md"
RESULTS_FILE = "results.json"


def with_earlier_tasks(
    results: Sequence[TaskResult],
    out: str | Path,
    suites: SuiteLookup = no_suites,
) -> list[TaskResult]:
    """``results`` and the tasks an earlier invocation left in ``out`` (the same model: eval refuses another's), so
    that ``results.json`` and the reports cover every task of the folder, in the suites' order. An earlier task
    whose files cannot be read back is left out, with a note on stderr."""
    names = {result.log.task.task for result in results}
    earlier: list[TaskResult] = []
    for path in sorted(Path(out).glob(f"*{RESULTS_SUFFIX}")):
        name = path.name[: -len(RESULTS_SUFFIX)]
        if name in names:
            continue
        try:
            earlier.append(read_task(Path(out), name))
        except NegkitError as error:
            print(
                f"negkit: note: {name} of an earlier run is left out of the folder's reports: {error}", file=sys.stderr
            )
    if not earlier:
        return list(results)
    return sorted([*results, *earlier], key=lambda result: report_order(suites, str(result.log.task.task)))


def is_sample(data: dict[str, Any]) -> bool:
    """Whether a task scored fewer items than its split holds (a ``--limit`` run)."""
    count, whole = data.get("count"), data.get("items_in_split")
    return isinstance(count, int) and isinstance(whole, int) and count < whole


def items_cell(data: dict[str, Any]) -> str:
    """The items a task scored, and for a sample of how many (``120 of 1,200 (sample)``)."""
    count = data.get("count", "–")
    if is_sample(data):
        return f"{count:,} of {data['items_in_split']:,} (*sample*)"
    return f"{count:,}" if isinstance(count, int) else str(count)


def combined_markdown(
    results: Sequence[Mapping[str, Any]], skipped: dict[str, str] | None = None, suites: SuiteLookup = no_suites
) -> str:
    """The model, a summary row per task, the suites skipped for want of data, the sections drawing on several
    tasks (``suites`` gives them), then each task's own tables."""
    if not results:
        return "# negkit report\n\nNo task was run.\n"
    model = results[0]["model"]
    rows = [
        [result["task"].get("task", "?"), items_cell(result["data"]), result["timings"].get("score_s", "–")]
        for result in results
    ]
    parts = [
        "# negkit report",
        f"Model: `{model.get('name')}` ({model.get('backend')}, {model.get('dtype')}); negkit {results[0].get('negkit_version')}",
        markdown_table(["task", "items", "scoring time (s)"], rows),
    ]
    if any(is_sample(result["data"]) for result in results):
        parts.append(
            "A task marked *sample* scored part of its split (`--limit`; a deterministic draw, of whole groups where "
            "its items come in groups): its numbers estimate the whole split's, with wider intervals."
        )
    if skipped:
        parts.append(
            "Not run (data not found): " + "; ".join(f"{suite} (get it: {hint})" for suite, hint in skipped.items())
        )
    parts += [f"## {section.title}\n\n{section.markdown.strip()}" for section in run_sections(results, suites)]
    for result in results:
        tables = result_tables(result)
        if tables:
            parts.append(tables.strip())
    return "\n\n".join(parts) + "\n"


def result_tables(result: Mapping[str, Any]) -> str | None:
    """A task's Markdown tables: from memory for a task just run, else its ``TASK.md`` file."""
    if isinstance(result, TaskResult) and result.tables is not None:
        return result.tables
    tables_file = result.get("files", {}).get("tables")
    return Path(tables_file).read_text(encoding="utf-8") if tables_file and Path(tables_file).is_file() else None


def write_combined_report(
    results: Sequence[Mapping[str, Any]],
    out: str | Path,
    record: dict[str, Any] | None = None,
    skipped: dict[str, str] | None = None,
    seconds: float | None = None,
    suites: SuiteLookup = no_suites,
) -> dict[str, str]:
    """Write ``report.md``, ``report.html`` and ``results.json`` (the run's ``record``, every task's results, the
    suites ``skipped`` for want of data, the wall time in ``seconds``) into ``out``; return their paths. ``suites``
    gives each task's figures and main metric in ``report.html``."""
    out = Path(out)
    report = out / REPORT_FILE
    atomic_write_text(report, combined_markdown(results, skipped, suites))
    combined = out / RESULTS_FILE
    tasks = [
        result if isinstance(result, TaskResult) else TaskResult.from_results(result, path=combined)
        for result in results
    ]
    citations = lookup_citations([task.name for task in tasks], suites)
    log = RunResult(tasks, record, dict(skipped or {}), seconds).log(citations)
    atomic_write_text(combined, log.json_text())
    page = write_html_report(results, out, suites)
    return {"report": str(report), "html": str(page), "results": str(combined)}
