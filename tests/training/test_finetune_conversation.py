"""``negkit finetune --conversation-template``: the examples are rendered in the named format, and the template is
part of the run's plan, record and command."""

from __future__ import annotations

import json
import shlex

import pytest

pytest.importorskip("peft")

from conftest import NUBENCH_FIXTURE  # noqa: E402
from tiny_models import save_tiny_causal  # noqa: E402

from negkit.cli import build_parser, main  # noqa: E402
from negkit.errors import NegkitError  # noqa: E402
from negkit.training import FinetuneOptions, finetune  # noqa: E402
from negkit.training.arguments import options_from_args  # noqa: E402
from negkit.training.options import command_line  # noqa: E402

QUICK = dict(max_steps=1, batch_size=2, save_steps=1, logging_steps=1, progress=False)
PREMISE = "The orchestra performed the symphony at the opening of the new concert hall."
NEGATION = "The orchestra did not perform the symphony at the opening of the new concert hall."


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return save_tiny_causal(tmp_path_factory.mktemp("tiny") / "model")


def test_nubench_pairs_in_the_llama3_format(tiny):
    from negkit.benchmarks.nubench import nubench_examples
    from negkit.benchmarks.nubench.task import instruction_block
    from negkit.models.conversation import use_conversation_template
    from negkit.models.registry import load_model

    lm = load_model(f"hf:{tiny}")
    use_conversation_template(lm, "llama3")
    first = nubench_examples(lm, NUBENCH_FIXTURE, chat=True).examples[0]
    message = f"{instruction_block()}\nSentence: {PREMISE}\nNegation:"  # the Alpaca record: instruction, input
    assert first.prompt == (
        f"<|start_header_id|>user<|end_header_id|>\n\n{message}<|eot_id|>"
        "<|start_header_id|>assistant<|end_header_id|>\n\n"
    )
    assert first.completion == f"{NEGATION}<|eot_id|>" and first.eos is False


def test_plan_record_and_command(tiny, tmp_path):
    out = tmp_path / "run"
    argv = [
        "finetune",
        "--model",
        f"hf:{tiny}",
        "--train",
        "nubench",
        "--data",
        str(NUBENCH_FIXTURE),
        "--out",
        str(out),
    ]
    quick = ["--max-steps", "1", "--batch-size", "2", "--save-steps", "1", "--no-progress"]
    assert main([*argv, *quick, "--conversation-template", "llama-3"]) == 0
    run = json.loads((out / "negkit_training.json").read_text())
    assert run["options"]["conversation_template"] == "llama3" and run["options"]["chat"] is True  # implied
    assert run["base_model"]["extra"]["conversation_template"] == "llama3"
    assert run["data"]["train"]["description"]["chat_template"] is True
    command = shlex.split(run["command"])
    assert command[command.index("--conversation-template") + 1] == "llama3" and "--chat" in command
    # the recorded command parses back to the same plan
    assert options_from_args(build_parser().parse_args(command[1:])).plan()["conversation_template"] == "llama3"
    # the same folder with another template (or none) is another run
    with pytest.raises(NegkitError, match="holds another fine-tuning run.*conversation_template"):
        finetune(
            f"hf:{tiny}",
            FinetuneOptions(
                out=out, train="nubench", data=str(NUBENCH_FIXTURE), conversation_template="chatml", chat=True, **QUICK
            ),
        )


def test_plans_without_a_template_are_unchanged_and_names_are_canonical():
    assert "conversation_template" not in FinetuneOptions().plan()
    assert FinetuneOptions(conversation_template="vicuna_v1.1").plan()["conversation_template"] == "vicuna-v1.1"
    options = FinetuneOptions(conversation_template="koala-v1", chat=True)
    args = build_parser().parse_args(shlex.split(command_line("default", options))[1:])
    assert options_from_args(args).plan() == options.plan()


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--conversation-template", "alpaca"], "unknown conversation template 'alpaca'; choose one of: chatml"),
        (["--conversation-template", "llama3", "--no-chat"], "--no-chat turns them off"),
    ],
)
def test_bad_template_flags(tiny, tmp_path, capsys, arguments, message):
    argv = ["finetune", "--model", f"hf:{tiny}", "--train", "nubench", "--data", str(NUBENCH_FIXTURE)]
    assert main([*argv, "--out", str(tmp_path / "x"), *arguments]) == 2
    assert message in capsys.readouterr().err


def test_eval_of_the_adapter_says_which_template_it_was_trained_with(tiny, tmp_path, capsys):
    from negkit.commands.eval.evaluate import evaluate
    from negkit.commands.eval.options import EvalOptions

    adapter = tmp_path / "adapter"
    finetune(
        f"hf:{tiny}",
        FinetuneOptions(
            out=adapter, train="nubench", data=str(NUBENCH_FIXTURE), conversation_template="llama3", **QUICK
        ),
    )
    options = EvalOptions(
        data=str(NUBENCH_FIXTURE), limit=2, out=tmp_path / "eval", progress=False, bootstrap=0, adapter=str(adapter)
    )
    evaluate(f"hf:{tiny}", ["nubench"], options)
    assert (
        "the adapter was trained with --conversation-template llama3; this run renders chat prompts with no "
        "conversation template" in capsys.readouterr().err
    )
