"""What a benchmark declares for fine-tuning, beside its suite: named training sets (:class:`TrainingSource`, with
the ``negkit finetune`` flags each takes: :class:`TrainingFlag`), its paper's recipes (:class:`Recipe`) and NLI
training files in its own layout (``nli_pairs``). A benchmark module calls :func:`register_training` after
``register_suite``; ``negkit finetune`` (:mod:`negkit.training`) reads them through :func:`training_sources`,
:func:`training_recipes` and :func:`nli_pair_readers`, in the suites' order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from negkit.kit.suites.description import SuiteDescription
from negkit.kit.suites.registry import all_suites

#: ``nli_pairs(path) -> [(premise, hypothesis, label)]``, or None when the file is not in the benchmark's layout.
NliPairReader = Callable[[Path], "list[tuple[str, str, str]] | None"]


@dataclass(frozen=True)
class TrainingFlag:
    """A ``negkit finetune`` flag that a training source accepts: its option strings (``--per-group``) and the
    keyword arguments of argparse's ``add_argument`` (``type``, ``choices``, ``default``, ``metavar``, ``help``:
    the help text is what ``negkit finetune --help`` shows). Build one with :func:`training_flag`."""

    names: tuple[str, ...]
    settings: Mapping[str, Any] = field(default_factory=dict, hash=False)

    @property
    def dest(self) -> str:
        """The attribute the parsed value lands in (argparse's rule: ``--per-group`` -> ``per_group``)."""
        return str(self.settings.get("dest") or self.names[0].lstrip("-").replace("-", "_"))


def training_flag(*names: str, **settings: Any) -> TrainingFlag:
    """``training_flag("--per-group", type=int, metavar="N", help="...")``: argparse's own spelling."""
    return TrainingFlag(names, settings)


@dataclass(frozen=True)
class TrainingSource:
    """A named training set for ``negkit finetune --train NAME``: ``build(model, options, split, limit)`` returns
    the training examples (a :class:`negkit.kit.training_data.examples.TrainingData`; ``options`` is the run's
    ``FinetuneOptions``, ``limit`` None when the source leaves the limit to ``finetune``); ``check(options)``
    checks that the data is there before a model loads; ``dev_split`` says whether ``--dev split`` reads the
    source's validation split; ``curriculum`` whether ``--affirmative-first`` applies (examples marked
    ``negated``); ``own_limit`` whether the source applies ``--limit`` itself; ``content_free(model, options)``
    the format's prompt with content-free input ("N/A"), as a training example whose ``choices`` are the answers
    (the answer-prior guard of a training mix, after Zhao et al. 2021); ``in_distribution`` names the suite whose
    own data the source is (its results page marks that suite as in-distribution after training on it).

    ``flags`` are the source's own ``negkit finetune`` flags (e.g. TIND's subset filters), which the command adds
    to its parser; ``options(values)`` turns their parsed values (``values``: the command line by argparse
    destination) into ``FinetuneOptions`` keyword arguments. ``negkit finetune`` calls ``options`` of every
    source, whatever ``--train`` names, so a flag given for another source still reaches the options' checks.
    A flag that an earlier source (in the suites' order) already declares is shared, not declared twice."""

    name: str
    build: Callable[..., Any]
    description: str = ""
    check: Callable[[Any], None] | None = None
    dev_split: bool = False
    curriculum: bool = False
    own_limit: bool = False
    flags: tuple[TrainingFlag, ...] = ()
    options: Callable[[Mapping[str, Any]], Mapping[str, Any]] | None = None
    content_free: Callable[[Any, Any], Any] | None = None
    in_distribution: str | None = None


@dataclass(frozen=True)
class Recipe:
    """A paper's fine-tuning hyper-parameters for ``negkit finetune --recipe NAME``: ``FinetuneOptions`` values that
    fill the options left at negkit's defaults (options set to anything else win)."""

    name: str
    description: str
    values: Mapping[str, Any] = field(default_factory=dict, hash=False)


@dataclass(frozen=True)
class TrainingDeclaration:
    """A suite's fine-tuning declarations (see the module documentation)."""

    suite: str
    sources: tuple[TrainingSource, ...] = ()
    recipes: tuple[Recipe, ...] = ()
    nli_pairs: NliPairReader | None = None


_DECLARED: dict[str, TrainingDeclaration] = {}


def register_training(
    suite: SuiteDescription,
    sources: Sequence[TrainingSource] = (),
    recipes: Sequence[Recipe] = (),
    nli_pairs: NliPairReader | None = None,
) -> TrainingDeclaration:
    """Declare ``suite``'s training sets, recipes and NLI-pair reader (a suite declares once; again replaces)."""
    declaration = TrainingDeclaration(suite.name, tuple(sources), tuple(recipes), nli_pairs)
    _DECLARED[suite.name] = declaration
    return declaration


def training_declarations() -> list[TrainingDeclaration]:
    """Every suite's training declarations, in the suites' order (the suites are found first, which imports them)."""
    return [_DECLARED[suite.name] for suite in all_suites() if suite.name in _DECLARED]


def training_sources() -> dict[str, TrainingSource]:
    """``negkit finetune --train NAME`` -> the suite's training set, for every suite that has one (suites' order)."""
    return {source.name: source for declaration in training_declarations() for source in declaration.sources}


def training_recipes() -> dict[str, Recipe]:
    """``negkit finetune --recipe NAME`` -> the recipe, for every suite that declares some (suites' order)."""
    return {recipe.name: recipe for declaration in training_declarations() for recipe in declaration.recipes}


def training_source(name: str) -> TrainingSource | None:
    """The suite training set named ``name``, or None (``--train`` then names a file)."""
    return training_sources().get(name)


def default_training_source() -> str:
    """The training set ``negkit finetune`` uses when none is named: the first suite's."""
    return next(iter(training_sources()), "")


def nli_pair_readers() -> list[NliPairReader]:
    """The suites' readers of NLI training files in their own layouts (suites' order)."""
    return [declaration.nli_pairs for declaration in training_declarations() if declaration.nli_pairs is not None]
