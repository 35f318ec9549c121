"""transformers encoder-decoder models (T5, Flan-T5, BART): answers come from the decoder, one step
from the decoder start token (the TIND protocol), or teacher-forced over a continuation."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from negkit.engine.batching import LengthSortedBatcher, auto_token_budget
from negkit.errors import NegkitError
from negkit.models.base import LoglikelihoodRequest, LoglikelihoodResult, ModelFingerprint
from negkit.models.hf_common import HFTokenizerRules, TokenizerBackedModel, cut_at_stop, stop_criteria
from negkit.models.loading import load_pretrained


class HFSeq2SeqLM(TokenizerBackedModel):
    """An encoder-decoder model behind the :class:`negkit.models.base.LanguageModel` protocol."""

    is_encoder_decoder = True

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        fingerprint: ModelFingerprint,
        batch_size: int | None = None,
        token_budget: int | None = None,
    ) -> None:
        self.model = model.eval()
        self.tokenizer = tokenizer
        self.rules = HFTokenizerRules(tokenizer)
        self.fingerprint = fingerprint
        self.batch_size = batch_size
        device = str(self._device())
        self.token_budget = token_budget or auto_token_budget(
            4 * 4 * model.config.d_model if hasattr(model.config, "d_model") else 65536, device
        )
        self.load_info: dict[str, Any] = {"batch_size": batch_size or "auto", "token_budget": self.token_budget}

    #: ``--model-args`` keys of this backend besides the loader's (an encoder sees the whole prompt at once:
    #: there is no prefix to reuse, so ``prefix_reuse`` and ``prefix_tree`` are accepted and have no effect).
    ENGINE_ARGS = {
        "token_budget": "padded tokens per batch",
        "prefix_reuse": "accepted; no effect for encoder-decoders",
        "prefix_tree": "accepted; no effect for encoder-decoders",
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
    ) -> HFSeq2SeqLM:
        model, tokenizer, fingerprint, info = load_pretrained("AutoModelForSeq2SeqLM", name, dtype, backend, **loader)
        lm = cls(model, tokenizer, fingerprint, batch_size, token_budget)
        lm.load_info = {**info, **lm.load_info}
        return lm

    def _start_id(self) -> int:
        start = self.model.config.decoder_start_token_id
        return int(start if start is not None else self.rules.pad_id)

    def _padded(self, rows: Sequence[Sequence[int]], pad: int) -> tuple[torch.Tensor, torch.Tensor]:
        width = max(len(row) for row in rows)
        ids = torch.full((len(rows), width), pad, dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for number, row in enumerate(rows):
            ids[number, : len(row)] = torch.tensor(list(row), dtype=torch.long)
            mask[number, : len(row)] = 1
        return ids.to(self._device()), mask.to(self._device())

    def _decoder_logprobs(
        self, encoder_rows: Sequence[Sequence[int]], decoder_rows: Sequence[Sequence[int]]
    ) -> torch.Tensor:
        input_ids, mask = self._padded(encoder_rows, self.rules.pad_id)
        decoder_ids, _ = self._padded(decoder_rows, self.rules.pad_id)
        with torch.inference_mode():
            logits = self.model(input_ids=input_ids, attention_mask=mask, decoder_input_ids=decoder_ids).logits
        return torch.log_softmax(logits.float(), dim=-1).cpu()

    def next_token_logprobs(self, contexts: Sequence[str], candidates: Sequence[str]) -> list[dict[str, float]]:
        candidate_ids = [self.rules.first_token_id(candidate) for candidate in candidates]
        encoded = [self.rules.encode_context(text)[0] for text in contexts]

        def process(indices: list[int]) -> list[dict[str, float]]:
            logprobs = self._decoder_logprobs([encoded[i] for i in indices], [[self._start_id()]] * len(indices))
            return [{c: float(row[0, t]) for c, t in zip(candidates, candidate_ids)} for row in logprobs]

        return self._batcher().run([len(ids) for ids in encoded], process)

    def loglikelihood(self, requests: Sequence[LoglikelihoodRequest]) -> list[LoglikelihoodResult]:
        if any(request.add_bos is not None for request in requests):
            raise NegkitError(
                "a BOS policy applies to decoder-only models; encoder-decoder contexts have none (use the default)"
            )
        contexts = [self.rules.encode_context(request.context)[0] for request in requests]
        targets = [self.rules.encode(request.continuation, special=False) for request in requests]

        def process(indices: list[int]) -> list[LoglikelihoodResult]:
            decoder_rows = [[self._start_id(), *targets[i][:-1]] for i in indices]
            logprobs = self._decoder_logprobs([contexts[i] for i in indices], decoder_rows)
            results = []
            for row, index in zip(logprobs, indices):
                target = torch.tensor(targets[index], dtype=torch.long)
                if len(target) == 0:
                    results.append(LoglikelihoodResult(0.0, True, 0))
                    continue
                scored = row[: len(target)]
                picked = scored.gather(1, target[:, None])[:, 0]
                greedy = bool((scored.argmax(dim=-1) == target).all())
                results.append(LoglikelihoodResult(float(picked.sum()), greedy, len(target)))
            return results

        lengths = [len(c) + len(t) for c, t in zip(contexts, targets)]
        return self._batcher().run(lengths, process)

    def generate(self, contexts: Sequence[str], max_new_tokens: int = 8, stop: Sequence[str] = ()) -> list[str]:
        encoded = [self.rules.encode_context(text)[0] for text in contexts]

        def process(indices: list[int]) -> list[str]:
            input_ids, mask = self._padded([encoded[i] for i in indices], self.rules.pad_id)
            with torch.inference_mode():
                output = self.model.generate(
                    input_ids=input_ids,
                    attention_mask=mask,
                    max_new_tokens=max_new_tokens,
                    do_sample=False,
                    stopping_criteria=stop_criteria(self.tokenizer, stop, 0),
                )
            texts = self.tokenizer.batch_decode(output, skip_special_tokens=True)
            return [cut_at_stop(text, stop) for text in texts]

        return self._batcher().run([len(ids) for ids in encoded], process)

    def _batcher(self) -> LengthSortedBatcher:
        """The model's one batcher: batch sizes learnt per length bucket carry over between calls."""
        if getattr(self, "batcher", None) is None:
            self.batcher = LengthSortedBatcher(self.batch_size, self.token_budget)
        return self.batcher
