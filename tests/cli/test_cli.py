"""The command line skeleton: help, version and error reporting."""

from __future__ import annotations

import pytest

from negkit import __version__
from negkit.cli import build_parser, main
from negkit.errors import InputFormatError


def test_version(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert __version__ in capsys.readouterr().out


@pytest.mark.parametrize("argv", [[], ["score"], ["tind"]])
def test_no_command_is_one_error_line_listing_the_commands(argv, capsys):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and captured.err.startswith("negkit: error: ")
    assert ("nubench" if argv == ["score"] else "convert" if argv == ["tind"] else "eval") in captured.err


def test_every_group_has_help():
    parser = build_parser()
    for group in ("resolution", "tind", "score"):
        with pytest.raises(SystemExit):
            parser.parse_args([group, "--help"])


def test_input_format_error_names_file_and_line():
    error = InputFormatError("gold.txt", 12, "expected 10 fields, found 9")
    assert str(error) == "gold.txt:12: expected 10 fields, found 9"
    assert str(InputFormatError("gold.txt", None, "empty file")) == "gold.txt: empty file"
