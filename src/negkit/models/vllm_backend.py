"""vLLM's offline engine as a language model: ``vllm:PATH_OR_NAME``.

negkit tokenizes every prompt itself (with the model's tokenizer, by the contract of
:mod:`negkit.models.base`) and hands vLLM token ids, so vLLM scores exactly the tokens the transformers
backends score. What is asked of vLLM is only what must be scored, so that its prefix cache (automatic
prefix caching, on by default here) serves the prompt text every request shares:

- ``next_token_logprobs``: ONE generated token per prompt with ``logprob_token_ids`` = the candidates' first
  tokens: vLLM returns their log-probabilities under the whole-vocabulary softmax (older vLLM without it:
  ``logprobs=top_k``, a candidate outside the top k gets ``-inf``, recorded in the fingerprint). Prompt
  log-probabilities are never requested here: vLLM skips its prefix cache for requests that ask for them.
- ``loglikelihood``: continuations of one token (multiple-choice answers such as " True") are scored the same
  way, one generated token per distinct context with every choice's token id (greedy = the token vLLM picks
  at temperature 0); longer continuations are scored with ``prompt_logprobs=0`` over context + continuation
  (the log-probability and rank of each prompt token; greedy = every continuation token has rank 1).
- ``generate``: greedy decoding (temperature 0) with the stop strings.

Engine options (``--model-args``): ``tensor_parallel_size`` (one model over N GPUs), ``pipeline_parallel_size``,
``gpu_memory_utilization``, ``max_model_len``, ``enforce_eager``, ``quantization``, ``revision``,
``trust_remote_code`` (only when true), ``tokenizer``, ``enable_prefix_caching``, ``max_num_seqs``, ``seed``,
``swap_space``, ``kv_cache_memory_bytes``. ``--quantize 4bit`` maps to vLLM's in-flight bitsandbytes quantization,
which is 4-bit only: ``--quantize 8bit`` is refused before anything is loaded (it would load 4-bit weights).
vLLM runs its own parallelism: one negkit process drives it (not torchrun).
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from negkit.errors import NegkitError
from negkit.models.base import LoglikelihoodRequest, LoglikelihoodResult, ModelFingerprint
from negkit.models.conversation import ConversationTemplate
from negkit.models.fingerprints import weights_sha256
from negkit.models.hf_common import HFTokenizerRules, cut_at_stop

#: Options passed to ``vllm.LLM`` (key -> what it does).
ENGINE_ARGS: dict[str, str] = {
    "tensor_parallel_size": "GPUs one model is split over (tensor parallel)",
    "pipeline_parallel_size": "pipeline stages (GPUs or machines) one model is split over",
    "gpu_memory_utilization": "share of each GPU's memory vLLM may take (default 0.9)",
    "max_model_len": "longest prompt + generation in tokens (default: the model's)",
    "enforce_eager": "true: no CUDA graphs / compilation (starts faster, runs slower)",
    "quantization": "vLLM's quantization method (awq, gptq, fp8, bitsandbytes, ...)",
    "revision": "hub branch, tag or commit",
    "tokenizer": "tokenizer folder or hub name, when it is not the model's",
    "trust_remote_code": "true to run the model repository's own code (never by default)",
    "enable_prefix_caching": "reuse the key/value cache of shared prompt prefixes (default true)",
    "max_num_seqs": "sequences per engine step",
    "seed": "engine seed (default 0)",
    "swap_space": "CPU swap space per GPU in GiB",
    "kv_cache_memory_bytes": "key/value cache size in bytes (instead of gpu_memory_utilization)",
}

#: What ``--quantize 4bit`` loads under vLLM (fingerprinted and recorded in results): vLLM quantizes the weights
#: to 4 bits with bitsandbytes as it loads them, with its own settings (not transformers' BitsAndBytesConfig).
VLLM_4BIT_LABEL = "bitsandbytes-4bit-vllm-inflight"


def check_vllm_quantize(quantize: str | None) -> None:
    """Refuse a ``--quantize`` vLLM cannot honour, before vLLM is imported or anything is loaded.

    vLLM's in-flight bitsandbytes quantization is 4-bit only: asked for bitsandbytes on an unquantized checkpoint it
    loads 4-bit weights whatever was asked, so ``8bit`` would run a 4-bit model and record 8-bit.
    """
    if quantize is None or quantize == "4bit":
        return
    if quantize == "8bit":
        raise NegkitError(
            "--quantize 8bit is not available with the vllm backend: vLLM's in-flight bitsandbytes "
            "quantization is 4-bit only (it would load 4-bit weights). Use --quantize 4bit, a "
            "pre-quantized checkpoint (e.g. --model-args quantization=fp8 or an 8-bit GPTQ/AWQ model), "
            "or an hf: model with --quantize 8bit"
        )
    raise NegkitError(f"--quantize must be 4bit with the vllm backend, got {quantize!r}")


class VLLMModel:
    """A model served by an in-process ``vllm.LLM`` behind the :class:`negkit.models.base.LanguageModel` protocol."""

    is_encoder_decoder = False
    #: ``--model-args`` keys (and Python options) this backend knows.
    MODEL_ARGS = {
        **ENGINE_ARGS,
        "batch_size": "prompts per call to the engine (default: all of a chunk)",
        "device": "auto only: vLLM's build decides (CUDA, CPU, ...)",
        "quantize": "4bit only (vLLM's in-flight bitsandbytes quantization)",
        "top_k": "top logprobs asked when the installed vLLM lacks logprob_token_ids (default 20)",
    }

    def __init__(self, llm: Any, fingerprint: ModelFingerprint, batch_size: int | None = None, top_k: int = 20) -> None:
        self.llm = llm
        self.tokenizer = llm.get_tokenizer()
        self.rules = HFTokenizerRules(self.tokenizer)
        self.fingerprint = fingerprint
        self.batch_size = batch_size
        self.top_k = top_k
        self.load_info: dict[str, Any] = {"backend": "vllm", "batch_size": batch_size or "auto"}

    @classmethod
    def from_pretrained(
        cls,
        name: str,
        dtype: str | None = "float32",
        batch_size: int | None = None,
        device: str | None = None,
        quantize: str | None = None,
        top_k: int = 20,
        **engine: Any,
    ) -> VLLMModel:
        """Start vLLM's engine on ``name`` (a folder or hub name) in ``dtype`` (``auto``: bfloat16)."""
        check_vllm_quantize(quantize)
        if int(os.environ.get("WORLD_SIZE", "1")) > 1:
            raise NegkitError(
                "the vllm backend runs one engine per run: start negkit once and split the model with "
                "--model-args tensor_parallel_size=N (not torchrun / accelerate launch)"
            )
        if device not in (None, "auto"):
            raise NegkitError(f"--device {device}: vLLM chooses its device from its own build; leave --device out")
        try:
            import vllm  # optional library, imported when used
        except ImportError:
            raise NegkitError(
                "the vllm backend needs the vllm package (pip install vllm, in its own environment: "
                "it pins its own torch)"
            ) from None
        resolved_dtype = "bfloat16" if dtype is None or dtype == "auto" else dtype
        if dtype == "checkpoint":  # the dtype the weights were saved in (vLLM's own "auto"), named in the record
            from negkit.models.loading import checkpoint_dtype_of  # loads torch and transformers, as vLLM does

            resolved_dtype = checkpoint_dtype_of(name, engine)
        options: dict[str, Any] = {"seed": 0, "enable_prefix_caching": True, **engine}
        if options.get("trust_remote_code") not in (None, True, False):
            raise NegkitError("--model-args trust_remote_code takes true or false")
        if quantize is not None:
            if options.setdefault("quantization", "bitsandbytes") != "bitsandbytes":
                raise NegkitError(
                    f"--quantize 4bit asks vLLM for bitsandbytes, but --model-args quantization="
                    f"{options['quantization']}; give one of them"
                )
        try:
            llm = vllm.LLM(model=name, dtype=resolved_dtype, **options)
        except (OSError, ValueError) as error:
            raise NegkitError(f"vllm cannot load model {name!r}: {error}") from None
        extra: list[tuple[str, str]] = []
        label = VLLM_4BIT_LABEL if quantize else options.get("quantization")
        if label:
            extra.append(("quantization", str(label)))
        exact = _has_logprob_token_ids(vllm)
        if not exact:
            extra.append(("top_k", str(top_k)))
        sha = weights_sha256(name) if Path(name).is_dir() else None
        fingerprint = ModelFingerprint(
            backend="vllm",
            name=name,
            dtype=resolved_dtype,
            revision=options.get("revision"),
            sha256=sha,
            extra=tuple(extra),
        )
        model = cls(llm, fingerprint, batch_size, top_k)
        model.load_info.update(
            dtype=resolved_dtype,
            dtype_requested=dtype or "auto",
            quantization=label,
            vllm_version=getattr(vllm, "__version__", None),
            engine=options,
            candidate_logprobs="exact (logprob_token_ids)" if exact else f"top {top_k}",
        )
        return model

    # -- chat ---------------------------------------------------------------------------------------
    #: A named template that replaces the tokenizer's chat template (:mod:`negkit.models.conversation`).
    conversation_template: ConversationTemplate | None = None

    @property
    def has_chat_template(self) -> bool:
        return self.conversation_template is not None or self.rules.has_chat_template

    def apply_chat_template(self, messages: Sequence[dict[str, str]]) -> str:
        if self.conversation_template is not None:
            return self.conversation_template.render(messages)
        return self.rules.apply_chat_template(messages)

    # -- engine calls -------------------------------------------------------------------------------
    def _generate(self, prompts: Sequence[list[int]], params: Any) -> list[Any]:
        from vllm.inputs import TokensPrompt  # optional library, imported when used

        outputs: list[Any] = []
        step = self.batch_size or max(1, len(prompts))
        for start in range(0, len(prompts), step):
            batch = [TokensPrompt(prompt_token_ids=list(ids)) for ids in prompts[start : start + step]]
            outputs += self.llm.generate(batch, params, use_tqdm=False)
        return outputs

    def _token_logprobs(
        self, prompts: Sequence[list[int]], token_ids: Sequence[int]
    ) -> list[tuple[dict[int, float], int]]:
        """For each prompt: the log-probability of each of ``token_ids`` at the next position, and the greedy token."""
        from vllm import SamplingParams  # optional library, imported when used

        wanted = list(dict.fromkeys(token_ids))
        if _has_logprob_token_ids():
            params = SamplingParams(max_tokens=1, temperature=0.0, logprob_token_ids=wanted, detokenize=False)
        else:
            params = SamplingParams(max_tokens=1, temperature=0.0, logprobs=self.top_k, detokenize=False)
        answers = []
        for output in self._generate(prompts, params):
            completion = output.outputs[0]
            position = (completion.logprobs or [None])[0]
            if position is None:
                raise NegkitError("vLLM returned no logprobs for the next token")
            answers.append(
                (
                    {token: float(position[token].logprob) if token in position else float("-inf") for token in wanted},
                    int(completion.token_ids[0]),
                )
            )
        return answers

    # -- protocol -----------------------------------------------------------------------------------
    def next_token_logprobs(self, contexts: Sequence[str], candidates: Sequence[str]) -> list[dict[str, float]]:
        candidate_ids = [self.rules.first_token_id(candidate) for candidate in candidates]
        prompts = [self.rules.encode_context(text)[0] for text in contexts]
        return [
            {candidate: scores[token] for candidate, token in zip(candidates, candidate_ids)}
            for scores, _greedy in self._token_logprobs(prompts, candidate_ids)
        ]

    def loglikelihood(self, requests: Sequence[LoglikelihoodRequest]) -> list[LoglikelihoodResult]:
        contexts = {request.context: self.rules.encode_context(request.context)[0] for request in requests}
        continuations = [self.rules.encode(request.continuation, special=False) for request in requests]
        results: list[LoglikelihoodResult | None] = [None] * len(requests)
        one_token: dict[str, list[int]] = {}
        longer = []
        for index, (request, tokens) in enumerate(zip(requests, continuations)):
            if not tokens:
                results[index] = LoglikelihoodResult(0.0, True, 0)
            elif len(tokens) == 1:
                one_token.setdefault(request.context, []).append(index)
            else:
                longer.append(index)
        if one_token:  # one engine step per distinct context, every choice's token scored at once
            order = list(one_token)
            answers = self._token_logprobs(
                [contexts[c] for c in order], [continuations[i][0] for c in order for i in one_token[c]]
            )
            for context, (scores, greedy) in zip(order, answers):
                for index in one_token[context]:
                    token = continuations[index][0]
                    results[index] = LoglikelihoodResult(scores[token], greedy == token, 1)
        if longer:
            for index, score in zip(
                longer,
                self._prompt_scores(
                    [contexts[requests[i].context] for i in longer], [continuations[i] for i in longer]
                ),
            ):
                results[index] = score
        return results  # type: ignore[return-value]

    def _prompt_scores(
        self, contexts: Sequence[list[int]], continuations: Sequence[list[int]]
    ) -> list[LoglikelihoodResult]:
        from vllm import SamplingParams  # optional library, imported when used

        params = SamplingParams(max_tokens=1, temperature=0.0, prompt_logprobs=0, detokenize=False)
        outputs = self._generate([list(c) + list(t) for c, t in zip(contexts, continuations)], params)
        results = []
        for context, tokens, output in zip(contexts, continuations, outputs):
            rows = output.prompt_logprobs or []
            total, greedy = 0.0, True
            for offset, token in enumerate(tokens):
                row = rows[len(context) + offset] if len(context) + offset < len(rows) else None
                if not row or token not in row:
                    raise NegkitError("vLLM returned no prompt logprob for a continuation token")
                total += float(row[token].logprob)
                greedy = greedy and getattr(row[token], "rank", None) == 1
            results.append(LoglikelihoodResult(total, greedy, len(tokens)))
        return results

    def generate(self, contexts: Sequence[str], max_new_tokens: int = 8, stop: Sequence[str] = ()) -> list[str]:
        from vllm import SamplingParams  # optional library, imported when used

        params = SamplingParams(max_tokens=max_new_tokens, temperature=0.0, stop=list(stop) or None)
        outputs = self._generate([self.rules.encode_context(text)[0] for text in contexts], params)
        return [cut_at_stop(output.outputs[0].text, stop) for output in outputs]


def _has_logprob_token_ids(module: Any = None) -> bool:
    """Whether the installed vLLM can return the log-probabilities of chosen token ids (``logprob_token_ids``)."""
    if module is None:
        import vllm  # optional library, imported when used

        module = vllm
    try:
        return "logprob_token_ids" in inspect.signature(module.SamplingParams).parameters
    except (TypeError, ValueError):
        return False
