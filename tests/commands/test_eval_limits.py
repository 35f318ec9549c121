"""``negkit eval --limit``: one number for every task, or per-task limits."""

from __future__ import annotations

import argparse

import pytest

from negkit.cli import main
from negkit.commands.eval.options import task_limit
from negkit.kit.arguments import format_limit, parse_limit


def test_one_number_applies_to_every_task():
    assert parse_limit("500") == 500
    assert task_limit(500, "tind") == 500 and task_limit(500, "scone") == 500


def test_per_task_limits_leave_other_tasks_whole():
    limits = parse_limit("tind=1500, scone=600")
    assert limits == {"tind": 1500, "scone": 600}
    assert task_limit(limits, "tind") == 1500
    assert task_limit(limits, "nan-nli") is None
    assert format_limit(limits) == "tind=1500,scone=600"
    assert task_limit(None, "tind") is None


@pytest.mark.parametrize("text", ["0", "-3", "many", "tind=", "=5", "tind=0", "tind=5,scone"])
def test_bad_limits_are_rejected(text):
    with pytest.raises(argparse.ArgumentTypeError):
        parse_limit(text)


def test_limit_for_a_task_that_is_not_run_is_an_error(capsys):
    assert main(["eval", "--model", "default", "--tasks", "scone", "--limit", "tind=5"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "--limit names tasks that are not run: tind" in captured.err
