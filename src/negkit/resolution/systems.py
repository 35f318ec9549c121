"""Load any trained negation resolution system from its model folder.

``negkit_resolution.json`` says which kind a folder holds: a DP system (``"system": "dp-direct"`` and the other
parsing systems, :class:`~negkit.resolution.parsing.parser.NegationParser`) or the two-stage cue tagger + scope
resolver (:class:`~negkit.resolution.train.NegationResolver`, folders without a ``system`` entry). Both predict with
``predict(sentences, gold_cues=...)`` and carry a ``name``.
"""

from __future__ import annotations

from pathlib import Path

from negkit.errors import InputFormatError
from negkit.io.textfiles import read_json_object
from negkit.resolution.parsing.parser import NegationParser
from negkit.resolution.parsing.settings import SYSTEMS
from negkit.resolution.train import CONFIG_FILE, NegationResolver

#: ``--system`` names of ``negkit resolution train``: the two-stage system, then the DP systems.
TWO_STAGE = "cue-scope"
SYSTEM_NAMES = (TWO_STAGE, *SYSTEMS)


def load_system(folder: str | Path) -> NegationResolver | NegationParser:
    """The system saved in ``folder`` (an :class:`~negkit.errors.InputFormatError` naming the file if it is none)."""
    folder = Path(folder)
    if folder.is_dir() and (folder / CONFIG_FILE).exists():
        config = read_json_object(folder / CONFIG_FILE, "negkit resolution model configuration")
        system = config.get("system")
        if system in SYSTEMS:
            return NegationParser.load(folder, config)
        if system not in (None, TWO_STAGE):
            raise InputFormatError(
                folder / CONFIG_FILE,
                None,
                f"unknown system {str(system)[:40]!r} (this negkit knows {', '.join(SYSTEM_NAMES)})",
            )
    return NegationResolver.load(folder)
