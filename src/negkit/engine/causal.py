"""Batched forward passes of a transformers causal LM, with shared-prefix key/value reuse.

:class:`CausalScorer` takes encoded prompts and hands the log-softmax rows of the positions each prompt
needs to a reduce function (which picks the candidate tokens, or sums a continuation's log-probabilities).
It runs them along their prefix tree (:mod:`negkit.engine.tree_scorer`: every prefix that several prompts
share runs once) wherever the model takes custom attention masks; elsewhere (FlashAttention, a model that
fails one of the tree's checks, ``prefix_tree=False``) in length-sorted batches (right padding) where the
longest verified token prefix that all prompts of a batch share runs once and its cache is copied, expanded
over the batch, for the suffix pass. Shared caches are never mutated.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import torch

from negkit.engine.batching import LengthSortedBatcher
from negkit.engine.kv_cache import cache_layers, new_cache, output_cache, with_cache
from negkit.engine.placement import input_device
from negkit.engine.prefix import PrefixChecker, common_prefix_length
from negkit.engine.prefix_tree import DEFAULT_ROW_TOKENS
from negkit.engine.tree_scorer import TreeMismatch, TreeScorer

T = TypeVar("T")


@dataclass(frozen=True)
class EncodedPrompt:
    """A prompt ready for the model.

    ``ids`` is the full token sequence (context, then any continuation); the first ``context_len``
    ids are the context, whose text is ``text`` and whose tokens end at the character offsets
    ``ends``. The log-softmax is needed at positions ``first_scored`` .. ``last_scored`` (inclusive):
    the distribution over the token that follows each of those positions.
    """

    text: str
    ids: tuple[int, ...]
    ends: tuple[int, ...]
    context_len: int
    first_scored: int
    last_scored: int


@dataclass
class PrefixStats:
    """How often shared prefixes were reused (the results' ``engine`` entry; benchmarks read it).

    ``tokens_total`` counts every prompt token, ``tokens_skipped`` those that did not go through the model
    (a shared prefix run once for several prompts), ``tokens_padded`` the padding that did; ``prefix_tree``
    says whether the prefix tree ran ("on") or why not ("off: ...").
    """

    batches: int = 0
    batches_with_prefix: int = 0
    tokens_total: int = 0
    tokens_skipped: int = 0
    tokens_padded: int = 0
    prefix_tree: str = ""


class CausalScorer:
    """Runs encoded prompts through ``model`` in batches, reusing shared prefixes (``prefix_reuse``) along
    the prompts' prefix tree (``prefix_tree``) or per batch."""

    def __init__(
        self,
        model: Any,
        batcher: LengthSortedBatcher,
        prefix_checker: PrefixChecker | None = None,
        prefix_reuse: bool = True,
        prefix_tree: bool = True,
        pad_id: int = 0,
        row_tokens: int = DEFAULT_ROW_TOKENS,
    ) -> None:
        self.model = model
        self.batcher = batcher
        self.prefix_checker = prefix_checker
        self.prefix_reuse = prefix_reuse
        self.stats = PrefixStats()
        self.tree = TreeScorer(model, batcher, self.stats, pad_id, row_tokens) if prefix_reuse and prefix_tree else None
        self._keeps_logits = "logits_to_keep" in inspect.signature(model.forward).parameters
        self._prefix_ids: tuple[int, ...] | None = None
        self._prefix_cache: Any = None

    @property
    def device(self) -> torch.device:
        """Where inputs go: the input embedding's (execution) device, also for sharded models."""
        return input_device(self.model)

    def score(
        self,
        prompts: Sequence[EncodedPrompt],
        reduce: Callable[[EncodedPrompt, torch.Tensor], T],
        on_batch_done: Callable[[list[int], Sequence[T]], None] | None = None,
    ) -> list[T]:
        """``reduce(prompt, logprobs)`` for each prompt, where ``logprobs[k]`` is the log-softmax at
        position ``first_scored + k``; results come back in input order."""
        done: dict[int, T] = {}
        if self.tree_usable(prompts):
            try:
                result = self.tree.score(prompts, reduce, on_batch_done)  # type: ignore[union-attr]
                self.stats.prefix_tree = "on"
                return result
            except TreeMismatch as mismatch:  # the batches already reported were checked: keep them
                self.stats.prefix_tree = f"off: {mismatch}"
                done = mismatch.done
        rest = [index for index in range(len(prompts)) if index not in done]

        def process(indices: list[int]) -> list[T]:
            return self._score_batch([prompts[rest[index]] for index in indices], reduce)

        def report(indices: list[int], values: Sequence[T]) -> None:
            on_batch_done([rest[index] for index in indices], values)  # type: ignore[misc]

        answers = self.batcher.run(
            [len(prompts[index].ids) for index in rest], process, report if on_batch_done is not None else None
        )
        done.update(zip(rest, answers))
        return [done[index] for index in range(len(prompts))]

    def tree_usable(self, prompts: Sequence[EncodedPrompt]) -> bool:
        """Whether ``prompts`` go along the prefix tree (records why not in the stats)."""
        if self.tree is None or not prompts:
            return False
        reason = self.tree.unsupported(max(len(prompt.ids) for prompt in prompts))
        if reason is not None:
            self.stats.prefix_tree = f"off: {reason}"
        return reason is None

    def _prefix_length(self, batch: Sequence[EncodedPrompt]) -> int:
        if not self.prefix_reuse or len(batch) < 2:
            return 0
        limit = min(prompt.first_scored for prompt in batch)
        length = common_prefix_length([prompt.ids for prompt in batch], limit=limit)
        if length == 0 or self.prefix_checker is None:
            return 0
        return self.prefix_checker.usable_prefix_length(
            [prompt.text for prompt in batch],
            [prompt.ids[: prompt.context_len] for prompt in batch],
            [prompt.ends for prompt in batch],
            length,
        )

    @torch.inference_mode()
    def _score_batch(
        self, batch: Sequence[EncodedPrompt], reduce: Callable[[EncodedPrompt, torch.Tensor], T]
    ) -> list[T]:
        prefix_len = self._prefix_length(batch)
        suffixes = [prompt.ids[prefix_len:] for prompt in batch]
        width = max(len(suffix) for suffix in suffixes)
        device = self.device
        input_ids = torch.zeros((len(batch), width), dtype=torch.long)
        mask = torch.zeros((len(batch), width), dtype=torch.long)
        for row, suffix in enumerate(suffixes):
            input_ids[row, : len(suffix)] = torch.tensor(suffix, dtype=torch.long)
            mask[row, : len(suffix)] = 1
        wanted = sorted(
            {
                position - prefix_len
                for prompt in batch
                for position in range(prompt.first_scored, prompt.last_scored + 1)
            }
        )
        column = {position: index for index, position in enumerate(wanted)}
        kwargs: dict[str, Any] = {"input_ids": input_ids.to(device)}
        if prefix_len:
            cache = self._expanded_prefix_cache(batch[0].ids[:prefix_len], len(batch))
            full_mask = torch.cat([torch.ones((len(batch), prefix_len), dtype=torch.long), mask], dim=1)
            with_cache(self.model, kwargs, cache).update(attention_mask=full_mask.to(device), use_cache=True)
        else:
            kwargs.update(attention_mask=mask.to(device), use_cache=False)
        if self._keeps_logits:
            kwargs["logits_to_keep"] = torch.tensor(wanted, dtype=torch.long, device=device)
            logits = self.model(**kwargs).logits
        else:
            logits = self.model(**kwargs).logits[:, wanted, :]
        logprobs = torch.log_softmax(logits.float(), dim=-1).cpu()
        self.stats.batches += 1
        self.stats.batches_with_prefix += int(prefix_len > 0)
        self.stats.tokens_total += sum(len(prompt.ids) for prompt in batch)
        self.stats.tokens_skipped += prefix_len * (len(batch) - 1)
        self.stats.tokens_padded += len(batch) * width - sum(len(suffix) for suffix in suffixes)
        results = []
        for row, prompt in enumerate(batch):
            columns = [column[position - prefix_len] for position in range(prompt.first_scored, prompt.last_scored + 1)]
            results.append(reduce(prompt, logprobs[row, columns]))
        return results

    def _expanded_prefix_cache(self, prefix: tuple[int, ...], batch_size: int) -> Any:
        """A fresh cache holding the prefix's keys/values for each of ``batch_size`` rows."""
        if self._prefix_ids != prefix:
            ids = torch.tensor([prefix], dtype=torch.long, device=self.device)
            output = self.model(input_ids=ids, attention_mask=torch.ones_like(ids), use_cache=True)
            self._prefix_ids, self._prefix_cache = prefix, output_cache(output)
        return expanded_cache(self._prefix_cache, batch_size, self.model.config)


def expanded_cache(cache: Any, batch_size: int, config: Any) -> Any:
    """A new ``DynamicCache`` whose every row holds the one row of ``cache`` (views: nothing is copied, and the
    original is never mutated; gradients flow back to it when it was computed with them)."""
    return new_cache(
        (
            (keys.expand(batch_size, -1, -1, -1), values.expand(batch_size, -1, -1, -1))
            for keys, values in cache_layers(cache)
        ),
        config,
    )
