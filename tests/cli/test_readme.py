"""Every command and code block of the README and docs/commands.md runs as written on a fresh clone.

Here: every shell command parses with negkit's own parser, names no placeholder and no file that neither the clone,
the data folder nor an earlier README command provides, says what it needs when this kind of machine cannot run it
(a GPU, the hub, a server), and the commands that load no model run for real, in order, in a copy of the checkout
beside the data folder; the Python block runs with the default model swapped for the random baseline.
``perf/run_readme.py`` runs everything (the real model included) in a fresh ``git clone``.
"""

from __future__ import annotations

import contextlib
import io
import re

import pytest
import readme_commands as readme

from negkit.cli import UsageError, build_parser, main

DATA = readme.REPO.parent / "shared" / "data"
PLACEHOLDER = re.compile(r"(^|[:=/])([A-Z][A-Z_]{2,})(\.\.\.)?($|[.,/])|^\.\.\.$|\|")
KNOWN_PROGRAMS = ("negkit", "bash", "torchrun", "lm_eval", "pip")


def test_the_readme_has_commands_and_code():
    blocks = readme.read_blocks()
    assert {block.language for block in blocks} == {"bash", "python"}
    assert len(readme.commands()) >= 40


@pytest.mark.parametrize("command", readme.commands(), ids=lambda command: f"{command.source}:{command.line}")
def test_command_parses(command):
    assert command.argv[0] in KNOWN_PROGRAMS, f"{command.where}: unknown program {command.argv[0]}"
    if command.argv[0] == "bash":
        assert (readme.REPO / command.argv[1]).is_file(), f"{command.where}: no {command.argv[1]}"
        return
    if command.argv[0] == "pip":
        assert command.argv[1] == "install", f"{command.where}: only `pip install` is shown"
        return
    if command.argv[0] == "lm_eval":
        assert command.needs, f"{command.where}: lm_eval is not installed by setup.sh: say what it needs"
        return
    argv = command.negkit_argv
    assert argv is not None, f"{command.where}: torchrun must run -m negkit"
    try:
        build_parser().parse_args(argv)
    except UsageError as error:
        pytest.fail(f"{command.where}: {command.text!r} does not parse: {error}")


@pytest.mark.parametrize("command", readme.commands(), ids=lambda command: f"{command.source}:{command.line}")
def test_no_placeholders(command):
    for word in command.argv:
        if (readme.REPO / word).exists():  # a real file whose name is in capitals (../shared/data/.../MNLI.txt)
            continue
        assert not PLACEHOLDER.search(word), f"{command.where}: placeholder {word!r} (write a real value)"


def test_every_file_exists_or_an_earlier_command_writes_it():
    created: list[str] = []
    for command in readme.commands():
        written = readme.outputs(command)
        for word in readme.path_words(command):
            if word in written:
                continue
            exists = (readme.REPO / word).exists() or (word.startswith("../shared/") and DATA.is_dir())
            assert exists or readme.created_before(word, created), (
                f"{command.where}: {word} is in no fresh clone and no earlier command writes it"
            )
        created += written


@pytest.mark.parametrize("command", readme.commands(), ids=lambda command: f"{command.source}:{command.line}")
def test_what_this_machine_cannot_run_is_labelled(command):
    model = command.model or ""
    scheme, _, rest = model.partition(":")
    lacking = (
        command.argv[0] in ("torchrun", "lm_eval")
        or scheme in ("vllm", "openai")
        or any(option in command.argv for option in readme.NEEDS_HARDWARE)
        or (scheme in ("hf", "nli") and not readme._looks_local(rest))
    )
    if lacking:
        assert command.needs, f"{command.where}: say what it needs (# needs ...): {command.text!r}"
    elif command.needs:
        pytest.fail(f"{command.where}: labelled 'needs {command.needs}' but this machine can run it")


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    """A copy of the checkout (its files linked, its outputs its own) with the data folder beside it."""
    if not DATA.is_dir():
        pytest.skip("the data folder ../shared/data is absent")
    parent = tmp_path_factory.mktemp("fresh")
    (parent / "shared").symlink_to(DATA.parent)
    root = parent / "negkit"
    root.mkdir()
    for entry in readme.REPO.iterdir():
        if entry.name not in (".git", ".venv", "runs", "negkit-runs") and not entry.name.startswith("."):
            (root / entry.name).symlink_to(entry)
    return root


def runnable_chains() -> list[list[readme.Command]]:
    """The commands that load no model and need nothing missing, in order, cut into chains: a command reading what
    an earlier one writes is in that one's chain (so chains run independently, each in its own order); a command
    reading what a left-out command writes is left out too."""
    skipped: list[str] = []
    chains: list[list[readme.Command]] = []
    writer: dict[str, int] = {}  # an output -> the chain that writes it
    for command in readme.commands():
        inputs = [word for word in readme.path_words(command) if word not in readme.outputs(command)]
        if (
            command.negkit_argv is None
            or command.loads_model
            or command.needs
            or command.long
            or any(readme.created_before(word, skipped) for word in inputs)
        ):
            skipped += readme.outputs(command)
            continue
        joined = sorted(
            {chain for out, chain in writer.items() if any(readme.created_before(w, [out]) for w in inputs)}
        )
        if not joined:
            chains.append([])
            joined = [len(chains) - 1]
        target = joined[0]
        for other in joined[1:]:  # a command reading from two chains joins them
            chains[target] += chains[other]
            chains[other] = []
            writer.update({out: target for out, chain in writer.items() if chain == other})
        chains[target].append(command)
        writer.update(dict.fromkeys(readme.outputs(command), target))
    return [chain for chain in chains if chain]


CHAINS = runnable_chains()


@pytest.fixture(scope="module")
def chains_run() -> set[int]:
    """The chains already run in this process's clone (the Python block runs the ones it reads from first)."""
    return set()


def run_chain(index: int, done: set[int]) -> None:
    for command in CHAINS[index]:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(command.negkit_argv)
        expected = 1 if "exits 1" in command.comment else 0
        assert status == expected, f"{command.where}: {command.text!r} failed: {err.getvalue()[-800:]}"
    done.add(index)


def test_enough_commands_run_without_a_model():
    assert sum(len(chain) for chain in CHAINS) >= 10


@pytest.mark.parametrize("index", range(len(CHAINS)), ids=[chain[0].where for chain in CHAINS])
def test_commands_without_a_model_run(clone, monkeypatch, chains_run, index):
    """Each chain of commands that load no model, in order (chains are independent, so they run in parallel)."""
    monkeypatch.chdir(clone)
    monkeypatch.delenv("NEGKIT_DATA", raising=False)
    if index not in chains_run:
        run_chain(index, chains_run)


def test_python_block_runs(clone, monkeypatch, chains_run):
    """The Python example, after the commands above that write what it reads, with the random baseline in place of
    the default model (perf/run_readme.py runs it with the real one)."""
    import negkit.models.registry as registry

    load = registry.load_model
    monkeypatch.setattr(
        registry, "load_model", lambda spec, *a, **k: load("random" if spec == "default" else spec, *a, **k)
    )
    monkeypatch.chdir(clone)
    monkeypatch.delenv("NEGKIT_DATA", raising=False)
    [block] = [block for block in readme.read_blocks() if block.language == "python"]
    reads = re.findall(r'"(runs/[^"]+)"', block.text)
    for index, chain in enumerate(CHAINS):
        writes = [out for command in chain for out in readme.outputs(command)]
        if index not in chains_run and any(readme.created_before(path, writes) for path in reads):
            run_chain(index, chains_run)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(block.text, "README.md (python block)", "exec"), {"__name__": "readme"})
    lines = printed.getvalue().splitlines()
    assert lines[0] == "50.26" and "Cues" in printed.getvalue()
    assert (clone / "runs" / "python" / "nan-nli.results.json").is_file()
    assert (clone / "runs" / "harness-python" / "negkit_export.json").is_file()
