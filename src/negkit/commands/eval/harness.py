"""The LM Evaluation Harness's habits in a ``negkit eval`` run: its way of naming a model
(:mod:`negkit.models.harness_spelling`), its default precision on a GPU (the checkpoint's dtype) and its generation
settings (``--gen_kwargs``). docs/harness.md lists what still differs, and why.

:func:`resolve_harness` runs first in :func:`negkit.commands.eval.evaluate.evaluate`, so the Python API, ``negkit
eval`` and a benchmark's own commands read the same spellings, and the recorded command is in negkit's.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from typing import Any

from negkit.commands.eval.options import EvalOptions
from negkit.errors import NegkitError, quoted
from negkit.models.harness_spelling import from_harness
from negkit.models.loader_options import gpu_visible
from negkit.models.model_args import parse_model_args
from negkit.models.spec import parse_model_spec

#: Model kinds whose weights are loaded here (transformers, or vLLM's engine): precision and mode apply to them.
LOCAL_KINDS = ("default", "hf", "gguf", "nli", "vllm")
#: ``--gen-kwargs`` keys and what negkit does with them.
GEN_KWARGS = {
    "max_gen_toks": "most tokens generated per answer",
    "until": "stop strings (a list in brackets, or one string)",
    "do_sample": "false only: negkit generates greedily",
    "temperature": "0 only: negkit generates greedily",
}


def resolve_harness(model: str | Any, options: EvalOptions) -> tuple[str | Any, EvalOptions]:
    """``model`` and ``options`` in negkit's terms: a Harness model name read (``hf`` with ``pretrained=...``), its
    ``dtype`` and ``load_in_Nbit`` keys moved to ``--dtype`` and ``--quantize``, and the mode settled
    (:func:`resolve_mode`)."""
    if not isinstance(model, str):
        return model, replace(options, mode=options.mode or "exact")
    named = from_harness(model, options.model_args)
    dtype, quantize = options.dtype, options.quantize
    if named.dtype is not None:
        if dtype is not None and dtype != named.dtype:
            raise NegkitError(f"--dtype {dtype} and --model-args dtype={named.dtype} differ; give one")
        dtype = named.dtype
    if named.quantize is not None:
        if quantize is not None and quantize != named.quantize:
            raise NegkitError(f"--quantize {quantize} and --model-args load_in_{named.quantize}=True differ; give one")
        quantize = named.quantize
    if named.unused:
        print(
            f"negkit: note: --model-args {', '.join(named.unused)}: the Harness's client settings, not used by "
            "negkit's server client",
            file=sys.stderr,
        )
    resolved = replace(options, model_args=named.model_args, dtype=dtype, quantize=quantize)
    mode, dtype = resolve_mode(named.spec, resolved)
    return named.spec, replace(resolved, mode=mode, dtype=dtype)


def resolve_mode(spec: str, options: EvalOptions) -> tuple[str, str | None]:
    """The mode and dtype of a run whose ``--mode`` may be unset: a mode given stays; a 16-bit or checkpoint
    ``--dtype`` or ``--quantize`` asks for fast mode; a transformers model placed on a GPU runs fast in its
    checkpoint's dtype (the Harness's default); everything else, the CPU first, runs exact (float32)."""
    if options.mode is not None:
        return options.mode, options.dtype
    if options.quantize is not None or options.model_args.get("quantize") is not None:
        return "fast", options.dtype
    if options.dtype not in (None, "auto", "float32"):
        return "fast", options.dtype
    if options.dtype is None and parse_model_spec(spec).kind in LOCAL_KINDS:
        device = options.device or options.model_args.get("device")
        if gpu_visible(device, options.model_args.get("device_map")):
            print(
                "negkit: note: on a GPU the model runs in its checkpoint's dtype (fast mode, as the Harness does; "
                "recorded in the results under model.load.dtype); --mode exact runs float32",
                file=sys.stderr,
            )
            return "fast", "checkpoint"
    return "exact", options.dtype


def parse_gen_kwargs(text: str | None) -> dict[str, Any] | None:
    """``--gen-kwargs`` as a checked mapping (None when not given); a setting negkit cannot honour (sampling) is an
    error that says so."""
    if text is None:
        return None
    values = parse_model_args(text, what="--gen-kwargs")
    unknown = sorted(set(values) - set(GEN_KWARGS))
    if unknown:
        known = "; ".join(f"{key}: {meaning}" for key, meaning in GEN_KWARGS.items())
        raise NegkitError(f"--gen-kwargs: unknown key {', '.join(unknown)} (known: {known})")
    if values.get("do_sample") not in (None, False) or values.get("temperature") not in (None, 0, 0.0):
        raise NegkitError(
            f"--gen-kwargs {quoted(text)}: negkit generates greedily (do_sample=false, temperature=0); sampling "
            "is not supported"
        )
    settings: dict[str, Any] = {}
    if "max_gen_toks" in values:
        count = values["max_gen_toks"]
        if type(count) is not int or count < 1:
            raise NegkitError(f"--gen-kwargs max_gen_toks must be a whole number of at least 1, got {count!r}")
        settings["max_gen_toks"] = count
    if "until" in values:
        until = values["until"]
        stops = tuple(str(stop) for stop in (until if isinstance(until, list) else [until]))
        if not all(stops):
            raise NegkitError("--gen-kwargs until: a stop string is empty")
        settings["until"] = stops
    return settings


def with_gen_kwargs(requests: list[Any], gen_kwargs: dict[str, Any] | None) -> list[Any]:
    """``requests`` with each generation request's length and stop strings replaced by ``--gen-kwargs``'."""
    if not gen_kwargs:
        return requests
    changed = []
    for request in requests:
        if hasattr(request, "max_new_tokens") and hasattr(request, "stop"):
            request = replace(
                request,
                max_new_tokens=gen_kwargs.get("max_gen_toks", request.max_new_tokens),
                stop=gen_kwargs.get("until", request.stop),
            )
        changed.append(request)
    return changed


def generates(requests: list[Any]) -> bool:
    """Whether any of ``requests`` asks the model to generate text."""
    return any(hasattr(request, "max_new_tokens") for request in requests)
