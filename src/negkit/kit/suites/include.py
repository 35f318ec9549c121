"""Suites from a user's own files: ``--include PATH`` (a ``.py`` file, or a folder of them), as the LM Evaluation
Harness's ``--include_path``; and suites of installed packages (the ``negkit.suites`` entry points).

A file is run as a module of its own (named ``negkit_include.<stem>_<hash>``) and registers its suites with
:func:`negkit.kit.suites.register_suite` (or leaves a :class:`SuiteDescription` in a module-level ``SUITE`` or a list
in ``SUITES``). A file that fails, or registers nothing, is one line naming it (``negkit: error: FILE:LINE:
problem``, exit 2). Including the same file again does nothing; a changed file is read again and replaces its
suites.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import sys
import traceback
from collections.abc import Iterable
from pathlib import Path

from negkit.errors import InputFormatError, NegkitError
from negkit.kit.suites.description import SuiteDescription
from negkit.kit.suites.registry import (
    ENTRY_POINT_GROUP,
    get_suite,
    load_entry_point,
    register_suite,
    registered_names,
    unregister_suite,
)

#: Resolved file -> (its text's SHA-256, the suites it registered).
_INCLUDED: dict[Path, tuple[str, list[str]]] = {}


def include_files(paths: Iterable[str | Path]) -> list[Path]:
    """The ``.py`` files ``paths`` name: a file itself, or a folder's ``.py`` files (sorted, not recursive; names
    starting with ``_`` are skipped)."""
    files: list[Path] = []
    for given in paths:
        path = Path(given).expanduser()
        if path.is_dir():
            found = sorted(file for file in path.glob("*.py") if not file.name.startswith("_"))
            if not found:
                raise NegkitError(f"{given}: no .py file in this folder (--include)")
            files += found
        elif path.is_file():
            if path.suffix != ".py":
                raise NegkitError(f"{given}: not a Python file (--include takes a .py file or a folder of them)")
            files.append(path)
        else:
            raise NegkitError(f"{given}: no such file or folder (--include)")
    return files


def include_suites(paths: Iterable[str | Path] | None) -> list[SuiteDescription]:
    """Load the suites of ``paths`` (see the module documentation) and return them."""
    suites: list[SuiteDescription] = []
    for file in include_files(paths or ()):
        suites += _include_file(file)
    return suites


def _include_file(file: Path) -> list[SuiteDescription]:
    resolved = file.resolve()
    try:
        text = resolved.read_bytes()
    except OSError as error:
        raise NegkitError(f"{file}: cannot be read ({error.strerror or error})") from None
    digest = hashlib.sha256(text).hexdigest()
    known = _INCLUDED.get(resolved)
    if known is not None and known[0] == digest and set(known[1]) <= set(registered_names()):
        return [get_suite(name) for name in known[1]]  # loaded before, and still registered
    for name in known[1] if known else ():
        unregister_suite(name)
    before = set(registered_names())
    module_name = f"negkit_include.{resolved.stem}_{digest[:12]}"
    spec = importlib.util.spec_from_file_location(module_name, resolved)
    if spec is None or spec.loader is None:
        raise NegkitError(f"{file}: cannot be loaded as a Python module (--include)")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # dataclasses and pickling look modules up by name
    try:
        spec.loader.exec_module(module)
        for candidate in (getattr(module, "SUITE", None), *getattr(module, "SUITES", ())):
            if isinstance(candidate, SuiteDescription) and candidate.name not in registered_names():
                register_suite(candidate)
    except SyntaxError as error:
        sys.modules.pop(module_name, None)
        raise InputFormatError(file, error.lineno, f"syntax error: {error.msg}") from None
    except NegkitError as error:
        sys.modules.pop(module_name, None)
        raise NegkitError(f"{file}: {error}") from None
    except Exception as error:  # the user's code failed: one line naming the file and the line it failed on
        sys.modules.pop(module_name, None)
        line = next(
            (
                frame.lineno
                for frame in reversed(traceback.extract_tb(error.__traceback__))
                if Path(frame.filename).resolve() == resolved
            ),
            None,
        )
        raise InputFormatError(file, line, f"{type(error).__name__}: {error}") from None
    added = [name for name in registered_names() if name not in before]
    if not added:
        raise NegkitError(
            f"{file}: registers no suite (call negkit.kit.suites.register_suite(SuiteDescription(...)) or set SUITE)"
        )
    _INCLUDED[resolved] = (digest, added)
    return [get_suite(name) for name in added]


def load_plugins() -> list[str]:
    """Load the entry points of the group ``negkit.suites`` (installed packages' suites) again, e.g. after a
    package was installed in a running process; return the names of the suites they added."""
    before = set(registered_names())
    for entry_point in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        load_entry_point(entry_point)
    return [name for name in registered_names() if name not in before]
