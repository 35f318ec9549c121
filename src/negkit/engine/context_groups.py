"""Score several continuations of one context with a single pass over the context.

Multiple-choice tasks ask for the log-likelihood of every choice after the same prompt. Instead of one
forward pass per (context, choice) over the whole text, :class:`ContextGroupScorer` runs a batch of
distinct contexts once (right-padded), copies each context's key/value cache to the rows of its
continuations, and runs all continuations of the batch in one more pass with explicit position ids and an
attention mask that skips the context padding. The log-probability of a continuation's first token comes
from the context pass (its last real position); the others from the continuation pass.

The answers equal a plain full forward pass over context + continuation (up to floating-point noise).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from negkit.engine.batching import LengthSortedBatcher
from negkit.engine.causal import PrefixStats
from negkit.engine.kv_cache import cache_layers, new_cache, output_cache, with_cache
from negkit.engine.placement import input_device


@dataclass(frozen=True)
class ContextGroup:
    """A context's token ids and the token ids of each continuation scored after it."""

    context: tuple[int, ...]
    continuations: tuple[tuple[int, ...], ...]


#: Per continuation: (sum of log-probabilities, every token greedy, number of tokens).
GroupAnswer = list[tuple[float, bool, int]]


def group_by_context(keys: Sequence[Any]) -> dict[Any, list[int]]:
    """Positions of ``keys`` grouped by equal key, groups in first-seen order."""
    groups: dict[Any, list[int]] = {}
    for position, key in enumerate(keys):
        groups.setdefault(key, []).append(position)
    return groups


class ContextGroupScorer:
    """Runs :class:`ContextGroup` objects through a transformers causal LM in length-sorted batches."""

    def __init__(
        self, model: Any, batcher: LengthSortedBatcher, pad_id: int = 0, stats: PrefixStats | None = None
    ) -> None:
        self.model = model
        self.batcher = batcher
        self.pad_id = pad_id
        #: Shared with the backend's :class:`CausalScorer`: context tokens not recomputed count as reused.
        self.stats = stats if stats is not None else PrefixStats()
        self._keeps_logits = "logits_to_keep" in inspect.signature(model.forward).parameters

    @property
    def device(self) -> torch.device:
        """Where inputs go: the input embedding's (execution) device, also for sharded models."""
        return input_device(self.model)

    def score(
        self,
        groups: Sequence[ContextGroup],
        on_batch_done: Callable[[list[int], Sequence[GroupAnswer]], None] | None = None,
    ) -> list[GroupAnswer]:
        """The answer for every continuation of every group, in input order."""
        lengths = [len(group.context) + sum(len(c) for c in group.continuations) for group in groups]
        return self.batcher.run(lengths, lambda indices: self._score_batch([groups[i] for i in indices]), on_batch_done)

    @torch.inference_mode()
    def _score_batch(self, groups: Sequence[ContextGroup]) -> list[GroupAnswer]:
        device = self.device
        context_lengths = [len(group.context) for group in groups]
        width = max(context_lengths)
        input_ids = torch.full((len(groups), width), self.pad_id, dtype=torch.long)
        context_mask = torch.zeros((len(groups), width), dtype=torch.long)
        for row, group in enumerate(groups):
            input_ids[row, : len(group.context)] = torch.tensor(group.context, dtype=torch.long)
            context_mask[row, : len(group.context)] = 1
        last_positions = sorted({length - 1 for length in context_lengths})
        kwargs: dict[str, Any] = {
            "input_ids": input_ids.to(device),
            "attention_mask": context_mask.to(device),
            "use_cache": True,
        }
        if self._keeps_logits:
            kwargs["logits_to_keep"] = torch.tensor(last_positions, dtype=torch.long, device=device)
            output = self.model(**kwargs)
            logits = output.logits
        else:
            output = self.model(**kwargs)
            logits = output.logits[:, last_positions, :]
        column = {position: index for index, position in enumerate(last_positions)}
        last_logprobs = torch.log_softmax(logits.float(), dim=-1).cpu()
        first_rows = [last_logprobs[row, column[length - 1]] for row, length in enumerate(context_lengths)]

        self.stats.batches += 1
        self.stats.batches_with_prefix += 1
        self.stats.tokens_total += sum(
            len(g.context) * len(g.continuations) + sum(map(len, g.continuations)) for g in groups
        )
        self.stats.tokens_skipped += sum(len(g.context) * (len(g.continuations) - 1) for g in groups)
        self.stats.tokens_padded += len(groups) * width - sum(context_lengths)
        owners = [row for row, group in enumerate(groups) for _ in group.continuations]
        continuations = [c for group in groups for c in group.continuations]
        rest_logprobs = self._continuation_pass(
            output_cache(output), context_mask, context_lengths, owners, continuations
        )

        answers: list[GroupAnswer] = [[] for _ in groups]
        for index, (owner, tokens) in enumerate(zip(owners, continuations)):
            if not tokens:
                answers[owner].append((0.0, True, 0))
                continue
            rows = [first_rows[owner]]
            if len(tokens) > 1:
                assert rest_logprobs is not None  # computed whenever a continuation has more than one token
                rows += [rest_logprobs[index, k] for k in range(len(tokens) - 1)]
            stacked = torch.stack(rows)
            targets = torch.tensor(tokens, dtype=torch.long)
            picked = stacked.gather(1, targets[:, None])[:, 0]
            greedy = bool((stacked.argmax(dim=-1) == targets).all())
            answers[owner].append((float(picked.sum()), greedy, len(tokens)))
        return answers

    def _continuation_pass(
        self,
        cache: Any,
        context_mask: torch.Tensor,
        context_lengths: list[int],
        owners: list[int],
        continuations: list[tuple[int, ...]],
    ) -> torch.Tensor | None:
        """Log-softmax after each continuation token but the last, one row per continuation (None if not needed)."""
        width = max((len(tokens) - 1 for tokens in continuations), default=0)
        if width <= 0:
            return None
        device = self.device
        index = torch.tensor(owners, dtype=torch.long, device=device)
        expanded = new_cache(  # a sharded model keeps each layer's cache on that layer's device
            (
                (keys.index_select(0, index.to(keys.device)), values.index_select(0, index.to(values.device)))
                for keys, values in cache_layers(cache)
            ),
            self.model.config,
        )
        input_ids = torch.full((len(continuations), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(continuations), width), dtype=torch.long)
        for row, tokens in enumerate(continuations):
            fed = tokens[:-1]
            if fed:
                input_ids[row, : len(fed)] = torch.tensor(fed, dtype=torch.long)
                mask[row, : len(fed)] = 1
        starts = torch.tensor([context_lengths[owner] for owner in owners], dtype=torch.long)
        position_ids = starts[:, None] + torch.arange(width, dtype=torch.long)[None, :]
        full_mask = torch.cat([context_mask.index_select(0, index.cpu()), mask], dim=1)
        kwargs = {
            "input_ids": input_ids.to(device),
            "attention_mask": full_mask.to(device),
            "position_ids": position_ids.to(device),
            "use_cache": True,
        }
        logits = self.model(**with_cache(self.model, kwargs, expanded)).logits
        return torch.log_softmax(logits.float(), dim=-1).cpu()
