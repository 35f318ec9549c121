"""The ``negkit eval`` pipeline: :mod:`~negkit.run.options` (``EvalOptions``), :mod:`~negkit.run.preflight`
(every check before the model loads), :mod:`~negkit.run.flags` (which flag applies to which task; the resolved
command), :mod:`~negkit.run.evaluate` (``evaluate``: answer, score, write), :mod:`~negkit.run.record` (the
reproduction record) and :mod:`~negkit.run.files` (what a results file says about its samples file)."""
