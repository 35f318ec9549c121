"""LoRA on encoder-decoder models (T5, Flan-T5, BART): the prompt goes to the encoder, the completion is the
decoder's target.

The prompt is tokenised exactly as the evaluation gives it to the encoder (the tokenizer's special tokens, a final
EOS dropped: :meth:`negkit.models.hf_common.HFTokenizerRules.encode_context`) and the completion as the evaluation
tokenises an answer (no special tokens), followed by EOS. The evaluation reads TIND's answer at the first decoder
step from the decoder start token; teacher forcing makes that step predict the completion's first token, so the
position trained is the position scored. The loss is the mean cross-entropy over the target tokens (the prompt is
not predicted by the decoder, so a prompt loss weight does not apply).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from negkit.training.batches import IGNORE
from negkit.training.trainer import WeightedLossTrainer


class Seq2SeqCollator:
    """Batches of :class:`negkit.training.batches.Tokenized` rows split at ``prompt_len``: ``input_ids`` and
    ``attention_mask`` (the prompt, right-padded with ``pad_id``) for the encoder, ``labels`` (the completion,
    padded with -100) for the decoder, which the model shifts right behind its decoder start token."""

    def __init__(self, pad_id: int) -> None:
        self.pad_id = pad_id

    def __call__(self, features: Sequence[dict[str, Any]]) -> dict[str, torch.Tensor]:
        prompts, targets = [], []
        for feature in features:
            ids, start = list(feature["input_ids"]), int(feature["prompt_len"])
            prompts.append(ids[:start])
            targets.append(ids[start:])
        width, length = max(map(len, prompts)), max(map(len, targets))
        input_ids = torch.full((len(prompts), width), self.pad_id, dtype=torch.long)
        attention = torch.zeros((len(prompts), width), dtype=torch.long)
        labels = torch.full((len(prompts), length), IGNORE, dtype=torch.long)
        for row, (prompt, target) in enumerate(zip(prompts, targets)):
            input_ids[row, : len(prompt)] = torch.tensor(prompt, dtype=torch.long)
            attention[row, : len(prompt)] = 1
            labels[row, : len(target)] = torch.tensor(target, dtype=torch.long)
        return {"input_ids": input_ids, "attention_mask": attention, "labels": labels}


class Seq2SeqLossTrainer(WeightedLossTrainer):
    """The Trainer for encoder-decoder LoRA: the model's own mean cross-entropy over the target tokens."""

    def compute_loss(
        self, model: Any, inputs: dict[str, torch.Tensor], return_outputs: bool = False, num_items_in_batch: Any = None
    ) -> Any:
        self.computed_tokens += int(inputs["attention_mask"].sum()) + int((inputs["labels"] != IGNORE).sum())
        outputs = model(**inputs, use_cache=False)
        return (outputs.loss, outputs) if return_outputs else outputs.loss
