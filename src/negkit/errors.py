"""Error types shared by every layer.

Every problem caused by the user's input (a malformed file, a missing data set, a model that cannot do
what a task needs) is raised as a :class:`NegkitError`; the CLI prints its message and exits with
status 2 without a traceback. Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

from os import PathLike


class NegkitError(Exception):
    """A problem the user can fix: bad input, missing data, an unsupported request."""


class InputFormatError(NegkitError):
    """A file does not have the expected format.

    The message always names the file, and the 1-based line number when there is one, in the
    ``FILE:LINE: problem`` form that editors and terminals turn into links.
    """

    def __init__(self, path: str | PathLike[str], line: int | None, problem: str) -> None:
        self.path = str(path)
        self.line = line
        self.problem = problem
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {problem}")


class DataNotFoundError(NegkitError):
    """A benchmark or corpus could not be found where negkit looked for it."""


def quoted(value: object, limit: int = 80) -> str:
    """``repr(value)`` cut to about ``limit`` characters, so that an error never echoes a huge field."""
    text = repr(value)
    if len(text) <= limit:
        return text
    return f"{text[: limit - 3]}... ({len(text)} characters)"


def shortened(text: str, limit: int = 80) -> str:
    """``text`` as it is when short, else its first ``limit`` characters and the length (for messages)."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"
