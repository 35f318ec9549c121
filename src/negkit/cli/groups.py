"""The sub-command groups every command module adds its commands to."""

from __future__ import annotations

import argparse
from typing import Any

#: argparse's sub-command groups by name (``""``: the top level; ``"tind"``: ``negkit tind ...``).
CommandGroups = dict[str, "argparse._SubParsersAction[Any]"]
