"""transformers causal language models (local folder, hub name, or a converted GGUF file)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch

from negkit.engine.batching import DEFAULT_TOKEN_BUDGET, LengthSortedBatcher, auto_token_budget
from negkit.engine.causal import CausalScorer, EncodedPrompt
from negkit.engine.context_groups import ContextGroup, ContextGroupScorer, group_by_context
from negkit.engine.greedy_tree import TreeGenerationMismatch, TreeGenerator, default_chunk_tokens
from negkit.engine.prefix import PrefixChecker
from negkit.models.base import LoglikelihoodRequest, LoglikelihoodResult, ModelFingerprint
from negkit.models.hf_common import HFTokenizerRules, TokenizerBackedModel, cut_at_stop, stop_criteria
from negkit.models.loading import load_pretrained

#: Callback after each batch: (number of requests done in it).
ProgressCallback = Callable[[int], None]


class HFCausalLM(TokenizerBackedModel):
    """A transformers causal LM behind the :class:`negkit.models.base.LanguageModel` protocol.

    ``batch_size`` is a fixed maximum (``None``: as many as ``token_budget`` padded tokens allow);
    ``prefix_reuse`` runs every prompt prefix that several prompts share once: along the prompts' prefix tree
    (``prefix_tree``, where the model takes custom attention masks), else the common prefix of each batch.
    """

    is_encoder_decoder = False

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        fingerprint: ModelFingerprint,
        batch_size: int | None = None,
        token_budget: int | None = None,
        prefix_reuse: bool = True,
        prefix_tree: bool = True,
    ) -> None:
        self.model = model.eval()
        self.rules = HFTokenizerRules(tokenizer)
        self.tokenizer = tokenizer
        self.fingerprint = fingerprint
        self.batch_size = batch_size
        self.token_budget = token_budget or auto_token_budget(
            bytes_per_token=_activation_bytes_per_token(model), device=str(self._device())
        )
        self.prefix_reuse = prefix_reuse
        self.progress: ProgressCallback | None = None
        self.scorer = CausalScorer(
            model,
            self._batcher(),
            PrefixChecker(self.rules.encode),
            prefix_reuse=prefix_reuse,
            prefix_tree=prefix_tree,
            pad_id=self.rules.pad_id,
        )
        #: How the model was loaded (device, dtype, quantization, loader options); results record it.
        #: ``prefix_token``: what an empty context stands for (whole-sequence log-likelihoods condition on it).
        self.load_info: dict[str, Any] = {
            "batch_size": batch_size or "auto",
            "token_budget": self.token_budget,
            "prefix_reuse": prefix_reuse,
            "prefix_tree": prefix_tree,
            "prefix_token": self.rules.prefix_token(),
        }

    #: ``--model-args`` keys of this backend besides the loader's (:data:`negkit.models.loading.LOADER_ARGS`).
    ENGINE_ARGS = {
        "prefix_reuse": "true/false: run every prompt prefix that several prompts share once (default true)",
        "prefix_tree": "true/false: share prefixes along the prompts' prefix tree, not only per batch (default true)",
        "token_budget": "padded tokens per batch (default: 1024 on CPU, from free memory on a GPU)",
    }

    @classmethod
    def from_pretrained(
        cls,
        name: str,
        dtype: str | None = "float32",
        backend: str = "hf",
        batch_size: int | None = None,
        token_budget: int | None = None,
        prefix_reuse: bool = True,
        prefix_tree: bool = True,
        **loader: Any,
    ) -> HFCausalLM:
        """Load a folder or hub name with ``AutoModelForCausalLM``; ``loader`` holds ``device``, ``quantize`` and
        the loader options of :func:`negkit.models.loading.load_pretrained`."""
        model, tokenizer, fingerprint, info = load_pretrained("AutoModelForCausalLM", name, dtype, backend, **loader)
        lm = cls(model, tokenizer, fingerprint, batch_size, token_budget, prefix_reuse, prefix_tree)
        lm.load_info = {**info, **lm.load_info}
        return lm

    def _batcher(self) -> LengthSortedBatcher:
        """The model's one batcher: batch sizes learnt per length bucket carry over between calls."""
        if getattr(self, "batcher", None) is None:
            self.batcher = LengthSortedBatcher(self.batch_size, self.token_budget or DEFAULT_TOKEN_BUDGET)
        return self.batcher

    def _on_batch(self, indices: list[int], _outputs: Sequence[Any]) -> None:
        if self.progress is not None:
            self.progress(len(indices))

    def next_token_logprobs(self, contexts: Sequence[str], candidates: Sequence[str]) -> list[dict[str, float]]:
        candidate_ids = [self.rules.first_token_id(candidate) for candidate in candidates]
        prompts = []
        for text in contexts:
            ids, ends = self.rules.encode_context(text)
            last = len(ids) - 1
            prompts.append(EncodedPrompt(text, tuple(ids), tuple(ends), len(ids), last, last))

        def reduce(_prompt: EncodedPrompt, logprobs: torch.Tensor) -> dict[str, float]:
            row = logprobs[0]
            return {candidate: float(row[token]) for candidate, token in zip(candidates, candidate_ids)}

        return self.scorer.score(prompts, reduce, self._on_batch)

    def loglikelihood(self, requests: Sequence[LoglikelihoodRequest]) -> list[LoglikelihoodResult]:
        prompts = []
        encoded = [self.rules.encode_request(r.context, r.continuation, r.add_bos) for r in requests]
        for request, (ids, ends, continuation) in zip(requests, encoded):
            full = ids + continuation
            prompts.append(
                EncodedPrompt(request.context, tuple(full), tuple(ends), len(ids), len(ids) - 1, len(full) - 2)
            )
        groups = group_by_context([tuple(ids) for ids, _ends, _continuation in encoded])
        if self.prefix_reuse and len(groups) < len(requests) and not self.scorer.tree_usable(prompts):
            # choices of one context, without the prefix tree (which shares contexts by itself)
            return self._grouped_loglikelihood(encoded, list(groups.values()))

        def reduce(prompt: EncodedPrompt, logprobs: torch.Tensor) -> LoglikelihoodResult:
            targets = torch.tensor(prompt.ids[prompt.context_len :], dtype=torch.long)
            if len(targets) == 0:
                return LoglikelihoodResult(0.0, True, 0)
            picked = logprobs.gather(1, targets[:, None])[:, 0]
            greedy = bool((logprobs.argmax(dim=-1) == targets).all())
            return LoglikelihoodResult(float(picked.sum()), greedy, len(targets))

        return self.scorer.score(prompts, reduce, self._on_batch)

    def _grouped_loglikelihood(
        self, requests: Sequence[tuple[list[int], list[int], list[int]]], groups: list[list[int]]
    ) -> list[LoglikelihoodResult]:
        """Each distinct context runs once; its continuations are scored from its key/value cache. ``requests``
        holds each request's encoding (context ids, end offsets, continuation ids), ``groups`` the requests of each
        distinct context."""
        encoded = [
            ContextGroup(tuple(requests[members[0]][0]), tuple(tuple(requests[m][2]) for m in members))
            for members in groups
        ]
        scorer = ContextGroupScorer(self.model, self._batcher(), pad_id=self.rules.pad_id, stats=self.scorer.stats)

        def on_batch(indices: list[int], _outputs: Sequence[Any]) -> None:
            if self.progress is not None:
                self.progress(sum(len(groups[index]) for index in indices))

        results: list[LoglikelihoodResult | None] = [None] * len(requests)
        for members, answers in zip(groups, scorer.score(encoded, on_batch)):
            for member, (logprob, greedy, count) in zip(members, answers):
                results[member] = LoglikelihoodResult(logprob, greedy, count)
        return results  # type: ignore[return-value]

    def generate(self, contexts: Sequence[str], max_new_tokens: int = 8, stop: Sequence[str] = ()) -> list[str]:
        """Greedy generation, stopped at a stop string (cut there), an end-of-sequence token or ``max_new_tokens``.

        With ``prefix_reuse`` (the default) every prompt token that several prompts share runs once and the prompts
        are decoded together (:class:`negkit.engine.greedy_tree.TreeGenerator`); otherwise, and where the model
        cannot take custom attention masks, in length-sorted batches through ``transformers``' ``generate``."""
        encoded = [self.rules.encode_context(text)[0] for text in contexts]
        generator = self._generator(
            lambda indices: self._generate_plain([encoded[i] for i in indices], max_new_tokens, stop)
        )
        reason = "prefix_reuse is off" if not self.prefix_reuse else generator.unsupported()
        self.load_info["generation"] = "shared prefixes" if reason is None else f"transformers generate ({reason})"
        if reason is not None:
            return self._generate_plain(encoded, max_new_tokens, stop)
        markers = [marker for marker in stop if marker]

        def done(_index: int, ids: list[int]) -> bool:
            return bool(markers) and any(
                marker in self.tokenizer.decode(ids, skip_special_tokens=True) for marker in markers
            )

        try:
            generated = generator.generate(
                encoded, max_new_tokens, done, on_wave=lambda indices: self._on_batch(indices, [])
            )
        except TreeGenerationMismatch as mismatch:  # raised in the first wave the trie runs
            self.load_info["generation"] = f"transformers generate ({mismatch})"
            return self._generate_plain(encoded, max_new_tokens, stop)
        return [
            answer
            if isinstance(answer, str)
            else cut_at_stop(self.tokenizer.decode(answer, skip_special_tokens=True), stop)
            for answer in generated
        ]

    def _generator(self, fallback: Callable[[list[int]], list[str]]) -> TreeGenerator:
        """The model's shared-prefix generator; ``fallback`` answers prompts (indices) of a wave that would leave
        a sliding window, through transformers' generate."""
        if getattr(self, "generator", None) is None:
            config = getattr(self.model, "generation_config", None)
            eos = getattr(config, "eos_token_id", None)
            if eos is None:
                eos = (
                    self.model.config.eos_token_id
                    if self.model.config.eos_token_id is not None
                    else self.tokenizer.eos_token_id
                )
            eos_ids = [eos] if isinstance(eos, int) else list(eos or [])
            self.generator = TreeGenerator(
                self.model,
                eos_ids,
                max_rows=self.batch_size or 32,
                chunk_tokens=min(default_chunk_tokens(self._device(), torch.get_num_threads()), self.token_budget),
            )
        self.generator.fallback = fallback
        return self.generator

    def _generate_plain(self, encoded: list[list[int]], max_new_tokens: int, stop: Sequence[str]) -> list[str]:
        """Length-sorted, left-padded batches through ``transformers``' ``generate`` (no prefix sharing)."""
        device = self._device()
        pad = self.rules.pad_id

        @torch.inference_mode()
        def process(indices: list[int]) -> list[str]:
            rows = [encoded[index] for index in indices]
            width = max(len(row) for row in rows)
            input_ids = torch.full((len(rows), width), pad, dtype=torch.long)
            mask = torch.zeros((len(rows), width), dtype=torch.long)
            for number, row in enumerate(rows):  # left padding: every prompt ends at the last column
                input_ids[number, width - len(row) :] = torch.tensor(row)
                mask[number, width - len(row) :] = 1
            output = self.model.generate(
                input_ids=input_ids.to(device),
                attention_mask=mask.to(device),
                max_new_tokens=max_new_tokens,
                do_sample=False,
                pad_token_id=pad,
                stopping_criteria=stop_criteria(self.tokenizer, stop, width),  # each row ends at its stop string
            )
            texts = self.tokenizer.batch_decode(output[:, width:], skip_special_tokens=True)
            return [cut_at_stop(text, stop) for text in texts]

        return self._batcher().run([len(ids) for ids in encoded], process, self._on_batch)


def _activation_bytes_per_token(model: Any) -> int:
    """A rough upper bound of the memory one token needs during a forward pass (for auto batch sizes)."""
    config = model.config.get_text_config() if hasattr(model.config, "get_text_config") else model.config
    hidden = getattr(config, "hidden_size", 1024)
    layers = getattr(config, "num_hidden_layers", 24)
    intermediate = getattr(config, "intermediate_size", 4 * hidden)
    # activations are in the compute dtype (quantized weights are stored in fewer bytes than they compute in)
    dtype = getattr(model, "dtype", None)
    element = torch.finfo(dtype).bits // 8 if isinstance(dtype, torch.dtype) and dtype.is_floating_point else 4
    return element * (2 * layers * hidden + 4 * intermediate + 8 * hidden) + 4 * getattr(config, "vocab_size", 32000)
