"""Named conversation templates: each renders a fixed conversation exactly as written out here by hand (from the
formats of FastChat's templates, the model cards, LLaMA-Factory's llama3 and ChatML)."""

from __future__ import annotations

import pytest

from negkit.errors import NegkitError
from negkit.models.base import ModelFingerprint
from negkit.models.conversation import (
    TEMPLATES,
    conversation_template,
    conversation_template_of,
    templates_table,
    use_conversation_template,
)

Q = "Is the following statement True or False? A dog is an animal."
SYS = "Answer briefly."
VICUNA_SYS = (
    "A chat between a curious user and an artificial intelligence assistant. "
    "The assistant gives helpful, detailed, and polite answers to the user's questions."
)
DOLLY_SYS = "Below is an instruction that describes a task. Write a response that appropriately completes the request."

#: name -> (generation prompt of Q, completion of the answer "True")
SINGLE = {
    "vicuna-v1.1": (f"{VICUNA_SYS} USER: {Q} ASSISTANT:", " True</s>"),
    "koala-v1": (f"BEGINNING OF CONVERSATION: USER: {Q} GPT:", " True</s>"),
    "oasst-pythia": (f"<|prompter|>{Q}<|endoftext|><|assistant|>", "True<|endoftext|>"),
    "oasst-llama": (f"<|prompter|>{Q}</s><|assistant|>", "True</s>"),
    "dolly-v2": (f"{DOLLY_SYS}\n\n### Instruction:\n{Q}\n\n### Response:\n", "True\n\n### End"),
    "falcon-instruct": (f"User: {Q}\n\nAssistant:", " True\n\n"),
    "redpajama-incite-chat": (f"<human>: {Q}\n<bot>:", " True\n"),
    "llama-2-chat": (f"[INST] {Q} [/INST]", " True </s>"),
    "llama3": (
        f"<|start_header_id|>user<|end_header_id|>\n\n{Q}<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n",
        "True<|eot_id|>",
    ),
    "chatml": (f"<|im_start|>user\n{Q}<|im_end|>\n<|im_start|>assistant\n", "True<|im_end|>\n"),
}

#: name -> the prompt of SYS, Q, "True", "Why?" (two user turns, one answer), or None: no system message
WITH_SYSTEM = {
    "vicuna-v1.1": f"{SYS} USER: {Q} ASSISTANT: True</s>USER: Why? ASSISTANT:",
    "koala-v1": f"{SYS} USER: {Q} GPT: True</s>USER: Why? GPT:",
    "dolly-v2": f"{SYS}\n\n### Instruction:\n{Q}\n\n### Response:\nTrue\n\n### End\n\n### Instruction:\nWhy?\n\n"
    "### Response:\n",
    "llama-2-chat": f"[INST] <<SYS>>\n{SYS}\n<</SYS>>\n\n{Q} [/INST] True </s><s>[INST] Why? [/INST]",
    "llama3": f"<|start_header_id|>system<|end_header_id|>\n\n{SYS}<|eot_id|>"
    f"<|start_header_id|>user<|end_header_id|>\n\n{Q}<|eot_id|>"
    "<|start_header_id|>assistant<|end_header_id|>\n\nTrue<|eot_id|>"
    "<|start_header_id|>user<|end_header_id|>\n\nWhy?<|eot_id|>"
    "<|start_header_id|>assistant<|end_header_id|>\n\n",
    "chatml": f"<|im_start|>system\n{SYS}<|im_end|>\n<|im_start|>user\n{Q}<|im_end|>\n"
    "<|im_start|>assistant\nTrue<|im_end|>\n<|im_start|>user\nWhy?<|im_end|>\n<|im_start|>assistant\n",
}

#: name -> the prompt of Q, "True", "Why?" without a system message (templates that have none)
NO_SYSTEM = {
    "oasst-pythia": f"<|prompter|>{Q}<|endoftext|><|assistant|>True<|endoftext|><|prompter|>Why?<|endoftext|>"
    "<|assistant|>",
    "oasst-llama": f"<|prompter|>{Q}</s><|assistant|>True</s><|prompter|>Why?</s><|assistant|>",
    "falcon-instruct": f"User: {Q}\n\nAssistant: True\n\nUser: Why?\n\nAssistant:",
    "redpajama-incite-chat": f"<human>: {Q}\n<bot>: True\n<human>: Why?\n<bot>:",
}


def test_every_template_is_written_out_here():
    assert set(SINGLE) == set(TEMPLATES) == set(WITH_SYSTEM) | set(NO_SYSTEM)


@pytest.mark.parametrize("name", sorted(SINGLE))
def test_one_user_message_and_its_answer(name):
    template = TEMPLATES[name]
    prompt, completion = SINGLE[name]
    assert template.generation_prompt(Q) == prompt
    assert template.render([{"role": "user", "content": Q}]) == prompt
    assert template.completion("True") == completion
    whole = [{"role": "user", "content": Q}, {"role": "assistant", "content": "True"}]
    assert template.render(whole, add_generation_prompt=False) == prompt + completion
    assert template.render(whole) == prompt + completion  # a conversation ending with an answer asks for nothing


@pytest.mark.parametrize("name", sorted(WITH_SYSTEM))
def test_system_message_and_two_turns(name):
    messages = [
        {"role": "system", "content": SYS},
        {"role": "user", "content": Q},
        {"role": "assistant", "content": "True"},
        {"role": "user", "content": "Why?"},
    ]
    assert TEMPLATES[name].render(messages) == WITH_SYSTEM[name]


@pytest.mark.parametrize("name", sorted(NO_SYSTEM))
def test_two_turns_without_system_and_system_refused(name):
    messages = [
        {"role": "user", "content": Q},
        {"role": "assistant", "content": "True"},
        {"role": "user", "content": "Why?"},
    ]
    assert TEMPLATES[name].render(messages) == NO_SYSTEM[name]
    with pytest.raises(NegkitError, match=f"{name} has no system message"):
        TEMPLATES[name].render([{"role": "system", "content": SYS}, *messages])


def test_falcon_shortens_blank_lines_as_fastchat_does():
    text = "Examples:\n\nwater is wet.\r\nIron is a metal."
    assert TEMPLATES["falcon-instruct"].generation_prompt(text) == (
        "User: Examples:\nwater is wet.\nIron is a metal.\n\nAssistant:"
    )


def test_braces_in_messages_stay_as_they_are():
    assert TEMPLATES["chatml"].completion("{content} {0}") == "{content} {0}<|im_end|>\n"


def test_names_aliases_and_unknown_name():
    assert conversation_template("vicuna_v1.1") is TEMPLATES["vicuna-v1.1"]  # FastChat's name (TIND's configs)
    assert conversation_template("WizardLM") is TEMPLATES["vicuna-v1.1"]
    assert conversation_template("llama-2") is TEMPLATES["llama-2-chat"]
    with pytest.raises(NegkitError) as error:
        conversation_template("alpaca")
    assert "unknown conversation template 'alpaca'" in str(error.value)
    assert "chatml, dolly-v2, falcon-instruct" in str(error.value)


def test_conversation_order_is_checked():
    with pytest.raises(NegkitError, match="message 2 is 'user', expected 'assistant'"):
        TEMPLATES["chatml"].render([{"role": "user", "content": "a"}, {"role": "user", "content": "b"}])
    with pytest.raises(NegkitError, match="no user message"):
        TEMPLATES["chatml"].render([{"role": "system", "content": "a"}])


def test_table_lists_every_template():
    table = templates_table()
    for name in TEMPLATES:
        assert f"\n{name}" in f"\n{table}"
    assert "(also: koala, koala_v1)" in table


class _Model:
    conversation_template = None

    def __init__(self):
        self.fingerprint = ModelFingerprint(backend="hf", name="m", dtype="float32")


def test_use_conversation_template_records_it_in_the_fingerprint():
    model = _Model()
    before = model.fingerprint.key()
    use_conversation_template(model, "llama3")
    assert conversation_template_of(model) is TEMPLATES["llama3"]
    assert dict(model.fingerprint.extra) == {"conversation_template": "llama3"}
    assert model.fingerprint.key() != before
    use_conversation_template(model, "llama-3")  # the same one again changes nothing
    assert model.fingerprint.extra == (("conversation_template", "llama3"),)
    with pytest.raises(NegkitError, match="already renders chat prompts with conversation template llama3"):
        use_conversation_template(model, "chatml")


def test_models_without_prompts_refuse_a_template():
    from negkit.models.baselines import BaselineModel

    with pytest.raises(NegkitError, match="random: this kind of model renders no chat prompts"):
        use_conversation_template(BaselineModel("random"), "chatml")


def test_a_server_model_gets_the_rendered_text():
    from negkit.models.openai_server import CHAT_MARKER, OpenAICompatibleLM

    server = OpenAICompatibleLM("http://127.0.0.1:9/v1", "m", chat=True, retries=0)  # no server: asked once
    messages = [{"role": "user", "content": Q}]
    assert server.apply_chat_template(messages).startswith(CHAT_MARKER)  # the server's own template
    use_conversation_template(server, "llama-2-chat")
    assert server.has_chat_template and server.apply_chat_template(messages) == f"[INST] {Q} [/INST]"
    assert dict(server.fingerprint.extra)["conversation_template"] == "llama-2-chat"


def test_a_vllm_model_renders_with_the_template():
    from negkit.models.vllm_backend import VLLMModel

    assert VLLMModel.conversation_template is None  # the attribute use_conversation_template sets
    model = VLLMModel.__new__(VLLMModel)  # no engine: only the chat methods are used
    model.fingerprint = ModelFingerprint(backend="vllm", name="m", dtype="bfloat16")
    use_conversation_template(model, "chatml")
    assert model.has_chat_template
    assert model.apply_chat_template([{"role": "user", "content": "Hi"}]) == (
        "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
    )
