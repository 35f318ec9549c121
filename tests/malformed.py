"""Helpers of the malformed-input tests: run a command in-process and check that it failed the way negkit promises.

A bad input must end in exactly one line ``negkit: error: FILE[:LINE]: problem`` on standard error, exit status 2,
nothing on standard output, no traceback, and no echo of a huge field.
"""

from __future__ import annotations

import re
from pathlib import Path

from negkit.cli import main

#: No error line may be longer than this (a quoted value is cut short).
MAX_LINE = 1000


def assert_input_error(
    argv: list[str],
    capsys,
    where: str | Path | None = None,
    line: int | None = None,
    contains: str | None = None,
    allow_notes: bool = False,
) -> str:
    """Run ``negkit ARGV`` and check the failure; return the error line.

    ``where``: the file (or other input) the message must name first; ``line``: the line number that must follow it;
    ``contains``: a fragment of the problem. ``allow_notes``: other stderr lines (``negkit: note: ...``) may precede it.
    """
    capsys.readouterr()
    try:
        status = main([str(argument) for argument in argv])
    except SystemExit as exit_:  # pragma: no cover - reported as a failure below
        status = exit_.code
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err, captured.err
    assert captured.out == "", f"stdout not empty: {captured.out[:500]!r}"
    assert status == 2, f"exit status {status}, stderr: {captured.err[-2000:]}"
    lines = [text for text in captured.err.splitlines() if text.strip()]
    errors = [text for text in lines if text.startswith("negkit: error: ")]
    assert len(errors) == 1, f"expected one 'negkit: error:' line, got: {lines}"
    if not allow_notes:
        others = [text for text in lines if not text.startswith("negkit: error: ")]
        assert not others, f"unexpected stderr lines: {others}"
    message = errors[0]
    assert len(message) <= MAX_LINE, f"error line of {len(message)} characters"
    if where is not None:
        prefix = f"negkit: error: {where}"
        assert message.startswith(prefix), f"{message!r} does not start with {prefix!r}"
        if line is not None:
            assert message.startswith(f"{prefix}:{line}:"), f"{message!r} does not name line {line}"
        else:  # the input itself, or a file inside it (a model folder's config), then the line if any
            assert re.match(re.escape(prefix) + r"(/[^:]*)?(:\d+)?: ", message), message
    if contains is not None:
        assert contains in message, f"{contains!r} not in {message!r}"
    return message
