"""The ``negkit`` command line: argument parsing and dispatch only.

Each command family lives in its own module (or package) of this package and exposes
``register(groups: CommandGroups) -> None``, which adds sub-commands to the groups it needs; a module defining
``GROUPS`` adds command groups, and ``ORDER`` places it in ``negkit --help`` (:func:`command_modules`: no list to
edit). The commands of a benchmark's paper studies and of negation resolution (``negkit tind ...``, ``negkit nubench
...``, ``negkit nan-nli ...``, ``negkit resolution ...``) are such modules too; they take ``negkit eval``'s flags
from :mod:`negkit.cli.evaluate` and run evaluations through the library.
A sub-command parser stores its handler with ``parser.set_defaults(handler=function)``; the
handler receives the parsed ``argparse.Namespace`` and returns an exit status. Everything a
handler does is a call into the library, so it is reachable from Python with the same names.

Errors caused by the user's input are :class:`negkit.errors.NegkitError`: they are printed on
standard error as ``negkit: error: ...`` and the exit status is 2; nothing is written to
standard output in that case.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import pkgutil
import sys
from collections.abc import Sequence
from typing import Any

from negkit import __version__
from negkit.cli.groups import CommandGroups
from negkit.errors import NegkitError
from negkit.kit.suites import include_suites

#: Error messages are cut to this many characters (a quoted input value never floods the terminal).
MESSAGE_LIMIT = 1000

#: The default place of a command module in ``negkit --help`` (a module's ``ORDER`` moves it).
DEFAULT_ORDER = 100


def command_modules() -> list[Any]:
    """Every module of this package that registers commands (it has ``register``), by its ``ORDER`` then name.

    A module may also define ``GROUPS = {NAME: HELP}``: command groups (``negkit NAME COMMAND``) it adds commands to.
    """
    names = [f"negkit.cli.{info.name}" for info in pkgutil.iter_modules(__path__)]
    modules = [module for module in map(importlib.import_module, names) if hasattr(module, "register")]
    return sorted(modules, key=lambda module: (getattr(module, "ORDER", DEFAULT_ORDER), module.__name__))


class UsageError(NegkitError):
    """A command line that does not parse (an unknown flag, a bad value, a missing argument)."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, ``negkit: error: problem (see PROG --help)``, exit 2.

    Abbreviated long options are refused (``allow_abbrev=False``; sub-command parsers are of this class too):
    ``--fewshot 5`` must not silently mean ``--fewshot-examples 5``.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str):  # type: ignore[override]
        raise UsageError(f"{message} (see {self.prog} --help)")


def build_parser() -> argparse.ArgumentParser:
    """Return the full argument parser with every registered command."""
    parser = Parser(
        prog="negkit",
        description="Measure how language models handle negation.",
    )
    parser.add_argument("--version", action="version", version=f"negkit {__version__}")
    top = parser.add_subparsers(dest="command", metavar="COMMAND")
    groups: CommandGroups = {"": top}
    modules = command_modules()
    for module in modules:
        for name, help_text in getattr(module, "GROUPS", {}).items():
            group_parser = top.add_parser(name, help=help_text, description=help_text)
            groups[name] = group_parser.add_subparsers(dest=f"{name}_command", metavar="COMMAND")
            group_parser.set_defaults(handler=_group_usage(group_parser))
    for module in modules:
        module.register(groups)
    return parser


def _group_usage(group_parser: argparse.ArgumentParser):
    def missing_command(_args: argparse.Namespace) -> int:
        raise UsageError(
            f"{group_parser.prog} needs a command: {_command_names(group_parser)} (see {group_parser.prog} --help)"
        )

    return missing_command


def _command_names(parser: argparse.ArgumentParser) -> str:
    """The sub-command names of ``parser``, comma-separated."""
    actions = [action for action in parser._actions if isinstance(action, argparse._SubParsersAction)]
    return ", ".join(name for action in actions for name in action.choices)


def one_line(message: str, limit: int = MESSAGE_LIMIT) -> str:
    """``message`` on one line (control characters escaped) and at most ``limit`` characters."""
    text = "".join(
        character if character.isprintable() or character == " " else repr(character)[1:-1] for character in message
    )
    if len(text) > limit:
        text = text[: limit - 40] + f"... ({len(text)} characters, cut)"
    return text


def _included_paths(parser: argparse.ArgumentParser, argv: list[str]) -> list[str]:
    """The ``--include`` paths of a command line whose command takes the option (found by following the command
    words through the parser's sub-commands): a file is executed only for such a command, and never for a
    misspelt one. The values are read from the words themselves, as the suites they register may add the choices
    and flags that the rest of the command line needs."""

    def subcommands(command: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
        actions = [action for action in command._actions if isinstance(action, argparse._SubParsersAction)]
        return dict(actions[0].choices) if actions else {}

    command = parser
    for word in argv:
        if word.startswith("-") or word not in subcommands(command):
            break
        command = subcommands(command)[word]
    # a command word an included suite adds (``negkit score SUITE``): the command's sub-commands take the option
    takers = [command, *subcommands(command).values()] if command is not parser else []
    if not any("--include" in taker._option_string_actions for taker in takers):
        return []
    paths = []
    spellings = ("--include", "--include-path", "--include_path")  # the last two: the Harness's spelling
    for position, argument in enumerate(argv):
        if argument in spellings and position + 1 < len(argv):
            paths.append(argv[position + 1])
        elif argument.split("=", 1)[0] in spellings and "=" in argument:
            paths.append(argument.split("=", 1)[1])
    return paths


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return its exit status."""
    for stream in (sys.stdout, sys.stderr):  # paths of bytes that are not UTF-8 are printed escaped, not a crash
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        parser = build_parser()
        included = _included_paths(parser, argv)
        if included:  # a user's suites (their tasks and flags) join, then the command line is read again
            include_suites(included)
            parser = build_parser()
        args = parser.parse_args(argv)
        handler = getattr(args, "handler", None)
        if handler is None:
            raise UsageError(f"no command given: {_command_names(parser)} (see negkit --help)")
        return int(handler(args) or 0)
    except NegkitError as error:
        print(f"negkit: error: {one_line(str(error))}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `negkit ... | head`
        return 0
    except KeyboardInterrupt:
        print("negkit: interrupted", file=sys.stderr)
        return 130
