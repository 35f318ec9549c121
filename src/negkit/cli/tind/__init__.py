"""``negkit tind ...``: TIND's own commands (convert and describe the data, rebuild it from WordNet, the Figure 2
transfer runs, the Table 3 human-evaluation sheets)."""

from __future__ import annotations

from negkit.cli.groups import CommandGroups
from negkit.cli.tind import data, generate, human_eval, transfer

#: Place in ``negkit --help``.
ORDER = 50
#: The command group this benchmark adds.
GROUPS = {"tind": "This is not a Dataset: load, convert, generate, check"}


def register(groups: CommandGroups) -> None:
    data.register(groups)
    transfer.register(groups)
    generate.register(groups)
    human_eval.register(groups)
