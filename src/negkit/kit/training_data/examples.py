"""Training examples for supervised fine-tuning: a prompt and the completion the model should write, rendered
the way ``negkit eval`` asks the same model (so that what is trained is what is measured).

The types every training source returns (:class:`Example`, :class:`TrainingData`) and :func:`answer_completion`
(the completion after a prompt, with or without the chat template). A suite's own training sets
(:attr:`negkit.kit.suites.SuiteDescription.training`) build them; ``negkit finetune`` (:mod:`negkit.training`) trains
on them.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from negkit.models.conversation import conversation_template_of


@dataclass(frozen=True)
class Example:
    """One training example. ``prompt`` is the exact context text (chat template already applied when used);
    ``completion`` is appended to it; ``eos`` says whether the tokenizer's end-of-sequence token follows."""

    prompt: str
    completion: str
    eos: bool = True
    #: Where the example came from (an item id, a file line), for error messages and counts.
    origin: str = ""
    #: Whether the example's input is negated (None: unknown); :func:`affirmative_first` and the unlikelihood loss
    #: (on the negated side only) read it.
    negated: bool | None = None
    #: The evaluation format the example is rendered in (a training mix's source name, e.g. ``scone``): the unit of
    #: label balance, development accuracy and the answer-prior guards.
    format: str = ""
    #: The closed answers of the format as completions, the gold one among them (empty: a free answer). The
    #: token where they first differ is what the guards' accuracy and the unlikelihood and consistency losses compare.
    choices: tuple[str, ...] = ()
    #: Examples sharing a ``pair`` key are minimal-pair partners (e.g. one ScoNe base pair in two conditions): a
    #: training mix puts partners of different answers in the same batch, for the consistency loss.
    pair: str = ""
    #: Replay text (plain text, no answer): trained only through the KL term towards the base model, never with
    #: cross-entropy.
    replay: bool = False


@dataclass
class TrainingData:
    """Examples plus what describes them in the run record (never the texts themselves)."""

    examples: list[Example]
    files: list[Path] = field(default_factory=list)
    description: dict[str, Any] = field(default_factory=dict)

    def content_sha256(self) -> str:
        """A hash of every example's prompt and completion, in order (changes with any filter or format)."""
        digest = hashlib.sha256()
        for example in self.examples:
            fields: list[Any] = [example.prompt, example.completion, example.eos]
            if example.choices or example.replay:  # a mix's examples; older runs' hashes stay as they were
                fields += [list(example.choices), example.replay]
            digest.update(json.dumps(fields).encode("utf-8"))
            digest.update(b"\n")
        return digest.hexdigest()


def answer_completion(model: Any, prompt: str, user_message: str, answer: str, chat: bool) -> tuple[str, bool]:
    """The completion text after ``prompt`` and whether an EOS token follows it.

    With the chat template the completion is what the template puts after the generation prompt for an assistant
    turn holding ``answer`` (e.g. ``True<|im_end|>\\n``): the authors render the conversation with the answer and
    train on what follows the prompt. A named conversation template put on the model
    (:func:`negkit.models.conversation.use_conversation_template`) gives its own completion (e.g. ``True<|eot_id|>``
    for ``llama3``). Without the chat template the answer follows the prompt directly, then EOS.
    """
    if not chat:
        return answer, True
    named = conversation_template_of(model)  # a named template replaces the tokenizer's
    if named is not None:
        return named.completion(answer), False
    tokenizer = getattr(model, "tokenizer", None)
    if tokenizer is not None:
        full = tokenizer.apply_chat_template(
            [{"role": "user", "content": user_message}, {"role": "assistant", "content": answer}],
            tokenize=False,
            add_generation_prompt=False,
        )
        if full.startswith(prompt) and answer in full[len(prompt) :]:
            return full[len(prompt) :], False
    return answer, True
