"""The ``negkit eval`` pipeline: :mod:`~negkit.commands.eval.options` (``EvalOptions``), :mod:`~negkit.commands.eval.preflight`
(every check before the model loads), :mod:`~negkit.commands.eval.flags` (which flag applies to which task; the resolved
command), :mod:`~negkit.commands.eval.evaluate` (``evaluate``: answer, score, write), :mod:`~negkit.commands.eval.record` (the
reproduction record) and :mod:`~negkit.runs.files` (what a results file says about its samples file)."""

from negkit.commands.eval.evaluate import evaluate
from negkit.commands.eval.options import EvalOptions

__all__ = ["EvalOptions", "evaluate"]
