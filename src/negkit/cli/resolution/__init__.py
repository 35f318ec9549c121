"""``negkit resolution ...``: the negation-resolution corpora, scorers and systems."""

from __future__ import annotations

from negkit.cli.groups import CommandGroups
from negkit.cli.resolution import corpora, systems

#: Place in ``negkit --help``.
ORDER = 40
#: The command group of negation resolution.
GROUPS = {"resolution": "negation cue/scope resolution: corpora, scorer, systems"}


def register(groups: CommandGroups) -> None:
    corpora.register(groups)
    systems.register(groups)
