"""Running a :class:`negkit.engine.prefix_tree.TreePlan` through a transformers causal LM.

Every shared prefix of the prompts runs once: anchors (long shared prefixes) keep their key/value cache
while the rows beneath them run, and a packed row holds a small subtree of the prompt trie, each token seeing
only its own prompt's earlier tokens through a 4D attention mask, at its own position id. Rows are batched
(at most the batcher's token budget of padded tokens, halved and remembered on out-of-memory) and only the
scored positions go through the LM head. An anchor's cache lives only while rows beneath it are waiting,
the cache of the anchor that starts every prompt (a template, an instruction) is kept for the next call.

The answers equal plain per-prompt forward passes (the masks, positions and caches reproduce each prompt's
own computation). :mod:`negkit.engine.tree_check` compares, once per model and per way of sharing, a packed
prompt with a plain pass; a mismatch, or a model that fails on the tree's inputs before they were checked,
turns the tree off (:class:`TreeMismatch`, which carries the answers already reported).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

import torch

from negkit.engine.attention import MASKABLE_ATTENTION, attention_mask, sliding_window
from negkit.engine.batching import LengthSortedBatcher, is_out_of_memory, release_cached_memory
from negkit.engine.kv_cache import cache_layers, new_cache, output_cache, with_cache
from negkit.engine.placement import input_device
from negkit.engine.prefix import common_prefix_length
from negkit.engine.prefix_tree import DEFAULT_ROW_TOKENS, Lane, TreePlan, cache_columns, pack_lanes, plan_rows
from negkit.engine.tree_check import FEATURES, choose_prompts, prompt_features, tolerance_for, tree_distance

T = TypeVar("T")

#: Top-level anchor caches kept between calls (a template shared by every prompt is computed once).
KEPT_ROOTS = 4

Layers = list[tuple[torch.Tensor, torch.Tensor]]


class TreeMismatch(RuntimeError):
    """The tree path does not reproduce a plain forward pass on this model (it is turned off). ``done``: the
    answers (by prompt index) of the batches already reported, which were checked and stand."""

    def __init__(self, reason: str, done: dict[int, Any] | None = None) -> None:
        super().__init__(reason)
        self.done = done or {}


class TreeScorer:
    """Scores encoded prompts along their prefix tree (see the module doc)."""

    def __init__(
        self,
        model: Any,
        batcher: LengthSortedBatcher,
        stats: Any,
        pad_id: int = 0,
        row_tokens: int = DEFAULT_ROW_TOKENS,
    ) -> None:
        self.model = model
        self.batcher = batcher
        self.stats = stats
        self.pad_id = pad_id
        self.row_tokens = row_tokens
        #: The features (:data:`negkit.engine.tree_check.FEATURES`) already checked against plain passes.
        self.checked: set[str] = set()
        #: Each check against a plain pass: its features, distances, tolerances and where they came from.
        self.tolerances: list[dict[str, Any]] = []
        self._tolerance: tuple[tuple[float, float], str] | None = None
        #: Why the tree is off for this model (None: it is on).
        self.disabled: str | None = None
        #: The most anchor caches held at once (each is freed when no row beneath it is left).
        self.peak_anchors = 0
        self._roots: dict[tuple[int, ...], Layers] = {}
        self._head = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None

    def unsupported(self, longest: int) -> str | None:
        """Why prompts up to ``longest`` tokens cannot take the tree path on this model (None: they can)."""
        if self.disabled:
            return self.disabled
        if "position_ids" not in inspect.signature(self.model.forward).parameters:
            return "the model takes no position ids"
        implementation = getattr(self.model.config, "_attn_implementation", None)
        if implementation not in MASKABLE_ATTENTION:
            return f"attention implementation {implementation!r} takes no custom masks"
        window = sliding_window(self.model)
        if window is not None and longest + max(longest, self.row_tokens) >= window:
            return f"prompts reach the sliding window ({window} tokens)"
        return None

    def score(
        self,
        prompts: Sequence[Any],
        reduce: Callable[[Any, torch.Tensor], T],
        on_batch_done: Callable[[list[int], Sequence[T]], None] | None = None,
    ) -> list[T]:
        """``reduce(prompt, logprobs)`` per prompt (``logprobs[k]``: the log-softmax at ``first_scored + k``),
        in input order. Raises :class:`TreeMismatch`, with the answers already reported (each of them checked),
        when a check against a plain pass fails, or when the model fails on the tree's inputs before every way of
        sharing was checked on it."""
        first = [prompt.first_scored for prompt in prompts]
        last = [prompt.last_scored for prompt in prompts]
        caches: dict[int, Layers] = {}
        cached, caches[0] = self._kept_prefix(prompts, min(first))
        plan = plan_rows([prompt.ids for prompt in prompts], first, last, self._row_tokens(), cached)
        plan.check([prompt.ids for prompt in prompts], first, last)
        if not cached:
            del caches[0]
        waiting = [0] * len(plan.anchors)
        for row in plan.rows:
            if row.anchor >= 0:
                waiting[row.anchor] += 1
        pending = list(range(len(plan.rows)))
        done: dict[int, T] = {}  # answers already reported
        computed = 0
        while pending:
            lanes = self._next_lanes(plan, pending, caches)
            width = max(lane.fill for lane in lanes)
            found = prompt_features(plan, lanes)
            unchecked = {feature for _row, _place, features in found.values() for feature in features} - self.checked
            try:
                outputs = self._run(lanes, plan, caches, prompts)
            except Exception as error:  # noqa: BLE001 - out-of-memory errors, and models that fail on the tree
                if is_out_of_memory(error) and len(lanes) > 1:
                    self.batcher.shrink(width, max(1, len(lanes) // 2))
                    release_cached_memory()
                    continue
                if is_out_of_memory(error) or self.checked >= set(FEATURES):  # checked: a real error
                    raise
                self.disabled = f"the model fails on the prefix tree's inputs ({type(error).__name__}: {error})"
                raise TreeMismatch(self.disabled, done) from error
            if unchecked:
                self._check(found, unchecked, outputs, prompts, done)
            self.batcher.note_used(width, len(lanes))
            self.peak_anchors = max(self.peak_anchors, len(caches))
            self.stats.batches += 1
            self.stats.batches_with_prefix += int(any(lane.anchors for lane in lanes))
            self.stats.tokens_padded += sum(width - lane.fill for lane in lanes)
            finished = {index for lane in lanes for index in lane.rows}
            pending = [index for index in pending if index not in finished]
            indices: list[int] = []
            for index, per_prompt in outputs.items():
                row = plan.rows[index]
                computed += len(row.tokens)
                for (prompt, _columns), logprobs in zip(row.scored, per_prompt):
                    done[prompt] = reduce(prompts[prompt], logprobs)
                    indices.append(prompt)
                if row.anchor >= 0:
                    waiting[row.anchor] -= 1
                    if waiting[row.anchor] == 0:
                        caches.pop(row.anchor, None)  # nothing beneath it is left: free it
            if on_batch_done is not None and indices:
                on_batch_done(indices, [done[prompt] for prompt in indices])
        total = sum(len(prompt.ids) for prompt in prompts)
        self.stats.tokens_total += total
        self.stats.tokens_skipped += total - computed
        return [done[prompt] for prompt in range(len(prompts))]

    def _row_tokens(self) -> int:
        return max(1, min(self.row_tokens, self.batcher.token_budget))

    def _kept_prefix(self, prompts: Sequence[Any], limit: int) -> tuple[int, Layers]:
        """The longest start of every prompt (at most ``limit`` tokens) that a cache kept from an earlier call
        holds, and that cache cut to it (a view: kept caches are never mutated)."""
        best, layers = 0, []
        for tokens, kept in self._roots.items():
            length = min(limit, len(tokens))
            for prompt in prompts:
                length = common_prefix_length([tokens, prompt.ids], limit=length)
                if length <= best:
                    break
            if length > best:
                best, layers = length, [(keys[:, :, :length], values[:, :, :length]) for keys, values in kept]
        return best, layers

    def _next_lanes(self, plan: TreePlan, pending: list[int], caches: dict[int, Layers]) -> list[Lane]:
        """The next batch: ready rows (their anchor's cache exists), in plan order, packed into lanes."""
        ready = [index for index in pending if plan.rows[index].anchor < 0 or plan.rows[index].anchor in caches]
        width = max(self._row_tokens(), len(plan.rows[ready[0]].tokens))
        lanes = self.batcher.batch_size_for(width)
        return pack_lanes(plan, ready, width, lanes, lookahead=4 * lanes + 8)

    @torch.inference_mode()
    def _run(
        self, lanes: Sequence[Lane], plan: TreePlan, caches: dict[int, Layers], prompts: Sequence[Any]
    ) -> dict[int, list[torch.Tensor]]:
        """One forward pass over ``lanes``: per row, per prompt scored in it, its log-softmax rows. Anchor rows
        store their cache in ``caches``."""
        device = input_device(self.model)
        width = max(lane.fill for lane in lanes)
        offsets = [lane.anchor_offsets(plan) for lane in lanes]
        prefix = cache_columns(plan, lanes)
        input_ids = torch.full((len(lanes), width), self.pad_id, dtype=torch.long)
        positions = torch.zeros((len(lanes), width), dtype=torch.long)
        allowed = torch.zeros((len(lanes), 1, width, prefix + width), dtype=torch.bool)
        picks: list[tuple[int, int]] = []
        for number, lane in enumerate(lanes):
            for index, start in zip(lane.rows, lane.starts):
                row = plan.rows[index]
                end = start + len(row.tokens)
                input_ids[number, start:end] = torch.tensor(row.tokens, dtype=torch.long)
                positions[number, start:end] = torch.tensor(row.positions, dtype=torch.long)
                if row.anchor >= 0:
                    offset = offsets[number][row.anchor]
                    allowed[number, 0, start:end, offset : offset + plan.anchors[row.anchor].end] = True
                columns = torch.arange(len(row.tokens))
                ends = torch.tensor(row.ancestor_ends(), dtype=torch.long)
                allowed[number, 0, start:end, prefix + start : prefix + end] = (
                    columns[None, :] <= columns[:, None]
                ) & (columns[:, None] < ends[None, :])
                picks.extend((number, start + column) for _prompt, scored in row.scored for column in scored)
            padding = width - lane.fill  # padding sees itself only (never an empty row: no NaN)
            allowed[number, 0, lane.fill :, prefix + lane.fill :] = torch.eye(padding, dtype=torch.bool)
        keep = any(plan.rows[index].produces >= 0 for lane in lanes for index in lane.rows)
        kwargs: dict[str, Any] = {
            "input_ids": input_ids.to(device),
            "position_ids": positions.to(device),
            "attention_mask": attention_mask(self.model, allowed).to(device),
            "use_cache": keep or prefix > 0,
        }
        if prefix:
            with_cache(self.model, kwargs, self._prefix_cache(lanes, offsets, plan, caches, prefix))
        with self._scored_rows(picks) as logits_of:
            output = self.model(**kwargs)
            logprobs = torch.log_softmax(logits_of(output).float(), dim=-1).cpu() if picks else None
        if keep:
            self._keep_anchors(lanes, plan, caches, output_cache(output), prefix, prompts)
        results: dict[int, list[torch.Tensor]] = {}
        taken = 0
        for lane in lanes:
            for index in lane.rows:
                results[index] = []
                for _prompt, scored in plan.rows[index].scored:
                    results[index].append(logprobs[taken : taken + len(scored)])  # type: ignore[index]
                    taken += len(scored)
        return results

    def _prefix_cache(
        self,
        lanes: Sequence[Lane],
        offsets: list[dict[int, int]],
        plan: TreePlan,
        caches: dict[int, Layers],
        prefix: int,
    ) -> Any:
        """A fresh cache holding each lane's anchor caches side by side (anchors are never mutated)."""
        single = {tuple(lane.anchors) for lane in lanes}
        layers = len(caches[next(anchor for lane in lanes for anchor in lane.anchors)])
        data = []
        for layer in range(layers):
            pair = []
            for part in range(2):
                if len(single) == 1 and len(lanes[0].anchors) == 1:  # one anchor for every lane: a view
                    pair.append(caches[lanes[0].anchors[0]][layer][part].expand(len(lanes), -1, -1, -1))
                    continue
                sample = next(caches[anchor][layer][part] for lane in lanes for anchor in lane.anchors)
                joined = sample.new_zeros((len(lanes), sample.shape[1], prefix, sample.shape[3]))
                for number, lane in enumerate(lanes):
                    for anchor in lane.anchors:
                        tensor = caches[anchor][layer][part]
                        start = offsets[number][anchor]
                        joined[number, :, start : start + tensor.shape[2]] = tensor[0]
                pair.append(joined)
            data.append((pair[0], pair[1]))
        return new_cache(data, self.model.config)

    def _keep_anchors(
        self,
        lanes: Sequence[Lane],
        plan: TreePlan,
        caches: dict[int, Layers],
        cache: Any,
        prefix: int,
        prompts: Sequence[Any],
    ) -> None:
        """Store the cache of every anchor row: its parent's cache, then its own new keys and values."""
        for number, lane in enumerate(lanes):
            for index, start in zip(lane.rows, lane.starts):
                row = plan.rows[index]
                if row.produces < 0:
                    continue
                columns = slice(prefix + start, prefix + start + len(row.tokens))
                layers: Layers = []
                for layer_index, (keys, values) in enumerate(cache_layers(cache)):
                    own = (keys[number : number + 1, :, columns], values[number : number + 1, :, columns])
                    if row.anchor >= 0:
                        parent = caches[row.anchor][layer_index]
                        layers.append((torch.cat([parent[0], own[0]], dim=2), torch.cat([parent[1], own[1]], dim=2)))
                    else:
                        layers.append((own[0].clone(), own[1].clone()))
                caches[row.produces] = layers
                if row.anchor < 0 or (plan.cached and row.anchor == 0):
                    # an anchor at the top of the call (or right beneath a kept cache): kept for the next calls
                    anchor = plan.anchors[row.produces]
                    if len(self._roots) >= KEPT_ROOTS:
                        self._roots.pop(next(iter(self._roots)))
                    self._roots[tuple(prompts[anchor.sample].ids[: anchor.end])] = layers

    @contextmanager
    def _scored_rows(self, picks: list[tuple[int, int]]) -> Iterator[Callable[[Any], torch.Tensor]]:
        """Runs the LM head only on the (row, column) pairs in ``picks``; yields a function that takes the
        model's output and returns their logits, one row per pick."""
        rows = torch.tensor([row for row, _column in picks], dtype=torch.long)
        columns = torch.tensor([column for _row, column in picks], dtype=torch.long)
        if self._head is None:  # no separate head: every position's logits, picked afterwards
            yield lambda output: output.logits[rows.to(output.logits.device), columns.to(output.logits.device)]
            return

        fired: list[bool] = []

        def gather(_module: Any, args: tuple[Any, ...]) -> tuple[Any, ...]:
            hidden = args[0]
            fired.append(True)
            return (hidden[rows.to(hidden.device), columns.to(hidden.device)].unsqueeze(0), *args[1:])

        def logits_of(output: Any) -> torch.Tensor:
            logits: torch.Tensor = output.logits
            if fired:
                return logits[0]
            # the model did not call its output embedding module (it applies the weights itself): pick
            return logits[rows.to(logits.device), columns.to(logits.device)]

        handle = self._head.register_forward_pre_hook(gather)
        try:
            yield logits_of
        finally:
            handle.remove()

    @property
    def verified(self) -> bool:
        """Whether the tree has been checked against plain passes on this model and is on."""
        return bool(self.checked) and self.disabled is None

    def _check(
        self,
        found: dict[int, tuple[int, int, frozenset[str]]],
        unchecked: set[str],
        outputs: dict[int, list[torch.Tensor]],
        prompts: Sequence[Any],
        done: dict[int, Any],
    ) -> None:
        """Compare a prompt of each feature not yet checked on this model with a plain pass (raises
        :class:`TreeMismatch` and turns the tree off when one differs)."""
        for prompt in choose_prompts(found, unchecked):
            row, place, features = found[prompt]
            distances = tree_distance(self.model, prompts[prompt], outputs[row][place])
            if self._tolerance is None:  # the dtype's noise is measured once per model (16 bits: a float32 pass)
                self._tolerance = tolerance_for(self.model, prompts[prompt])
            tolerance, source = self._tolerance
            self.tolerances.append(
                {
                    "features": sorted(features),
                    "distance": list(distances),
                    "tolerance": list(tolerance),
                    "from": source,
                }
            )
            if distances[0] > tolerance[0] or distances[1] > tolerance[1]:
                names = ", ".join(feature for feature in FEATURES if feature in features)
                self.disabled = (
                    f"the prefix tree differs from a plain forward pass on this model (total variation "
                    f"{distances[0]:.3g}, log-probabilities {distances[1]:.3g}; tolerances "
                    f"{tolerance[0]:.3g}, {tolerance[1]:.3g}: {source}; with {names})"
                )
                raise TreeMismatch(self.disabled, done)
            self.checked |= features
