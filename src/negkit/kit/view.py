"""What the generic report pages need to know about a suite, handed to them by the caller.

The report package never names a benchmark: the HTML page of a run, ``negkit report`` and ``negkit compare`` ask a
:data:`SuiteLookup` (task name -> :class:`SuiteView`, or None for a task no suite claims) for a task's figures,
main metric, decimals and the headline estimands rebuilt from its per-sample records. :mod:`negkit.kit.suites` builds
the lookup from its registry (:func:`negkit.kit.suites.suite_view`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from negkit.kit.metrics.intervals import Estimand

#: A figure: its caption and its SVG text.
Figure = tuple[str, str]
#: ``(metrics, per-sample records) -> figures``.
FigureBuilder = Callable[[dict[str, Any], Sequence[dict[str, Any]]], list[Figure]]
#: ``(per-sample records, the samples file named in errors) -> every estimand`` (headline ones are flagged).
EstimandBuilder = Callable[[Sequence[dict[str, Any]], Path], list[Estimand]]


@dataclass(frozen=True)
class RunSection:
    """A part of a run's report that draws on several tasks (e.g. a paper's table comparing two benchmarks):
    its title, its Markdown, and its figures (built only for the HTML page)."""

    title: str
    markdown: str
    figures: Callable[[], list[Figure]] | None = None


#: ``(every task's results of a run) -> a section, or None when the run lacks what it needs``.
SectionBuilder = Callable[[Sequence[Mapping[str, Any]]], "RunSection | None"]


@dataclass(frozen=True)
class SuiteView:
    """A suite as the report pages see it."""

    #: The suite's name (``compare``'s ``suite`` field).
    name: str
    #: The metric path a leaderboard is sorted by and the run summary shows (None: the first headline metric).
    primary_metric: str | None = None
    #: Decimals in tables (percentages: 2; fractions: 3).
    digits: int = 3
    #: The axis of the comparison figures: ``(0, 100)`` for percentages, ``(0, 1)`` for fractions.
    scale: tuple[float, float] = (0.0, 1.0)
    #: The figures of the suite's HTML section (None: tables only).
    figures: FigureBuilder | None = None
    #: The headline estimands rebuilt from per-sample records (None: ``negkit compare`` cannot compare the task);
    #: read it as :attr:`estimand_builder`, which asks ``find_estimands`` when that is given.
    estimands: EstimandBuilder | None = None
    #: Position among the suites in a report (lower first).
    order: int = 100
    #: A section of the run's report drawing on several tasks (None: none).
    sections: SectionBuilder | None = None
    #: Headline metric paths that are fractions in [0, 1] although the suite prints percentages (an AUC): 3
    #: decimals and the axis (0, 1) in ``negkit compare``.
    fractions: tuple[str, ...] = ()
    #: BibTeX entries of the suite's papers (``results.json``'s ``citations``, the report's "How to cite").
    bibtex: str = ""
    #: Finds the estimand builder on first use (building the suite's task only when a comparison asks for it).
    find_estimands: Callable[[], EstimandBuilder | None] | None = field(default=None, compare=False)

    @cached_property
    def estimand_builder(self) -> EstimandBuilder | None:
        """The headline estimands' builder (None: the task cannot be compared from its samples)."""
        return self.find_estimands() if self.find_estimands is not None else self.estimands


#: Task name -> its suite's view, or None.
SuiteLookup = Callable[[str], "SuiteView | None"]


def no_suites(task_name: str) -> SuiteView | None:
    """A lookup that knows no suite (tables only, nothing to compare)."""
    return None


def report_order(suites: SuiteLookup, task_name: str) -> tuple[int, str]:
    """Where task ``task_name`` stands in a run's reports: its suite's order, then its name (tasks no suite knows
    come last)."""
    view = suites(task_name)
    return (view.order if view else 1_000_000, task_name)


def run_sections(results: Sequence[Mapping[str, Any]], suites: SuiteLookup) -> list[RunSection]:
    """The sections the suites of a run's tasks add to its report (each suite asked once, in the tasks' order)."""
    views = [suites(str(result.get("task", {}).get("task", "?"))) for result in results]
    builders = list(dict.fromkeys(view.sections for view in views if view is not None and view.sections is not None))
    return [section for build in builders if (section := build(results)) is not None]
