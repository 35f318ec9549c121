"""Greedy generation along the prompts' token trie: every prompt token that several prompts share runs once.

CondaQA asks several questions about each passage, and a passage comes in several edits that share their words up
to the edit: the prompts ``passage + question`` form a token trie several levels deep. :class:`TreeGenerator`
takes the prompts in token order, in waves (at most ``max_rows`` prompts and ``wave_tokens`` trie tokens), and runs
each wave as one growing key/value store of batch size one:

- **prefill**: the wave's trie tokens, in depth-first order, run in chunks of ``chunk_tokens`` tokens; each chunk
  sees the cached keys and values of its first token's ancestors (every earlier ancestor of a token in the chunk is
  one of them) and itself, through a 4D mask in which a token sees exactly its own ancestors (and itself), at its
  own position id (its depth). No padding: a chunk is a run of trie tokens. The last token of each prompt gives
  its first generated token;
- **decoding**: one token per unfinished prompt per step, all in one pass, each seeing its prompt's tokens and the
  tokens it generated before; a prompt that is done (a stop string, an end-of-sequence token, ``max_new_tokens``)
  leaves at once, and the columns that only finished prompts see leave the pass with it.

Once per generator, the first wave's last prompt in depth-first order (its tokens run in a chunk after other
prompts' tokens, on cached ancestors) has its first next-token distribution compared with a plain forward pass of
that prompt alone (:mod:`negkit.engine.tree_check`'s distance and tolerances): a model that does not honour the
mask or the position ids raises :class:`TreeGenerationMismatch`, and the model generates another way.

Token ``a`` is an ancestor of token ``k`` when ``a <= k < end[a]`` (``end``: the end of ``a``'s subtree in
depth-first order), so masks are built from two comparisons, not from paths. Every prompt sees exactly its own
tokens at their own positions, as in a plain greedy decode of that prompt alone; the answers equal transformers'
``generate`` up to floating-point rounding (tests/engine/test_tree_generation.py; perf/
bench_condaqa_generation.py compares them on CondaQA).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from negkit.engine.attention import attention_mask, sliding_window
from negkit.engine.greedy import DoneCheck, GenerationStats, unsupported_model
from negkit.engine.kv_cache import cache_layers, new_cache, output_cache, with_cache
from negkit.engine.placement import input_device
from negkit.engine.tree_check import distance, tolerance_for

#: Trie tokens of one prefill pass where nothing else decides (see :func:`default_chunk_tokens`).
CHUNK_TOKENS = 512
#: ... on a CPU with one torch thread, where the attention's chunk x (chunk + depth) weighs more than the
#: matrix products' shapes.
CHUNK_TOKENS_ONE_THREAD = 128
#: Trie tokens of one wave (its key/value store holds them and the generated tokens).
WAVE_TOKENS = 4096


def default_chunk_tokens(device: torch.device | str, threads: int) -> int:
    """The prefill chunk for a model on ``device`` with ``threads`` torch threads. Measured with
    perf/bench_condaqa_generation.py's prompts (SmolLM2-135M, 200 CondaQA prompts, a 2-core AMD EPYC): one
    thread (beside another one-thread job) ran fastest at 128 tokens (80 s against 90 s at 256), two threads (on
    the quiet machine) at 512 (50 s against 53 s at 256 and 63 s at 128): a second thread needs larger matrix
    products to share. Other devices take the larger chunk (not measured on a GPU here)."""
    if torch.device(device).type == "cpu" and threads <= 1:
        return CHUNK_TOKENS_ONE_THREAD
    return CHUNK_TOKENS


class TreeGenerationMismatch(RuntimeError):
    """The trie's next-token distribution for a prompt differs from a plain forward pass of it."""


@dataclass
class TrieWave:
    """The trie of one wave's prompts, in depth-first order: ``tokens[k]`` at position ``depth[k]`` below
    ``parent[k]`` (-1: a root), its subtree ending before ``end[k]``; ``last[p]`` is the trie index of prompt
    ``prompts[p]``'s last token."""

    prompts: list[int]
    tokens: list[int]
    depth: list[int]
    parent: list[int]
    end: list[int]
    last: list[int]

    def ancestors(self, index: int) -> list[int]:
        """The trie indices of ``index``'s ancestors, root first (``index`` not included)."""
        path = []
        node = self.parent[index]
        while node >= 0:
            path.append(node)
            node = self.parent[node]
        return path[::-1]


def plan_trie_waves(prompts: Sequence[Sequence[int]], max_rows: int, wave_tokens: int = WAVE_TOKENS) -> list[TrieWave]:
    """The prompts in token order, cut into waves of at most ``max_rows`` prompts and (unless one prompt alone has
    more) ``wave_tokens`` trie tokens; consecutive prompts share their common start within a wave. A wave that
    cannot take the next prompt ends where consecutive prompts share the fewest tokens (the latest such place: a new
    passage rather than a new question), so that as few shared starts as possible run in two waves."""
    order = sorted(range(len(prompts)), key=lambda index: list(prompts[index]))
    shared = [0] * len(order)  # tokens each prompt shares with the one before it in token order
    for place in range(len(order)):
        ids = prompts[order[place]]
        if not ids:
            raise ValueError(f"prompt {order[place]} has no tokens")
        if place:
            before = prompts[order[place - 1]]
            limit = min(len(ids), len(before))
            while shared[place] < limit and ids[shared[place]] == before[shared[place]]:
                shared[place] += 1
    waves: list[TrieWave] = []
    start = 0
    while start < len(order):
        stop, size = start + 1, len(prompts[order[start]])
        while stop < len(order) and stop - start < max_rows:
            size += len(prompts[order[stop]]) - shared[stop]
            if size > wave_tokens:
                break
            stop += 1
        if stop < len(order):
            stop = min(
                range(start + 1, stop + 1), key=lambda place: (shared[place] if place < len(order) else -1, -place)
            )
        waves.append(_trie([prompts[index] for index in order[start:stop]], order[start:stop], shared[start:stop]))
        start = stop
    return waves


def _trie(ids_list: list[Sequence[int]], indices: list[int], shared: list[int]) -> TrieWave:
    """The trie of prompts in token order (``shared``: what each shares with the one before; the first: nothing)."""
    wave = TrieWave([], [], [], [], [], [])
    path: list[int] = []  # trie indices of the previous prompt's tokens
    for place, (index, ids) in enumerate(zip(indices, ids_list)):
        path = path[: shared[place] if place else 0]
        for position in range(len(path), len(ids)):
            wave.parent.append(path[-1] if path else -1)
            path.append(len(wave.tokens))
            wave.tokens.append(int(ids[position]))
            wave.depth.append(position)
        wave.prompts.append(index)
        wave.last.append(path[len(ids) - 1])
    wave.end = list(range(1, len(wave.tokens) + 1))
    for node in range(len(wave.tokens) - 1, -1, -1):
        parent = wave.parent[node]
        if parent >= 0 and wave.end[node] > wave.end[parent]:
            wave.end[parent] = wave.end[node]
    return wave


class TreeGenerator:
    """Greedy decoding of many prompts along their token trie (see the module doc)."""

    def __init__(
        self,
        model: Any,
        eos_ids: Sequence[int],
        max_rows: int = 32,
        chunk_tokens: int = CHUNK_TOKENS,
        wave_tokens: int = WAVE_TOKENS,
        fallback: Callable[[list[int]], list[str]] | None = None,
    ) -> None:
        self.model = model
        self.eos_ids = frozenset(int(token) for token in eos_ids)
        self.max_rows = max(1, max_rows)
        self.chunk_tokens = max(1, chunk_tokens)
        self.wave_tokens = max(1, wave_tokens)
        #: generates the given prompts (indices) another way, for a wave that would reach a sliding window
        self.fallback = fallback
        self.stats = GenerationStats()
        #: whether a prompt's first next-token distribution was compared with a plain pass (and matched)
        self.verified = False
        #: why the trie is off for this model (a failed check), else None
        self.disabled: str | None = None
        self._keeps_logits = "logits_to_keep" in inspect.signature(model.forward).parameters
        self.window = sliding_window(model)

    def unsupported(self) -> str | None:
        """Why this model cannot generate this way (None: it can)."""
        return self.disabled or unsupported_model(self.model, self.window, self.fallback)

    def generate(
        self,
        prompts: Sequence[Sequence[int]],
        max_new_tokens: int,
        done: DoneCheck,
        on_wave: Callable[[list[int]], None] | None = None,
    ) -> list[list[int] | str]:
        """The ids each prompt generates greedily (an end-of-sequence token included, as it was generated), in input
        order; ``done(index, ids)`` says when a prompt has generated enough (e.g. a stop string). With a sliding
        window, waves hold at most half the window's tokens and half its generated tokens; a prompt whose wave would
        still reach the window (a prompt that long) gets what ``fallback`` returns for it instead (its answer text)."""
        results: list[Any] = [[] for _ in prompts]
        if max_new_tokens <= 0 or not prompts:
            return results
        self.stats.prompts += len(prompts)
        rows, tokens = self.max_rows, self.wave_tokens
        if self.window is not None:  # smaller waves, whose stores stay narrower than the window
            half = max(1, (self.window - 1) // 2)
            rows, tokens = min(rows, max(1, half // max_new_tokens)), min(tokens, half)
        for wave in plan_trie_waves(prompts, rows, tokens):
            width = len(wave.tokens) + len(wave.prompts) * max_new_tokens
            if self.window is not None and width >= self.window:
                self.stats.fallback_prompts += len(wave.prompts)
                for prompt, text in zip(wave.prompts, self.fallback(wave.prompts)):  # type: ignore[misc]
                    results[prompt] = text
            else:
                self._run_wave(wave, prompts, max_new_tokens, done, results)
            if on_wave is not None:
                on_wave(wave.prompts)
        return results

    def _forward(
        self, tokens: torch.Tensor, positions: torch.Tensor, allowed: torch.Tensor, past: Any, keep: Any
    ) -> Any:
        """One pass of batch size one: ``tokens`` at ``positions`` on top of the ``past`` layers (None: none)."""
        device = input_device(self.model)
        kwargs: dict[str, Any] = {
            "input_ids": tokens[None].to(device),
            "position_ids": positions[None].to(device),
            "attention_mask": attention_mask(self.model, allowed[None, None]).to(device),
            "use_cache": True,
        }
        if past is not None:
            with_cache(self.model, kwargs, new_cache(past, self.model.config))
        if self._keeps_logits and keep is not None:
            kwargs["logits_to_keep"] = keep if isinstance(keep, int) else keep.to(device)
        self.stats.passes += 1
        return self.model(**kwargs)

    @torch.inference_mode()
    def _run_wave(
        self,
        wave: TrieWave,
        prompts: Sequence[Sequence[int]],
        max_new_tokens: int,
        done: DoneCheck,
        results: list[list[int]],
    ) -> None:
        self.stats.waves += 1
        self.stats.nodes += len(wave.tokens)
        lengths = [len(prompts[prompt]) for prompt in wave.prompts]
        self.stats.prompt_tokens += sum(lengths)
        self.stats.tokens_skipped += sum(lengths) - len(wave.tokens)
        size = len(wave.tokens)
        capacity = size + len(wave.prompts) * max_new_tokens
        store: _Store | None = None
        end = torch.tensor(wave.end, dtype=torch.long)
        first: dict[int, int] = {}  # trie index of a prompt's last token -> the token it generates
        checked = -1 if self.verified else max(wave.last)  # the prompt checked against a plain pass (its last token)
        checked_logits: torch.Tensor | None = None
        for start in range(0, size, self.chunk_tokens):
            stop = min(size, start + self.chunk_tokens)
            past = wave.ancestors(start)
            queries = torch.arange(start, stop)
            columns = torch.cat([torch.tensor(past, dtype=torch.long), queries])
            allowed = (columns[None, :] <= queries[:, None]) & (queries[:, None] < end[columns][None, :])
            wanted = sorted({last - start for last in wave.last if start <= last < stop})
            keep = torch.tensor(wanted, dtype=torch.long) if wanted else 1
            output = self._forward(
                torch.tensor(wave.tokens[start:stop], dtype=torch.long),
                torch.tensor(wave.depth[start:stop], dtype=torch.long),
                allowed,
                store.gather(past) if store is not None and past else None,
                keep,
            )
            if store is None:
                store = _Store(cache_layers(output_cache(output)), capacity)
            store.write(start, cache_layers(output_cache(output)), len(past))
            if wanted:
                logits = output.logits[0] if self._keeps_logits else output.logits[0, wanted]
                for column, token in zip(wanted, logits.argmax(dim=-1).tolist()):
                    first[start + column] = int(token)
                if start <= checked < stop:
                    checked_logits = logits[wanted.index(checked - start)]
        assert store is not None
        if checked_logits is not None:
            self._check(prompts[wave.prompts[wave.last.index(checked)]], checked_logits)
        self._decode(wave, [first[last] for last in wave.last], lengths, store, end, max_new_tokens, done, results)

    def _check(self, ids: Sequence[int], logits: torch.Tensor) -> None:
        """Compare a prompt's next-token distribution from the trie with a plain forward pass of it alone."""
        plain = self.model(input_ids=torch.tensor([list(ids)], dtype=torch.long, device=input_device(self.model)))
        found = distance(
            torch.log_softmax(plain.logits[0, -1:].float(), dim=-1).cpu(),
            torch.log_softmax(logits[None].float(), dim=-1).cpu(),
        )
        tolerance, _how = tolerance_for(self.model)
        if found[0] > tolerance[0] or found[1] > tolerance[1]:
            self.disabled = (
                f"the trie's next-token distribution differs from a plain forward pass (total variation "
                f"{found[0]:.2g}, log-probability {found[1]:.2g})"
            )
            raise TreeGenerationMismatch(self.disabled)
        self.verified = True

    def _decode(
        self,
        wave: TrieWave,
        tokens: list[int],
        lengths: list[int],
        store: _Store,
        end: torch.Tensor,
        max_new_tokens: int,
        done: DoneCheck,
        results: list[list[int]],
    ) -> None:
        """One token per prompt per step, each seeing its prompt and its own generated tokens; finished prompts
        leave."""
        size = len(wave.tokens)
        trie = torch.arange(size)
        lasts = torch.tensor(wave.last, dtype=torch.long)
        sees = torch.zeros((len(wave.prompts), store.capacity), dtype=torch.bool)
        sees[:, :size] = (trie[None, :] <= lasts[:, None]) & (lasts[:, None] < end[None, :])
        fill = size
        active = list(range(len(wave.prompts)))
        for step in range(max_new_tokens):
            still = []
            for row, token in zip(active, tokens):
                generated = results[wave.prompts[row]]
                generated.append(int(token))
                if not (
                    token in self.eos_ids or len(generated) >= max_new_tokens or done(wave.prompts[row], generated)
                ):
                    still.append(row)
            self.stats.generated_tokens += len(active)
            if not still:
                return
            tokens = [tokens[active.index(row)] for row in still]
            active = still
            rows = torch.tensor(active, dtype=torch.long)
            sees[rows, fill + torch.arange(len(active))] = True
            seen = sees[rows, :fill]
            visible = seen.any(dim=0).nonzero().squeeze(1)  # the columns some unfinished prompt sees
            if len(visible) < fill:  # finished prompts' own columns leave the pass
                allowed = torch.cat([seen[:, visible], sees[rows, fill : fill + len(active)]], dim=1)
                past = store.gather(visible.tolist())
            else:
                allowed, past = sees[rows, : fill + len(active)], store.view(fill)
            positions = torch.tensor([lengths[row] + step for row in active], dtype=torch.long)
            output = self._forward(torch.tensor(tokens, dtype=torch.long), positions, allowed, past, None)
            store.write(fill, cache_layers(output_cache(output)), past[0][0].shape[2])
            fill += len(active)
            tokens = output.logits[0].argmax(dim=-1).tolist()
            self.stats.decode_steps += 1


class _Store:
    """Per layer, the keys and values of a wave's tokens (batch one), by trie index, then generated tokens."""

    def __init__(self, like: list[tuple[torch.Tensor, torch.Tensor]], capacity: int) -> None:
        self.capacity = capacity
        self.layers = [
            tuple(tensor.new_zeros((1, tensor.shape[1], capacity, tensor.shape[3])) for tensor in pair) for pair in like
        ]

    def write(self, start: int, layers: list[tuple[torch.Tensor, torch.Tensor]], skip: int) -> None:
        """Store the columns of ``layers`` after the first ``skip`` (the past a pass saw) at ``start`` onwards."""
        for stored, pair in zip(self.layers, layers):
            for target, tensor in zip(stored, pair):
                target[:, :, start : start + tensor.shape[2] - skip] = tensor[:, :, skip:]

    def gather(self, columns: list[int]) -> list[tuple[torch.Tensor, torch.Tensor]]:
        """The layers at the given columns (a copy)."""
        index = torch.tensor(columns, dtype=torch.long, device=self.layers[0][0].device)
        return [(keys.index_select(2, index), values.index_select(2, index)) for keys, values in self.layers]

    def view(self, width: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
        """The first ``width`` columns of every layer (views)."""
        return [(keys[:, :, :width], values[:, :, :width]) for keys, values in self.layers]
