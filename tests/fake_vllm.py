"""A stand-in for the part of vLLM's offline API that negkit's vllm backend uses, computed with transformers.

Mirrors vLLM 0.32 (checked against the installed package): ``vllm.LLM(model=..., dtype=..., **engine_args)``
with ``get_tokenizer()`` and ``generate(prompts, sampling_params, use_tqdm=...)`` over
``vllm.inputs.TokensPrompt(prompt_token_ids=...)``; ``vllm.SamplingParams(max_tokens, temperature, logprobs,
prompt_logprobs, logprob_token_ids, stop, detokenize)``; each ``RequestOutput`` has ``prompt_logprobs`` (None
for the first prompt token, then per token a dict token id -> ``Logprob(logprob, rank, decoded_token)`` holding
the prompt token, plus the top k when k > 0) and ``outputs[0]`` with ``token_ids``, ``text`` and ``logprobs``
(per generated token: the sampled token and the requested ids, or the top k). Every SamplingParams given is
recorded in ``LLM.calls`` so that tests can check what negkit asked for.
"""

from __future__ import annotations

import types
from dataclasses import dataclass, field

import torch


@dataclass
class Logprob:
    logprob: float
    rank: int | None = None
    decoded_token: str | None = None


@dataclass
class SamplingParams:
    max_tokens: int | None = 16
    temperature: float = 1.0
    logprobs: int | None = None
    prompt_logprobs: int | None = None
    logprob_token_ids: list[int] | None = None
    stop: list[str] | None = None
    detokenize: bool = True


@dataclass
class CompletionOutput:
    token_ids: list[int]
    text: str
    logprobs: list[dict[int, Logprob]] | None


@dataclass
class RequestOutput:
    prompt_token_ids: list[int]
    prompt_logprobs: list[dict[int, Logprob] | None] | None
    outputs: list[CompletionOutput] = field(default_factory=list)


def TokensPrompt(prompt_token_ids):  # noqa: N802 - vLLM's name (a TypedDict there)
    return {"prompt_token_ids": list(prompt_token_ids)}


class LLM:
    instances: list[LLM] = []

    def __init__(self, model: str, dtype: str = "auto", **engine_args) -> None:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.engine_args = {"dtype": dtype, **engine_args}
        self.tokenizer = AutoTokenizer.from_pretrained(engine_args.get("tokenizer") or model)
        torch_dtype = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[dtype]
        self.model = AutoModelForCausalLM.from_pretrained(model, dtype=torch_dtype).eval()
        self.calls: list[SamplingParams] = []
        LLM.instances.append(self)

    def get_tokenizer(self):
        return self.tokenizer

    def _logprobs(self, ids: list[int]) -> torch.Tensor:
        with torch.no_grad():
            logits = self.model(input_ids=torch.tensor([ids])).logits[0]
        return torch.log_softmax(logits.float(), dim=-1)

    def _entry(self, row: torch.Tensor, token: int) -> Logprob:
        rank = int((row > row[token]).sum()) + 1
        return Logprob(float(row[token]), rank, self.tokenizer.decode([token]))

    def generate(self, prompts, sampling_params, use_tqdm=True):
        self.calls.append(sampling_params)
        results = []
        for prompt in prompts:
            ids = list(prompt["prompt_token_ids"])
            rows = self._logprobs(ids)
            prompt_logprobs = None
            if sampling_params.prompt_logprobs is not None:
                prompt_logprobs = [None]
                for position in range(1, len(ids)):
                    row = rows[position - 1]
                    entry = {ids[position]: self._entry(row, ids[position])}
                    for token in row.topk(sampling_params.prompt_logprobs).indices.tolist():
                        entry.setdefault(int(token), self._entry(row, int(token)))
                    prompt_logprobs.append(entry)
            generated, text = self._greedy(ids, rows, sampling_params)
            logprobs = None
            if sampling_params.logprobs is not None or sampling_params.logprob_token_ids:
                row = rows[-1]
                wanted = sampling_params.logprob_token_ids or row.topk(sampling_params.logprobs).indices.tolist()
                logprobs = [
                    {
                        generated[0]: self._entry(row, generated[0]),
                        **{int(token): self._entry(row, int(token)) for token in wanted},
                    }
                ]
            results.append(RequestOutput(ids, prompt_logprobs, [CompletionOutput(generated, text, logprobs)]))
        return results

    def _greedy(self, ids, rows, params):
        generated = [int(rows[-1].argmax())]
        while len(generated) < (params.max_tokens or 16):
            generated.append(int(self._logprobs(ids + generated)[-1].argmax()))
        text = self.tokenizer.decode(generated, skip_special_tokens=True)
        for marker in params.stop or []:
            if marker in text:
                text = text[: text.index(marker)]
        return generated, text


def module() -> types.ModuleType:
    """A ``vllm`` module object (with ``vllm.inputs``) to put in ``sys.modules``."""
    vllm = types.ModuleType("vllm")
    vllm.__version__ = "fake"
    vllm.LLM, vllm.SamplingParams = LLM, SamplingParams
    inputs = types.ModuleType("vllm.inputs")
    inputs.TokensPrompt = TokensPrompt
    vllm.inputs = inputs
    LLM.instances = []
    return vllm
