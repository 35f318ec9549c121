"""Exports of negkit's tasks to other tools (``negkit export``): :mod:`negkit.export.lm_eval` for the LM
Evaluation Harness."""
