"""``negkit eval --conversation-template``: the named template replaces the tokenizer's chat template in the prompts,
and is recorded in the fingerprint, the results and the command."""

from __future__ import annotations

import json
import shlex

import pytest
from conftest import NUBENCH_FIXTURE

from negkit.cli import main
from negkit.commands.eval.evaluate import evaluate
from negkit.commands.eval.options import EvalOptions
from negkit.errors import NegkitError
from negkit.models.conversation import use_conversation_template

VICUNA = (
    "A chat between a curious user and an artificial intelligence assistant. "
    "The assistant gives helpful, detailed, and polite answers to the user's questions."
)


def test_a_model_without_chat_template_gets_one():
    from tiny_models import tiny_causal_lm

    model = tiny_causal_lm(chat_template=False)
    assert not model.has_chat_template
    use_conversation_template(model, "redpajama-incite-chat")
    assert model.has_chat_template
    assert model.apply_chat_template([{"role": "user", "content": "Is it so?"}]) == "<human>: Is it so?\n<bot>:"


def test_eval_prompts_follow_the_named_template(tmp_path):
    from tiny_models import tiny_causal_lm

    model = tiny_causal_lm()  # its tokenizer's own template is ChatML
    out = tmp_path / "vicuna"
    options = EvalOptions(
        data=str(NUBENCH_FIXTURE),
        limit=2,
        out=out,
        progress=False,
        chat=True,
        conversation_template="vicuna_v1.1",  # FastChat's name, as the TIND authors' configurations give it
        bootstrap=0,
    )
    (result,) = evaluate(model, ["nubench"], options)
    samples = [json.loads(line) for line in (out / "nubench.samples.jsonl").read_text().splitlines()]
    for sample in samples:
        assert sample["prompt"].startswith(f"{VICUNA} USER: ") and sample["prompt"].endswith(" ASSISTANT:")
        assert "<|im_start|>" not in sample["prompt"]
    assert result["chat_template"] is True
    assert result["model"]["extra"]["conversation_template"] == "vicuna-v1.1"
    prompt = result["prompt"]
    assert prompt["conversation_template"] == "vicuna-v1.1" and prompt["inserted_system_text"] == VICUNA
    assert prompt["template"].startswith(f"{VICUNA} USER: ")
    command = shlex.split(result["record"]["command"])
    assert command[command.index("--conversation-template") + 1] == "vicuna-v1.1"
    combined = json.loads((out / "results.json").read_text())
    assert json.loads(combined["chat_template"])["name"] == "vicuna-v1.1"

    # the tokenizer's own template, or another named one, is another fingerprint: the folder refuses to mix them
    plain = tiny_causal_lm()
    with pytest.raises(NegkitError, match="of model tiny-llama with conversation template vicuna-v1.1 .*a run folder"):
        evaluate(
            plain, ["nubench"], EvalOptions(data=str(NUBENCH_FIXTURE), limit=2, out=out, progress=False, chat=True)
        )
    assert plain.fingerprint.key() != result["model"]["key"]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--conversation-template", "alpaca"], "unknown conversation template 'alpaca'; choose one of: chatml"),
        (
            ["--conversation-template", "llama3", "--no-chat-template"],
            "--conversation-template llama3 renders chat prompts and --no-chat-template turns them off",
        ),
        (["--model", "random", "--conversation-template", "llama3"], "not to random"),
    ],
)
def test_bad_conversation_template_flags(capsys, arguments, message):
    argv = ["eval", "--tasks", "nubench", "--data", str(NUBENCH_FIXTURE), *arguments]
    if "--model" not in argv:
        argv += ["--model", "default"]
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_list_conversation_templates(capsys):
    assert main(["eval", "--list-conversation-templates"]) == 0
    listed = capsys.readouterr().out
    assert "llama-2-chat  (also: llama-2, llama2)" in listed
    assert '"[INST] QUESTION [/INST] ANSWER </s>"' in listed


def test_a_template_no_task_applies_is_said(tmp_path, capsys):
    from tiny_models import tiny_causal_lm

    options = EvalOptions(
        data=str(NUBENCH_FIXTURE), limit=2, out=tmp_path, progress=False, conversation_template="llama3", bootstrap=0
    )
    (result,) = evaluate(tiny_causal_lm(), ["nubench"], options)  # Thunder-NUBench's prompts are plain by default
    assert "no task of this run applies a chat template (add --apply-chat-template" in capsys.readouterr().err
    assert result["prompt"]["chat_template_applied"] is False
