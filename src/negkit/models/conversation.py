"""Named conversation templates: the dialogue formats of chat models, for models whose tokenizer has no chat template
(or has another one than a paper used).

``negkit eval --conversation-template NAME`` and ``negkit finetune --conversation-template NAME`` put one on the model
(:func:`use_conversation_template`): wherever negkit applies a chat template, the named template renders the
conversation instead of the tokenizer's own. It enters the model's fingerprint, so answers, run folders and
comparisons of runs with different templates never mix.

A template renders a conversation (an optional system message, then user and assistant turns in turn) as text
(:meth:`ConversationTemplate.render`): with ``add_generation_prompt`` it ends with the opening of the assistant's
turn (what a model continues), and :meth:`ConversationTemplate.completion` is the text after that opening for a
given answer (what a fine-tuning example trains on). The BOS token is not part of the text: the tokenizer adds it
as it does to any context.

The formats are those of the TIND authors' code, which renders each chat model's prompt with FastChat's
conversation templates (as of 2023), and of the models' cards; where the two disagree the card's format holds and
docs/models.md says where (Dolly's answer end, RedPajama-INCITE's first line, Llama-2's ``<s>`` after an answer).
``llama3`` is LLaMA-Factory's ``llama3`` template (Thunder-NUBench's SFT, Listing 11), ``chatml`` OpenAI's ChatML.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from negkit.errors import NegkitError

__all__ = [
    "TEMPLATES",
    "ConversationTemplate",
    "conversation_template",
    "conversation_template_of",
    "template_names",
    "templates_table",
    "use_conversation_template",
]

_SLOT = "{content}"


@dataclass(frozen=True)
class ConversationTemplate:
    """A dialogue format. Each format string holds ``{content}`` where the message's text goes.

    ``user`` is a whole user turn; ``assistant`` the opening of an assistant turn (the generation prompt); ``answer``
    the assistant's text and the end of its turn; ``system`` the system message's block before the first turn (None:
    the format has none, and a system message is an error). ``first_user`` replaces ``user`` right after a system
    block that opens the first turn itself (Llama-2's ``[INST] <<SYS>>``); ``turn_separator`` goes between an
    assistant's answer and the next user turn; ``collapse_blank_lines`` shortens each message's blank lines to line
    breaks, as FastChat's Falcon template does.
    """

    name: str
    #: The models it is the format of.
    models: str
    #: Where the format is defined.
    source: str
    user: str
    assistant: str
    answer: str
    system: str | None = None
    default_system: str = ""
    first_user: str | None = None
    turn_separator: str = ""
    collapse_blank_lines: bool = False

    def render(self, messages: Sequence[dict[str, str]], add_generation_prompt: bool = True) -> str:
        """The conversation as text: ``messages`` (``{"role", "content"}``: an optional ``system`` first, then
        ``user`` and ``assistant`` in turn, from a user turn on). With ``add_generation_prompt``, a conversation
        whose last turn is the user's ends with the opening of the assistant's turn."""
        system, turns = self._split(messages)
        parts: list[str] = []
        user_format = self.user
        if system:
            if self.system is None:
                raise NegkitError(f"conversation template {self.name} has no system message (its format defines none)")
            parts.append(self._fill(self.system, system, collapse=False))
            user_format = self.first_user or self.user
        for index, (role, content) in enumerate(turns):
            if role == "user":
                if index:
                    parts.append(self.turn_separator)
                parts.append(self._fill(user_format, content))
                user_format = self.user
            else:
                parts.append(self.assistant + self._fill(self.answer, content))
        if add_generation_prompt and turns[-1][0] == "user":
            parts.append(self.assistant)
        return "".join(parts)

    def generation_prompt(self, user: str, system: str | None = None) -> str:
        """The prompt of one user message (after ``system`` when given), ending with the assistant's opening."""
        messages = [{"role": "system", "content": system}] if system else []
        return self.render([*messages, {"role": "user", "content": user}])

    def completion(self, answer: str) -> str:
        """The text after the generation prompt for an assistant turn holding ``answer``, up to the end of the turn
        (e.g. ``" True</s>"`` for Vicuna, ``"True<|eot_id|>"`` for Llama 3)."""
        return self._fill(self.answer, answer)

    def definition(self) -> dict[str, Any]:
        """The template's fields (what results record of it)."""
        return asdict(self)

    def sha256(self) -> str:
        """A hash of the template's definition (it changes when any format string does)."""
        return hashlib.sha256(json.dumps(self.definition(), sort_keys=True).encode("utf-8")).hexdigest()

    def _fill(self, form: str, content: str, collapse: bool = True) -> str:
        if collapse and self.collapse_blank_lines:
            content = content.replace("\r\n", "\n").replace("\n\n", "\n")
        return form.replace(_SLOT, content)

    def _split(self, messages: Sequence[dict[str, str]]) -> tuple[str, list[tuple[str, str]]]:
        system: str | None = None
        turns: list[tuple[str, str]] = []
        for position, message in enumerate(messages):
            role, content = message.get("role"), message.get("content")
            if not isinstance(content, str):
                raise NegkitError(f"conversation template {self.name}: message {position + 1} has no text content")
            if role == "system" and position == 0:
                system = content
                continue
            expected = "user" if len(turns) % 2 == 0 else "assistant"
            if role != expected:
                raise NegkitError(
                    f"conversation template {self.name}: message {position + 1} is {role!r}, expected {expected!r} "
                    "(an optional system message first, then user and assistant turns in turn)"
                )
            turns.append((role, content))
        if not turns:
            raise NegkitError(f"conversation template {self.name}: the conversation has no user message")
        return (self.default_system if system is None else system), turns


_VICUNA_SYSTEM = (
    "A chat between a curious user and an artificial intelligence assistant. "
    "The assistant gives helpful, detailed, and polite answers to the user's questions."
)
_FASTCHAT = "FastChat's conversation templates (fastchat/conversation.py, 2023), used by the TIND authors' code"

#: The templates by name.
TEMPLATES: dict[str, ConversationTemplate] = {
    template.name: template
    for template in (
        ConversationTemplate(
            "vicuna-v1.1",
            "Vicuna v1.1 and later, WizardLM 13B/30B/70B",
            f"{_FASTCHAT} ('vicuna_v1.1'); the Vicuna and WizardLM model cards",
            user="USER: {content} ",
            assistant="ASSISTANT:",
            answer=" {content}</s>",
            system="{content} ",
            default_system=_VICUNA_SYSTEM,
        ),
        ConversationTemplate(
            "koala-v1",
            "Koala",
            f"{_FASTCHAT} ('koala_v1')",
            user="USER: {content} ",
            assistant="GPT:",
            answer=" {content}</s>",
            system="{content} ",
            default_system="BEGINNING OF CONVERSATION:",
        ),
        ConversationTemplate(
            "oasst-pythia",
            "OpenAssistant SFT models on Pythia (oasst-sft-*-pythia-12b)",
            f"{_FASTCHAT} ('oasst_pythia'); the OpenAssistant model cards",
            user="<|prompter|>{content}<|endoftext|>",
            assistant="<|assistant|>",
            answer="{content}<|endoftext|>",
        ),
        ConversationTemplate(
            "oasst-llama",
            "OpenAssistant SFT models on LLaMA (oasst-sft-*-llama-30b)",
            f"{_FASTCHAT} ('oasst_llama')",
            user="<|prompter|>{content}</s>",
            assistant="<|assistant|>",
            answer="{content}</s>",
        ),
        ConversationTemplate(
            "dolly-v2",
            "Dolly v2 (databricks/dolly-v2-*)",
            f"{_FASTCHAT} ('dolly_v2'); the answer's end as Dolly was trained (databricks' instruct pipeline)",
            user="### Instruction:\n{content}\n\n",
            assistant="### Response:\n",
            answer="{content}\n\n### End",
            system="{content}\n\n",
            default_system="Below is an instruction that describes a task. Write a response that appropriately "
            "completes the request.",
            turn_separator="\n\n",
        ),
        ConversationTemplate(
            "falcon-instruct",
            "Falcon 7B/40B instruct",
            f"{_FASTCHAT} ('falcon')",
            user="User: {content}\n\n",
            assistant="Assistant:",
            answer=" {content}\n\n",
            collapse_blank_lines=True,
        ),
        ConversationTemplate(
            "redpajama-incite-chat",
            "RedPajama-INCITE chat (3B, 7B)",
            f"{_FASTCHAT} ('redpajama-incite'); the RedPajama-INCITE-Chat model cards",
            user="<human>: {content}\n",
            assistant="<bot>:",
            answer=" {content}\n",
        ),
        ConversationTemplate(
            "llama-2-chat",
            "Llama-2 chat (7B, 13B, 70B)",
            f"{_FASTCHAT} ('llama-2'); Meta's Llama 2 chat format",
            user="[INST] {content} [/INST]",
            assistant="",
            answer=" {content} </s>",
            system="[INST] <<SYS>>\n{content}\n<</SYS>>\n\n",
            first_user="{content} [/INST]",
            turn_separator="<s>",
        ),
        ConversationTemplate(
            "llama3",
            "Llama 3 instruct; LLaMA-Factory's template: llama3 (Thunder-NUBench's SFT for every model)",
            "LLaMA-Factory's 'llama3' template; Meta's Llama 3 chat format",
            user="<|start_header_id|>user<|end_header_id|>\n\n{content}<|eot_id|>",
            assistant="<|start_header_id|>assistant<|end_header_id|>\n\n",
            answer="{content}<|eot_id|>",
            system="<|start_header_id|>system<|end_header_id|>\n\n{content}<|eot_id|>",
        ),
        ConversationTemplate(
            "chatml",
            "ChatML models (Qwen, OpenHermes, SmolLM2, ...)",
            "OpenAI's ChatML",
            user="<|im_start|>user\n{content}<|im_end|>\n",
            assistant="<|im_start|>assistant\n",
            answer="{content}<|im_end|>\n",
            system="<|im_start|>system\n{content}<|im_end|>\n",
        ),
    )
}

#: Other names of the templates: FastChat's (as the TIND authors' configurations give them) and WizardLM's.
ALIASES: dict[str, str] = {
    "vicuna_v1.1": "vicuna-v1.1",
    "vicuna": "vicuna-v1.1",
    "wizardlm": "vicuna-v1.1",
    "koala_v1": "koala-v1",
    "koala": "koala-v1",
    "oasst_pythia": "oasst-pythia",
    "oasst_llama": "oasst-llama",
    "dolly_v2": "dolly-v2",
    "dolly": "dolly-v2",
    "falcon": "falcon-instruct",
    "redpajama-incite": "redpajama-incite-chat",
    "llama-2": "llama-2-chat",
    "llama2": "llama-2-chat",
    "llama-3": "llama3",
}


def template_names() -> list[str]:
    """The templates' names, sorted."""
    return sorted(TEMPLATES)


def conversation_template(name: str) -> ConversationTemplate:
    """The template called ``name`` (or one of its other names, e.g. FastChat's ``vicuna_v1.1``); an unknown name
    is a :class:`NegkitError` listing the names."""
    key = name.strip().lower()
    found = TEMPLATES.get(ALIASES.get(key, key))
    if found is None:
        raise NegkitError(
            f"unknown conversation template {name!r}; choose one of: {', '.join(template_names())} "
            "(negkit eval --list-conversation-templates describes them)"
        )
    return found


def templates_table() -> str:
    """A plain-text table of the templates: name, other names, models, and the prompt of one user message."""
    lines = []
    for name in template_names():
        template = TEMPLATES[name]
        others = sorted(alias for alias, target in ALIASES.items() if target == name)
        lines.append(f"{name}{'  (also: ' + ', '.join(others) + ')' if others else ''}")
        lines.append(f"  models: {template.models}")
        lines.append(f"  source: {template.source}")
        prompt = template.render([{"role": "user", "content": "QUESTION"}]) + template.completion("ANSWER")
        lines.append(f"  format: {json.dumps(prompt, ensure_ascii=False)}")
    return "\n".join(lines)


def conversation_template_of(model: Any) -> ConversationTemplate | None:
    """The conversation template put on ``model`` (None: its tokenizer's own chat template is used, if any)."""
    template = getattr(model, "conversation_template", None)
    return template if isinstance(template, ConversationTemplate) else None


def use_conversation_template(model: Any, template: str | ConversationTemplate) -> ConversationTemplate:
    """Render ``model``'s chat prompts with ``template`` (a name or a template) instead of its tokenizer's chat
    template, and record it in the model's fingerprint (``extra["conversation_template"]``). Backends that render
    no prompts (baselines, classifiers) refuse."""
    chosen = template if isinstance(template, ConversationTemplate) else conversation_template(template)
    if not hasattr(model, "conversation_template"):
        name = getattr(getattr(model, "fingerprint", None), "name", type(model).__name__)
        raise NegkitError(
            f"{name}: this kind of model renders no chat prompts, so a conversation template does not apply"
        )
    current = conversation_template_of(model)
    if current is not None and current != chosen:
        raise NegkitError(f"the model already renders chat prompts with conversation template {current.name}")
    model.conversation_template = chosen
    fingerprint = model.fingerprint
    if ("conversation_template", chosen.name) not in fingerprint.extra:
        model.fingerprint = replace(fingerprint, extra=(*fingerprint.extra, ("conversation_template", chosen.name)))
    return chosen
