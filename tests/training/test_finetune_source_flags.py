"""``negkit finetune`` takes each training source's own flags from the suite's description
(``TrainingSource.flags`` and ``options``): TIND's subset flags, and a flag of a suite registered at run time."""

from __future__ import annotations

import inspect

import pytest

import negkit.cli.finetune as finetune_cli
from negkit.benchmarks.tind.training import TindFilter
from negkit.cli import build_parser
from negkit.kit.suites import DataSource, SuiteDescription, TaskEntry, register_suite, unregister_suite
from negkit.kit.training_data.declaration import TrainingSource, register_training, training_flag, training_source
from negkit.training.arguments import options_from_args


def _finetune_parser():
    parser = build_parser()
    commands = next(action for action in parser._actions if action.dest == "command")
    return commands.choices["finetune"]


def test_tind_flags_come_from_the_suite_with_their_help():
    tind = training_source("tind")
    assert tind is not None and tind.flags
    actions = {name: action for action in _finetune_parser()._actions for name in action.option_strings}
    for flag in tind.flags:
        assert actions[flag.names[0]].help == flag.settings["help"] and flag.settings["help"].startswith("TIND:")
    source = inspect.getsource(finetune_cli)
    assert not any(f'"{flag.names[0]}"' in source for flag in tind.flags)


def test_tind_flags_become_the_same_options():
    args = build_parser().parse_args(
        [
            "finetune",
            "--out",
            "o",
            "--patterns",
            "1,5",
            "--polarity",
            "negative",
            "--sentences",
            "inputs",
            "--negation",
            "verbal, analytic",
            "--per-group",
            "4",
            "--affirmative-first",
            "9",
        ]
    )
    options = options_from_args(args)
    assert options.subset == TindFilter(
        patterns=(1, 5), polarity="negative", kind="inputs", negation=("verbal", "analytic"), per_group=4
    )
    assert options.affirmative_first == 9
    plain = options_from_args(build_parser().parse_args(["finetune", "--out", "o"]))
    assert plain.subset is None and plain.affirmative_first is None


@pytest.fixture()
def toy_source():
    seen: list[dict] = []
    source = TrainingSource(
        "toy-train",
        lambda *a: None,
        "a toy training set",
        flags=(training_flag("--toy-level", type=int, default=3, help="toy: the level"),),
        options=lambda values: seen.append(dict(values)) or {},
    )
    suite = register_suite(
        SuiteDescription(
            name="toy-flags",
            title="Toy",
            tasks=(TaskEntry("toy-flags", lambda **_: None),),
            main_task="toy-flags",
            data=DataSource("toy-flags", "nowhere"),
            order=999,
        )
    )
    register_training(suite, sources=(source,))
    yield seen
    unregister_suite("toy-flags")


def test_a_registered_suite_adds_its_training_flags(toy_source):
    actions = {name: action for action in _finetune_parser()._actions for name in action.option_strings}
    assert actions["--toy-level"].help == "toy: the level"
    options_from_args(build_parser().parse_args(["finetune", "--out", "o", "--toy-level", "7"]))
    options_from_args(build_parser().parse_args(["finetune", "--out", "o"]))
    assert toy_source == [{"toy_level": 7}, {"toy_level": 3}]
