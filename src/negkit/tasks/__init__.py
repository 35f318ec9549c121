"""Tasks: how a benchmark\x27s questions are asked (see :mod:`negkit.tasks.base`)."""
