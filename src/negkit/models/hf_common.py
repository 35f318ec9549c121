"""What the transformers backends share: tokenization rules, chat templates, fingerprints, the input device
(loading itself lives in :mod:`negkit.models.loading`)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

from negkit.engine.placement import input_device
from negkit.errors import NegkitError
from negkit.models.base import ModelFingerprint
from negkit.models.conversation import ConversationTemplate
from negkit.models.fingerprints import support_files_sha256, weights_sha256


def parameters_sha256(model: Any) -> str:
    """Hash of a model's parameters (for models built in memory, e.g. in tests)."""
    digest = hashlib.sha256()
    for name, tensor in sorted(model.state_dict().items()):
        digest.update(name.encode())
        digest.update(tensor.detach().float().cpu().numpy().tobytes())
    return digest.hexdigest()


def fingerprint_for(backend: str, model: Any, name: str, dtype: str, revision: str | None = None) -> ModelFingerprint:
    """The fingerprint of a transformers model: the folder's weight hash when local, else its parameters' hash
    when no revision pins it."""
    sha: str | None = None
    extra: tuple[tuple[str, str], ...] = ()
    if Path(name).is_dir():
        sha = weights_sha256(name)
        support = support_files_sha256(name)  # an edited tokenizer or configuration is another model
        extra = (("support_files_sha256", support),) if support else ()
    elif revision is None:
        sha = parameters_sha256(model)
    return ModelFingerprint(backend=backend, name=name, dtype=dtype, revision=revision, sha256=sha, extra=extra)


class HFTokenizerRules:
    """negkit's tokenization contract for transformers tokenizers (see :mod:`negkit.models.base`)."""

    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer

    @property
    def has_chat_template(self) -> bool:
        return bool(getattr(self.tokenizer, "chat_template", None))

    def apply_chat_template(self, messages: Sequence[dict[str, str]]) -> str:
        if not self.has_chat_template:
            raise NegkitError("this model's tokenizer has no chat template")
        text: str = self.tokenizer.apply_chat_template(list(messages), tokenize=False, add_generation_prompt=True)
        return text

    def encode_context(self, text: str, add_bos: bool | None = None) -> tuple[list[int], list[int]]:
        """Token ids of a context (special tokens added, a final EOS dropped) and each token's end offset.

        The empty context is the prefix token alone (:meth:`prefix_token_id`, whatever ``add_bos`` says), so that a
        continuation after it is a whole sequence whose first token is conditioned on that token.

        ``add_bos`` (see :class:`negkit.engine.requests.LoglikelihoodRequest`): ``None`` keeps the tokenizer's
        own choice, ``False`` removes a BOS the tokenizer added, ``True`` prepends one when it did not.
        """
        if text == "":
            return [self.prefix_token_id()], [0]
        encoding = self.tokenizer(text, add_special_tokens=True, return_offsets_mapping=True)
        ids = list(encoding["input_ids"])
        ends = [end for _start, end in encoding["offset_mapping"]]
        eos = self.tokenizer.eos_token_id
        if len(ids) > 1 and eos is not None and ids[-1] == eos:
            ids, ends = ids[:-1], ends[:-1]
        if add_bos is not None:
            bos = self.tokenizer.bos_token_id
            if bos is None:
                if add_bos:
                    raise NegkitError("a BOS token was asked for, but this model's tokenizer has none")
            elif add_bos and (not ids or ids[0] != bos):
                ids, ends = [bos, *ids], [0, *ends]
            elif (
                not add_bos
                and len(ids) > 1
                and ids[0] == bos
                and ends[0] == 0
                and not text.startswith(self.tokenizer.bos_token)
            ):
                ids, ends = ids[1:], ends[1:]
        return ids, ends

    def prefix_token_id(self) -> int:
        """The token an empty context stands for: the tokenizer's BOS token where it defines one, else its EOS
        token (the LM Evaluation Harness's prefix token for an empty context)."""
        for token_id in (self.tokenizer.bos_token_id, self.tokenizer.eos_token_id):
            if token_id is not None:
                return int(token_id)
        raise NegkitError(
            "an empty context needs a BOS or EOS token to condition on; this model's tokenizer has neither"
        )

    def prefix_token(self) -> dict[str, Any]:
        """The prefix token as results record it: its id, its text and which special token it is (``bos``/``eos``);
        None values when the tokenizer has neither."""
        bos = self.tokenizer.bos_token_id
        source = "bos" if bos is not None else ("eos" if self.tokenizer.eos_token_id is not None else None)
        if source is None:
            return {"id": None, "token": None, "from": None}
        token_id = self.prefix_token_id()
        return {"id": token_id, "token": self.tokenizer.convert_ids_to_tokens(token_id), "from": source}

    def encode_request(
        self, context: str, continuation: str, add_bos: bool | None = None
    ) -> tuple[list[int], list[int], list[int]]:
        """The context's ids and end offsets and the continuation's ids of a log-likelihood request.

        An empty context is the prefix token, except when the continuation itself starts with that token: then
        the continuation's first token is the context (the LM Evaluation Harness's rule)."""
        continuation_ids = self.encode(continuation, special=False)
        if context == "" and continuation_ids and continuation_ids[0] == self.prefix_token_id():
            return continuation_ids[:1], [0], continuation_ids[1:]
        ids, ends = self.encode_context(context, add_bos)
        return ids, ends, continuation_ids

    def encode(self, text: str, special: bool) -> list[int]:
        """Ids of ``text``: as a context when ``special``, else plain (no special tokens)."""
        if special:
            return self.encode_context(text)[0]
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def first_token_id(self, candidate: str) -> int:
        """The first sub-token of ``candidate`` encoded without special tokens and without a leading space."""
        ids = self.encode(candidate, special=False)
        if not ids:
            raise NegkitError(f"candidate {candidate!r} encodes to no tokens")
        return ids[0]

    @property
    def pad_id(self) -> int:
        for token_id in (self.tokenizer.pad_token_id, self.tokenizer.eos_token_id, 0):
            if token_id is not None:
                return int(token_id)
        return 0


class TokenizerBackedModel:
    """Chat template and device access shared by the transformers language-model backends."""

    model: Any
    rules: HFTokenizerRules
    #: A named template that replaces the tokenizer's chat template (:mod:`negkit.models.conversation`).
    conversation_template: ConversationTemplate | None = None

    @property
    def has_chat_template(self) -> bool:
        return self.conversation_template is not None or self.rules.has_chat_template

    def apply_chat_template(self, messages: Sequence[dict[str, str]]) -> str:
        if self.conversation_template is not None:
            return self.conversation_template.render(messages)
        return self.rules.apply_chat_template(messages)

    def _device(self) -> torch.device:
        return input_device(self.model)


def cut_at_stop(text: str, stop: Sequence[str]) -> str:
    """``text`` up to the first occurrence of any stop string."""
    cut = len(text)
    for marker in stop:
        if marker:
            position = text.find(marker)
            if position != -1:
                cut = min(cut, position)
    return text[:cut]


def stop_criteria(tokenizer: Any, stop: Sequence[str], start: int) -> Any:
    """A ``transformers.StoppingCriteriaList`` that ends each sequence of a greedy ``generate`` call as soon as its
    text from column ``start`` on (decoded as the answer is, without special tokens) holds one of the ``stop``
    strings; None without stop strings. The text before the stop string is what it would have been without
    stopping (greedy decoding of one row does not depend on the others), and :func:`cut_at_stop` cuts there."""
    markers = [marker for marker in stop if marker]
    if not markers:
        return None
    from transformers import StoppingCriteria, StoppingCriteriaList  # heavy: kept off negkit's start-up path

    class StopStrings(StoppingCriteria):
        def __call__(self, input_ids: torch.Tensor, scores: Any, **kwargs: Any) -> torch.Tensor:
            texts = tokenizer.batch_decode(input_ids[:, start:], skip_special_tokens=True)
            return torch.tensor(
                [any(marker in text for marker in markers) for text in texts], dtype=torch.bool, device=input_ids.device
            )

    return StoppingCriteriaList([StopStrings()])
