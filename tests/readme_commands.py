"""The commands and code blocks of the README and of docs/commands.md, read and checked the way a new user meets them on a fresh clone.

Used by ``tests/cli/test_readme.py`` (every command parses, names only files that exist or that an earlier README
command creates, and the commands that load no model run for real) and by ``perf/run_readme.py`` (every
runnable command and the Python example run for real, in order, in a fresh clone).

Each shell command (a line of a ```bash block, ``\\`` continuations joined) is one of: ``negkit ...`` (parsed
with negkit's own parser), ``bash scripts/NAME.sh ...``, ``torchrun ... -m negkit ...`` or ``lm_eval ...``. A
trailing comment that says ``needs ...`` labels a command that this kind of machine cannot run (a GPU, the
Hugging Face hub, a server, the LM Evaluation Harness): those are only parsed. A comment saying ``takes ...``
labels a long command (the main job): parsed by the test, run by the benchmark script with ``--all``.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
#: The command reference the README links to: its commands are checked with the README's, after them.
COMMANDS_PAGE = REPO / "docs" / "commands.md"
DOCUMENTS = (README, COMMANDS_PAGE)
#: Model specs that load no weights.
BASELINES = re.compile(r"^(random|majority|constant:.+)$")
#: Options whose value is a folder or file the command writes.
OUTPUT_OPTIONS = ("--out", "--output-path", "--output_path", "--figures", "--gold-out")
#: Options that make a command need hardware or services this kind of machine lacks.
NEEDS_HARDWARE = ("--quantize",)
_COMMENT = re.compile(r"(?:^|\s)#(?:\s.*|$)")
_FILE_SUFFIXES = (".jsonl", ".json", ".txt", ".zip", ".gguf", ".xml", ".csv", ".parquet", ".sh", ".html", ".md")


@dataclass
class Command:
    """One shell command of the README: its words, its comment, and the line it starts on."""

    line: int
    text: str
    argv: list[str]
    comment: str
    #: The document it is in (``README.md``, ``docs/commands.md``).
    source: str = "README.md"

    @property
    def where(self) -> str:
        """``FILE line N``, for messages."""
        return f"{self.source} line {self.line}"

    @property
    def needs(self) -> str | None:
        """What the command needs that this machine lacks (its ``# needs ...`` label), or None."""
        match = re.search(r"\bneeds? ([^;]+)", self.comment)
        return match.group(1).strip() if match else None

    @property
    def long(self) -> bool:
        """Labelled as a long job (``# ... takes ...``)."""
        return bool(re.search(r"\btakes\b", self.comment))

    @property
    def negkit_argv(self) -> list[str] | None:
        """The arguments negkit gets (after ``negkit`` or ``torchrun ... -m negkit``), or None."""
        if self.argv[:1] == ["negkit"]:
            return self.argv[1:]
        if self.argv[:1] == ["torchrun"] and "-m" in self.argv:
            start = self.argv.index("-m")
            if self.argv[start + 1 : start + 2] == ["negkit"]:
                return self.argv[start + 2 :]
        return None

    def option(self, *names: str) -> str | None:
        """The value of the first of ``names`` given (``--name VALUE`` or ``--name=VALUE``)."""
        for position, word in enumerate(self.argv):
            for name in names:
                if word == name and position + 1 < len(self.argv):
                    return self.argv[position + 1]
                if word.startswith(name + "="):
                    return word.split("=", 1)[1]
        return None

    @property
    def model(self) -> str | None:
        argv = self.negkit_argv
        if argv is None:
            return None
        value = self.option("--model")
        if value is None and argv[:1] == ["eval"] and "--list" not in argv:
            return "default"
        if argv[:1] == ["finetune"] or argv[:1] == ["merge-adapter"]:
            return value or "default"
        if argv[:2] in (
            ["resolution", "train"],
            ["resolution", "predict"],
            ["resolution", "evaluate"],
            ["resolution", "tag"],
        ):
            return "resolution"
        return value

    @property
    def loads_model(self) -> bool:
        """Whether the command loads model weights (a baseline pseudo-model loads none)."""
        model = self.model
        return model is not None and not BASELINES.match(model)


@dataclass
class Block:
    """A fenced code block: its language, first line number and text."""

    language: str
    line: int
    text: str
    commands: list[Command] = field(default_factory=list)


def read_blocks(path: Path = README) -> list[Block]:
    """Every fenced code block of ``path``, with the shell commands of the ```bash ones."""
    blocks: list[Block] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    index = 0
    while index < len(lines):
        if lines[index].startswith("```"):
            language, start = lines[index][3:].strip(), index + 1
            end = next(i for i in range(start, len(lines)) if lines[i].startswith("```"))
            block = Block(language, start + 1, "\n".join(lines[start:end]) + "\n")
            if language in ("bash", "sh", "shell", "console"):
                block.commands = _commands(lines[start:end], start + 1)
            blocks.append(block)
            index = end + 1
        else:
            index += 1
    return blocks


def commands(*paths: Path) -> list[Command]:
    """Every shell command of ``paths`` (default: the README, then docs/commands.md), in order."""
    found = []
    for path in paths or DOCUMENTS:
        source = path.relative_to(path.parents[1] if path.parent.name == "docs" else path.parent).as_posix()
        for block in read_blocks(path):
            for command in block.commands:
                command.source = source
                found.append(command)
    return found


def _commands(lines: list[str], first_line: int) -> list[Command]:
    found: list[Command] = []
    pending, start = "", 0
    for number, line in enumerate(lines, start=first_line):
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if not pending:
            start = number
        body = line.rstrip()
        if body.endswith("\\") and not _COMMENT.search(body):
            pending += body[:-1] + " "
            continue
        text = pending + body
        pending = ""
        comment_match = _COMMENT.search(text)
        comment = comment_match.group(0).strip().lstrip("#").strip() if comment_match else ""
        found.append(Command(start, text, shlex.split(text, comments=True), comment))
    return found


def path_words(command: Command) -> list[str]:
    """The words of ``command`` that name files or folders (model specs reduced to their path part)."""
    words = []
    argv = command.argv
    for position, word in enumerate(argv):
        previous = argv[position - 1] if position else ""
        if word.startswith("-") or "://" in word or previous in ("--model-args", "--system-instruction"):
            continue
        if previous == "--model":
            scheme, colon, rest = word.partition(":")
            if not colon and _looks_local(word):  # a model folder (e.g. a resolution model's)
                words.append(word)
            elif scheme in ("gguf",) or (scheme in ("hf", "nli") and _looks_local(rest)):
                words.append(rest)
            continue
        if (
            previous in ("--include_path", "--include-path")
            or _looks_local(word)
            or ("/" not in word and word.endswith(_FILE_SUFFIXES))
        ):
            words.append(word)
    return words


def _looks_local(name: str) -> bool:
    """A path rather than a hub id: starts with ./ ../ / or names a folder of the checkout."""
    return name.startswith(("/", "./", "../", "~")) or name.split("/")[0] in _local_roots()


def _local_roots() -> set[str]:
    return {path.name for path in REPO.iterdir()} | {"runs", "negkit-runs"}


def outputs(command: Command) -> list[str]:
    """What ``command`` writes: its ``--out`` value, and ``tind convert``'s destination."""
    written = [value for value in (command.option(name) for name in OUTPUT_OPTIONS) if value]
    argv = command.negkit_argv or []
    if argv[:2] == ["tind", "convert"] and len(argv) >= 4:
        written.append(argv[3])
    return written


def created_before(path: str, created: list[str]) -> bool:
    """Whether ``path`` is, or lies inside, something an earlier command wrote."""
    clean = path.rstrip("/")
    return any(clean == out.rstrip("/") or clean.startswith(out.rstrip("/") + "/") for out in created)
