"""What a benchmark suite is: one :class:`SuiteDescription` holds everything negkit knows about a benchmark.

A suite module builds one and calls :func:`negkit.kit.suites.register_suite`; every command reads the registry
(``eval --list``, ``eval``, the checks before a run, ``score``, ``report``, ``compare``, ``export lm-eval``,
``finetune``), so nothing else in negkit names a benchmark. The parts:

- **tasks** (:class:`TaskEntry`): the ways the suite is asked (``tind``, ``tind-fewshot``, ...), each a factory
  of a :class:`negkit.kit.tasks.base.Task` taking the task's options (prompt variant, few-shot, chat, ...), which
  says itself which flags it accepts (``Task.accepts``); ``main_task`` is the one ``negkit eval`` runs when no
  task is named;
- **data** (:class:`DataSource`): the folder under a data root, how a user obtains the data, its licence, and
  optionally a function that finds it; ``reader`` is the data reader (for Python users);
- the numbers come from the tasks, one path for ``negkit eval``, ``score`` and ``compare``
  (:mod:`negkit.kit.scoring`); ``scorer_help`` describes the predictions files ``negkit score`` reads;
- **intervals**: the unit the bootstrap resamples (``interval_unit``) and the ``primary_metric``;
- **report**: ``figures`` (the HTML section), ``digits``, ``scale`` and ``fractions`` (headline metrics that are
  fractions in a suite printed in percent, e.g. TIND's AUC of p(True));
- **benchmark flags**: ``task_flags`` (:class:`TaskFlag`: ``negkit eval`` flags of the benchmark's own task
  options);
- **harness** (:class:`HarnessExport`): the LM Evaluation Harness export of the main task (``task_harness``: of
  other tasks; ``harness_none``: why the others have none);
- **statistics**: the data statistics tables of ``negkit data stats SUITE``;
- **groups**: named groups of suites (``negkit eval --tasks negation-all``);
- **bibtex**: the BibTeX entries of the suite's papers (``negkit cite``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from negkit.kit.citations import BibtexError, bibtex_entries
from negkit.kit.data.source import DataSource as DataSource  # a suite's data declaration, re-exported
from negkit.kit.scoring import headline_estimands
from negkit.kit.tasks.adapter import adapt
from negkit.kit.tasks.base import Task, TaskData
from negkit.kit.view import EstimandBuilder, FigureBuilder, SectionBuilder, SuiteView


@dataclass
class SuiteScore:
    """What ``negkit score`` gives: the metrics dictionary and its Markdown rendering."""

    metrics: dict[str, Any]
    markdown: str


@dataclass(frozen=True)
class TaskEntry:
    """One way of asking a suite: its task name, a factory of the task (keyword options), a one-line description."""

    name: str
    factory: Callable[..., Task]
    description: str = ""
    #: The task also runs with a sequence-classification model (``nli:PATH``, built with ``model_kind="classifier"``).
    classifier: bool = False
    #: The task also runs with a sentence embedding model (``embed:PATH``, built with ``model_kind="embedding"``).
    embedding: bool = False
    #: The options of ``negkit eval``'s flags the task takes, when its factory's keyword parameters say more
    #: (None: those parameters; :func:`negkit.kit.tasks.spec.task_spec`).
    accepts: frozenset[str] | None = None
    #: The task samples whatever its options, so the run's seed always changes what it asks (e.g. TIND's groups).
    always_seeded: bool = False


@dataclass(frozen=True)
class HarnessExport:
    """How a suite's tasks are written for the LM Evaluation Harness (``negkit export lm-eval``).

    ``write(task, loaded, out, data, names)`` writes the task's YAML and documents into ``out`` (``names``: the
    Harness task names) and returns the task's entry of ``negkit_export.json``; ``loaders`` maps each function
    the YAML files call (``!function utils.NAME``) to the export's task key whose documents it loads, or to
    ``None`` when ``utils_source`` defines it; ``utils_source`` is Python code (standard library and
    ``datasets`` only) appended to the exported ``utils.py``; ``readme(base_command, entry)`` gives the README's
    command lines for the task (None: listed with the plain-prompt tasks).
    """

    names: tuple[str, ...]
    write: Callable[[Any, TaskData, Path, str | None, tuple[str, ...]], dict[str, Any]]
    loaders: Mapping[str, str | None] = field(default_factory=dict)
    utils_source: str = ""
    readme: Callable[[str, dict[str, Any]], list[str]] | None = None
    #: Notes for the README (e.g. how seeds map), from the task's manifest entry.
    notes: Callable[[dict[str, Any]], list[str]] | None = None


@dataclass(frozen=True)
class TaskFlag:
    """A ``negkit eval`` flag that sets one option of the tasks that accept it (``Task.accepts``), declared by the
    benchmark whose tasks take it (e.g. Thunder-NUBench's ``--bos``): its option strings, the task option it sets,
    and argparse's ``add_argument`` keyword arguments. A flag given for a task that does not take it is an error.
    Build one with :func:`task_flag`."""

    names: tuple[str, ...]
    option: str
    settings: Mapping[str, Any] = field(default_factory=dict, hash=False)

    @property
    def dest(self) -> str:
        return self.option


def task_flag(*names: str, option: str, **settings: Any) -> TaskFlag:
    """``task_flag("--bos", option="bos", choices=(...), help="...")``: argparse's own spelling."""
    return TaskFlag(names, option, settings)


@dataclass(frozen=True)
class SuiteDescription:
    """Everything negkit knows about one benchmark (see the module documentation)."""

    name: str
    title: str
    tasks: tuple[TaskEntry, ...]
    main_task: str
    data: DataSource
    aliases: tuple[str, ...] = ()
    reader: Callable[..., Any] | None = None
    #: One line for ``negkit score --help``: the predictions file's layout.
    scorer_help: str = ""
    interval_unit: str = "item"
    primary_metric: str | None = None
    digits: int = 3
    scale: tuple[float, float] = (0.0, 1.0)
    #: Headline metric paths that are fractions although ``scale`` is percent (see :class:`SuiteView`).
    fractions: tuple[str, ...] = ()
    figures: FigureBuilder | None = None
    harness: HarnessExport | None = None
    #: Harness exports of the suite's other tasks (task name -> export), exported beside the main task's.
    task_harness: Mapping[str, HarnessExport] = field(default_factory=dict)
    #: Why the suite's tasks without a Harness export have none (``negkit export lm-eval`` says it), e.g. a cloze
    #: probe ranks a vocabulary, which the Harness cannot express.
    harness_none: str = ""
    #: ``negkit eval`` flags of the benchmark's own task options (:class:`TaskFlag`).
    task_flags: tuple[TaskFlag, ...] = ()
    #: ``statistics(data) -> DataStatistics``: the paper's data tables from the data under a data root
    #: (``negkit data stats SUITE``; :mod:`negkit.kit.data.statistics`).
    statistics: Callable[[str | Path | None], Any] | None = None
    #: Position in ``negkit eval --list``, the default run and reports (lower first).
    order: int = 100
    #: A section of a run's report drawing on several tasks, e.g. a paper's table comparing two benchmarks
    #: (``run_sections(results) -> RunSection or None``).
    run_sections: SectionBuilder | None = None
    #: Named groups of suites this suite belongs to: ``negkit eval --tasks GROUP`` runs the main task of every suite
    #: of the group whose data is found (e.g. ``negation-all``, every negation benchmark).
    groups: tuple[str, ...] = ()
    #: Whether ``negkit eval`` without ``--tasks`` runs it (False for a guard that is not a negation benchmark,
    #: such as ``blimp-guard``: asked for by name only).
    default_run: bool = True
    #: BibTeX entries of the papers whose data and protocol the suite uses (the data set's paper first), as written
    #: in a ``.bib`` file (default: its data source's); ``negkit cite``, ``results.json`` and ``report.html`` list them (:mod:`negkit.kit.citations`).
    bibtex: str = ""
    #: Other data sets the benchmark's own commands read, by name (TIND's generator: the WordNet side resources),
    #: listed and fetched by ``negkit data`` like the suite's own.
    extra_data: Mapping[str, DataSource] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        if not self.bibtex and self.data.bibtex:  # declared with the data (DataSource.declared)
            object.__setattr__(self, "bibtex", self.data.bibtex)
        try:
            bibtex_entries(self.bibtex)
        except BibtexError as error:
            raise ValueError(f"suite {self.name}: bibtex: {error}") from None
        names = [entry.name for entry in self.tasks]
        if self.main_task not in names:
            raise ValueError(f"suite {self.name}: main task {self.main_task!r} is not one of its tasks {names}")
        if len(set(names)) != len(names):
            raise ValueError(f"suite {self.name}: a task is named twice in {names}")

    @property
    def task_names(self) -> tuple[str, ...]:
        return tuple(entry.name for entry in self.tasks)

    @property
    def names(self) -> tuple[str, ...]:
        """The suite's name and its aliases."""
        return (self.name, *self.aliases)

    def task(self, name: str) -> TaskEntry:
        return next(entry for entry in self.tasks if entry.name == name)

    def view(self, task_name: str | None = None) -> SuiteView:
        """The suite as the report pages see it (``task_name``: which task's records its estimands read; default:
        the main task). A task that rebuilds its items from its records gives the estimands ``negkit compare``
        uses, the same as ``negkit eval``'s (:mod:`negkit.kit.scoring`); the task is built only when a comparison
        asks for them."""
        entry = self.task(task_name if task_name in self.task_names else self.main_task)

        def find_estimands() -> EstimandBuilder | None:
            task = entry.factory()
            if not adapt(task).compares:
                return None

            def estimands(records: Sequence[dict[str, Any]], path: Path) -> list[Any]:
                return headline_estimands(task, records, path)

            return estimands

        return SuiteView(
            self.name,
            self.primary_metric,
            self.digits,
            self.scale,
            self.figures,
            None,
            self.order,
            self.run_sections,
            self.fractions,
            bibtex=self.bibtex,
            find_estimands=find_estimands,
        )
