"""Safe files: :mod:`~negkit.io.atomic` (atomic writes), :mod:`~negkit.io.textfiles` (reading text files with
clear errors), :mod:`~negkit.io.privacy` (TIND's sentences never enter a git working tree) and
:mod:`~negkit.io.hub` (hub ids against local paths, offline detection)."""
