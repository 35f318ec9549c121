"""What a new user hits first: abbreviated options are refused, and a misspelt model spec or task name gets the
closest right one suggested instead of an error about the hub."""

from __future__ import annotations

import argparse

import pytest

from negkit.cli import build_parser, main
from negkit.errors import NegkitError
from negkit.kit.suites import get_task
from negkit.models.checks import did_you_mean


def _parsers(parser: argparse.ArgumentParser):
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                yield from _parsers(child)


def test_no_parser_takes_abbreviations():
    parsers = list(_parsers(build_parser()))
    assert len(parsers) > 30
    assert all(parser.allow_abbrev is False for parser in parsers)


def test_fewshot_is_not_fewshot_examples(capsys):
    assert main(["eval", "--model", "random", "--tasks", "tind-fewshot", "--fewshot", "5"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "unrecognized arguments: --fewshot 5" in captured.err


@pytest.mark.parametrize(
    "spec, suggestion",
    [
        ("defualt", "'default'"),
        ("Random", "'random'"),
        ("majorty", "'majority'"),
        ("hff:gpt2", "'hf:gpt2'"),
        ("constnat:true", "'constant:true'"),
        ("ggfu:model.gguf", "'gguf:model.gguf'"),
    ],
)
def test_misspelt_model_specs_get_the_closest(spec, suggestion):
    assert did_you_mean(spec) == f" (did you mean {suggestion}?)"


@pytest.mark.parametrize("spec", ["gpt2", "HuggingFaceTB/SmolLM2-135M", "hf:defualt", "default", "./defualt"])
def test_real_names_get_no_suggestion(spec):
    assert did_you_mean(spec) == ""


def test_misspelt_model_is_named_before_the_hub(capsys):
    assert main(["eval", "--model", "defualt", "--tasks", "nubench", "--limit", "1"]) == 2
    error = capsys.readouterr().err
    assert error.startswith("negkit: error: unknown model 'defualt' (did you mean 'default'?)") and "hub" not in error


def test_misspelt_task_gets_the_closest():
    with pytest.raises(NegkitError, match=r"unknown task 'nubnech'; did you mean nubench\?; known tasks: "):
        get_task("nubnech")
    with pytest.raises(NegkitError, match=r"unknown task 'zzz'; known tasks: "):
        get_task("zzz")
