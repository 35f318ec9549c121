"""Examples -> token ids, labels and loss weights; padding into batches; the weighted loss.

The prompt is tokenized exactly as the evaluation tokenizes a context (the tokenizer's special tokens, a final
EOS dropped: :meth:`negkit.models.hf_common.HFTokenizerRules.encode_context`) and the completion as the
evaluation tokenizes a candidate (no special tokens), so the positions trained are the positions scored.

Loss weights follow the TIND authors' ``prompt_loss_weight`` (``0.05`` in their runs): completion tokens weigh 1;
each prompt token weighs ``w * C / ((1 - w) * P)`` for ``C`` completion and ``P`` prompt tokens, so that the prompt
makes about ``w`` of the example's loss (exactly their formula: the first token, never predicted, is counted in
``P``). ``w = 0`` (the default) masks the prompt: completion-only loss. The loss of a batch is
``sum(weight * token loss) / sum(weight)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

from negkit.errors import NegkitError
from negkit.kit.training.examples import Example

IGNORE = -100


@dataclass(frozen=True)
class Tokenized:
    """One example as ids; ``weights[i]`` weighs the loss of predicting ``ids[i]`` (0 for the first token)."""

    ids: tuple[int, ...]
    weights: tuple[float, ...]
    prompt_len: int
    #: A mix's example: the token of each closed answer where the answers first differ (empty when there are none,
    #: or two share it), its offset in the completion, the gold answer's index, the minimal-pair key, the format,
    #: and the negated and replay marks.
    choice_ids: tuple[int, ...] = ()
    decision: int = 0
    gold: int = -1
    pair: str = ""
    format: str = ""
    negated: bool = False
    replay: bool = False

    @property
    def completion_len(self) -> int:
        return len(self.ids) - self.prompt_len


def tokenize_examples(
    rules: Any, tokenizer: Any, examples: Sequence[Example], max_length: int, prompt_loss_weight: float = 0.0
) -> tuple[list[Tokenized], int]:
    """Tokenize ``examples``; return them and how many were dropped for being longer than ``max_length``."""
    if not 0 <= prompt_loss_weight < 1:
        raise NegkitError(f"the prompt loss weight must be in [0, 1), got {prompt_loss_weight}")
    eos = tokenizer.eos_token_id
    kept: list[Tokenized] = []
    dropped = 0
    cache: dict[str, list[int]] = {}
    deciding: dict[tuple[str, ...], tuple[int, tuple[int, ...]] | None] = {}
    for example in examples:
        if example.prompt not in cache:
            cache[example.prompt] = rules.encode_context(example.prompt)[0]
        prompt = cache[example.prompt]
        completion = rules.encode(example.completion, special=False)
        if example.eos:
            if eos is None:
                raise NegkitError("the tokenizer has no end-of-sequence token; train with eos=false examples")
            completion = [*completion, eos]
        if not completion:
            raise NegkitError(f"example {example.origin or '?'}: the completion encodes to no tokens")
        if len(prompt) + len(completion) > max_length:
            dropped += 1
            continue
        weights = _weights(len(prompt), len(completion), prompt_loss_weight)
        mix = _mix_fields(rules, example, deciding)
        kept.append(Tokenized(tuple(prompt + completion), weights, len(prompt), **mix))
    return kept, dropped


def _mix_fields(
    rules: Any, example: Example, deciding: dict[tuple[str, ...], tuple[int, tuple[int, ...]] | None]
) -> dict[str, Any]:
    """A mix example's answers as the tokens where they first differ (none when two answers are equal there; e.g.
    ``" Yes"`` and ``" No"`` may share a first token ``" "`` in a small vocabulary), and its marks. ``deciding``
    keeps each answer set's offset and tokens (a format has one answer set for all its examples)."""
    if not (example.format or example.replay):
        return {}
    fields: dict[str, Any] = {
        "pair": example.pair,
        "format": example.format,
        "negated": bool(example.negated),
        "replay": example.replay,
    }
    if example.completion not in example.choices or len(example.choices) < 2:
        return fields
    if example.choices not in deciding:
        deciding[example.choices] = deciding_tokens(rules, example.choices)
    found = deciding[example.choices]
    if found is not None:
        fields.update(choice_ids=found[1], decision=found[0], gold=example.choices.index(example.completion))
    return fields


def deciding_tokens(rules: Any, choices: Sequence[str]) -> tuple[int, tuple[int, ...]] | None:
    """Where the answers' token sequences first differ, and each answer's token there; None when two answers
    have the same token there or one ends first."""
    encoded = [rules.encode(choice, special=False) for choice in choices]
    shortest = min(len(ids) for ids in encoded)
    decision = 0
    while decision < shortest and len({ids[decision] for ids in encoded}) == 1:
        decision += 1
    if decision >= shortest:
        return None
    tokens = tuple(ids[decision] for ids in encoded)
    return (decision, tokens) if len(set(tokens)) == len(tokens) else None


def _weights(prompt_len: int, completion_len: int, prompt_loss_weight: float) -> tuple[float, ...]:
    per_prompt_token = 0.0
    if prompt_loss_weight > 0 and prompt_len > 1:
        # the authors' formula: divided by every prompt token, though the first one is never predicted
        per_prompt_token = prompt_loss_weight * completion_len / ((1 - prompt_loss_weight) * prompt_len)
    # position 0 is never predicted; prompt tokens 1..prompt_len-1; then the completion
    return (0.0, *([per_prompt_token] * (prompt_len - 1)), *([1.0] * completion_len))


class TokenizedDataset(torch.utils.data.Dataset[dict[str, Any]]):
    """A list of :class:`Tokenized` as a torch data set of dicts (what the Trainer's data loader yields)."""

    def __init__(self, rows: Sequence[Tokenized]) -> None:
        self.rows = list(rows)
        #: Whether the rows are a training mix's (answers, pairs, replay): the batches then carry them.
        self.has_mix_fields = any(row.format or row.replay for row in self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, index: int) -> dict[str, Any]:
        row = self.rows[index]
        item: dict[str, Any] = {"input_ids": row.ids, "loss_weights": row.weights, "prompt_len": row.prompt_len}
        if self.has_mix_fields:
            item["mix"] = row
        return item

    def token_count(self) -> int:
        return sum(len(row.ids) for row in self.rows)


class PaddingCollator:
    """Batches of :class:`Tokenized` rows, left-padded with ``pad_id`` so that every row ends at the last column (a
    completion-only loss then needs logits for the last few positions only).

    With ``share_prefix`` the token prefix common to every row of the batch (e.g. a chat template's system text and
    the instruction) is cut off into ``prefix_ids`` (shape ``(1, P)``): the model runs it once per batch and the rows
    continue from its key/value cache. The prefix stops before the first position whose next-token loss is
    weighted, so the loss and its gradients are those of whole rows. ``input_ids``, ``position_ids`` (counted from
    ``P``), ``labels`` (-100 at padding and zero-weight positions) and ``loss_weights`` cover the rest;
    ``attention_mask`` covers the prefix and the rest, so the Trainer counts every example token.
    """

    def __init__(self, pad_id: int, share_prefix: bool = False) -> None:
        self.pad_id = pad_id
        self.share_prefix = share_prefix

    def __call__(self, features: Sequence[dict[str, Any]]) -> dict[str, torch.Tensor]:
        rows = [tuple(feature["input_ids"]) for feature in features]
        row_weights = [tuple(feature["loss_weights"]) for feature in features]
        prefix = shared_prefix_length(rows, row_weights) if self.share_prefix and len(rows) > 1 else 0
        width = max(len(row) for row in rows) - prefix
        count = len(rows)
        input_ids = torch.full((count, width), self.pad_id, dtype=torch.long)
        attention = torch.zeros((count, prefix + width), dtype=torch.long)
        attention[:, :prefix] = 1
        positions = torch.zeros((count, width), dtype=torch.long)
        labels = torch.full((count, width), IGNORE, dtype=torch.long)
        weights = torch.zeros((count, width), dtype=torch.float32)
        for number, (row, weight_row) in enumerate(zip(rows, row_weights)):
            ids = torch.tensor(row[prefix:], dtype=torch.long)
            start = width - len(ids)
            input_ids[number, start:] = ids
            attention[number, prefix + start :] = 1
            positions[number, start:] = torch.arange(prefix, len(row))
            weight = torch.tensor(weight_row[prefix:], dtype=torch.float32)
            weights[number, start:] = weight
            labels[number, start:] = torch.where(weight > 0, ids, torch.full_like(ids, IGNORE))
        batch = {
            "input_ids": input_ids,
            "attention_mask": attention,
            "position_ids": positions,
            "labels": labels,
            "loss_weights": weights,
            "prefix_ids": torch.tensor([rows[0][:prefix]], dtype=torch.long),
        }
        if "mix" in features[0]:
            batch.update(mix_tensors([feature["mix"] for feature in features]))
        return batch


def mix_tensors(rows: Sequence[Tokenized]) -> dict[str, torch.Tensor]:
    """A mix batch's extra tensors: ``choice_ids`` (rows x answers, -1 where none), ``gold_choice``,
    ``partner`` (the row index of the minimal-pair partner with another answer, -1 where none),
    ``answer_offsets`` (the deciding token's distance from the row's end), ``negated_rows`` and ``replay_rows``."""
    width = max((len(row.choice_ids) for row in rows), default=0) or 1
    choice_ids = torch.full((len(rows), width), -1, dtype=torch.long)
    for number, row in enumerate(rows):
        choice_ids[number, : len(row.choice_ids)] = torch.tensor(row.choice_ids, dtype=torch.long)
    partner = [-1] * len(rows)
    for first, row in enumerate(rows):
        if not row.pair or row.gold < 0 or partner[first] >= 0:
            continue
        for second in range(first + 1, len(rows)):
            other = rows[second]
            if other.pair == row.pair and other.gold >= 0 and other.gold != row.gold and partner[second] < 0:
                partner[first], partner[second] = second, first
                break
    return {
        "choice_ids": choice_ids,
        "gold_choice": torch.tensor([row.gold for row in rows], dtype=torch.long),
        "partner": torch.tensor(partner, dtype=torch.long),
        # counted back from the end: the position that predicts the answers' deciding token
        "answer_offsets": torch.tensor([len(row.ids) - row.prompt_len - row.decision for row in rows]),
        "negated_rows": torch.tensor([row.negated for row in rows], dtype=torch.bool),
        "replay_rows": torch.tensor([row.replay for row in rows], dtype=torch.bool),
    }


def shared_prefix_length(rows: Sequence[Sequence[int]], weights: Sequence[Sequence[float]]) -> int:
    """The length of the token prefix shared by every row, cut before the position that predicts the first
    weighted token (position ``i - 1`` predicts token ``i``); 0 when under 2 tokens would be shared."""
    length = min(len(row) for row in rows)
    first = rows[0]
    for row in rows[1:]:
        same = 0
        while same < length and row[same] == first[same]:
            same += 1
        length = same
    for weight in weights:
        weighted = next((index for index, value in enumerate(weight) if value > 0), len(weight))
        length = min(length, weighted - 1)
    return length if length >= 2 else 0


def weighted_loss(logits: torch.Tensor, labels: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
    """``sum(w * cross-entropy) / sum(w)`` over the predicted positions (logits at t predict token t + 1)."""
    shifted = logits[:, :-1, :].float()
    targets = labels[:, 1:]
    token_weights = weights[:, 1:].to(shifted.device)
    losses = torch.nn.functional.cross_entropy(
        shifted.reshape(-1, shifted.shape[-1]), targets.reshape(-1), ignore_index=IGNORE, reduction="none"
    ).view_as(targets)
    total = token_weights.sum()
    if total <= 0:
        return losses.sum() * 0.0
    return (losses * token_weights).sum() / total
