"""``negkit tind ...``: TIND's own commands (convert and describe the data, rebuild it from WordNet, the Figure 2
transfer runs, the Table 3 human-evaluation sheets)."""

from __future__ import annotations

from negkit.benchmarks.tind.cli import data, generate, human_eval, transfer
from negkit.kit.command_context import CommandContext, CommandGroups

#: Place in ``negkit --help``.
ORDER = 50
#: The command group this benchmark adds.
GROUPS = {"tind": "This is not a Dataset: load, convert, generate, check"}


def register(groups: CommandGroups, context: CommandContext) -> None:
    data.register(groups)
    transfer.register(groups)
    generate.register(groups)
    human_eval.register(groups)
