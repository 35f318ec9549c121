"""The LM Evaluation Harness's way of naming a model, read as negkit's: ``--model hf --model_args
pretrained=NAME,dtype=bfloat16`` is ``--model hf:NAME --dtype bfloat16``.

=======================================================  ===============================================
the Harness                                              negkit
=======================================================  ===============================================
``--model hf|hf-auto|huggingface`` + ``pretrained=X``    ``--model hf:X``
``--model vllm`` + ``pretrained=X``                      ``--model vllm:X``
``--model local-completions`` + ``model=M,base_url=U``   ``--model openai:U#M`` (``U`` without its
                                                         ``/completions`` endpoint)
``--model local-chat-completions`` (likewise)            ``--model openai:U#M?chat``
``dtype=auto``                                           ``--dtype checkpoint`` (the checkpoint's dtype)
``dtype=float32|bfloat16|float16`` (or ``fp32``, ...)    ``--dtype NAME``
``parallelize=True``                                     ``device_map=auto``
``load_in_8bit=True`` / ``load_in_4bit=True``            ``--quantize 8bit`` / ``4bit``
``max_retries=N`` (servers)                              ``retries=N``
=======================================================  ===============================================

The Harness's server keys that only tune its client (``num_concurrent``, ``tokenized_requests``,
``tokenizer_backend``, ``tokenizer``) are accepted and left unused (negkit sends text and asks one request at a
time); every other key goes to the backend, which refuses one it does not know and lists those it does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from negkit.errors import NegkitError

#: The Harness's model names for transformers, vLLM and OpenAI-compatible servers.
HARNESS_HF = ("hf", "hf-auto", "huggingface")
HARNESS_VLLM = ("vllm",)
HARNESS_COMPLETIONS = ("local-completions", "openai-completions")
HARNESS_CHAT = ("local-chat-completions", "openai-chat-completions")
#: The Harness's ``dtype`` values -> negkit's ``--dtype`` (``auto``: the checkpoint's own dtype, as transformers'
#: ``torch_dtype="auto"``; negkit's own ``--dtype auto`` is fast mode's timed choice).
HARNESS_DTYPES = {
    "auto": "checkpoint",
    "checkpoint": "checkpoint",
    "float32": "float32",
    "float": "float32",
    "fp32": "float32",
    "bfloat16": "bfloat16",
    "bf16": "bfloat16",
    "float16": "float16",
    "half": "float16",
    "fp16": "float16",
}
#: Server keys of the Harness's client that negkit's client does not need.
UNUSED_SERVER_KEYS = ("num_concurrent", "tokenized_requests", "tokenizer_backend", "tokenizer")


@dataclass(frozen=True)
class HarnessModel:
    """A model named the Harness's way, in negkit's terms: the ``--model`` spec, the remaining ``--model-args``,
    the dtype and quantization they asked for (None: not given) and the keys accepted but unused."""

    spec: str
    model_args: dict[str, Any]
    dtype: str | None = None
    quantize: str | None = None
    unused: tuple[str, ...] = field(default=())


def is_harness_name(model: str) -> bool:
    """Whether ``model`` is one of the Harness's model type names that negkit reads (``hf``, ``vllm``, ...)."""
    return model in (*HARNESS_HF, *HARNESS_VLLM, *HARNESS_COMPLETIONS, *HARNESS_CHAT)


def harness_dtype(value: Any) -> str:
    """negkit's dtype name of a Harness ``dtype`` value."""
    name = str(value).strip().lower().removeprefix("torch.")
    if name not in HARNESS_DTYPES:
        raise NegkitError(f"--model-args dtype={value}: unknown dtype; choose one of {', '.join(HARNESS_DTYPES)}")
    return HARNESS_DTYPES[name]


def from_harness(model: str, model_args: dict[str, Any]) -> HarnessModel:
    """``model`` and ``model_args`` in negkit's terms (unchanged when they are already negkit's: a spec such as
    ``hf:NAME`` with its own keys). A Harness name without the key that names the model is an error saying which
    key it needs; a model named twice (``--model hf:X`` and ``pretrained=Y``) is an error too."""
    args = dict(model_args)
    if model in (*HARNESS_HF, *HARNESS_VLLM):
        pretrained = args.pop("pretrained", None)
        if pretrained in (None, ""):
            raise NegkitError(
                f"--model {model} needs --model_args pretrained=NAME_OR_PATH (or write --model "
                f"{'vllm' if model in HARNESS_VLLM else 'hf'}:NAME_OR_PATH)"
            )
        spec = f"{'vllm' if model in HARNESS_VLLM else 'hf'}:{pretrained}"
    elif model in (*HARNESS_COMPLETIONS, *HARNESS_CHAT):
        return _server(model, args)
    else:
        if "pretrained" in args:
            raise NegkitError(
                f"--model {model} and --model_args pretrained={args['pretrained']} both name a model; give it once "
                "(--model hf --model_args pretrained=NAME, or --model hf:NAME)"
            )
        spec = model
    dtype = harness_dtype(args.pop("dtype")) if "dtype" in args else None
    if "parallelize" in args:
        if args.pop("parallelize") is True:
            if "device_map" in args:
                raise NegkitError("--model-args: give parallelize=True or device_map, not both")
            args["device_map"] = "auto"
    quantize = None
    for key, bits in (("load_in_8bit", "8bit"), ("load_in_4bit", "4bit")):
        if key in args and args.pop(key) is True:
            if quantize is not None:
                raise NegkitError("--model-args: load_in_8bit and load_in_4bit are both true; choose one")
            quantize = bits
    return HarnessModel(spec, args, dtype, quantize)


def _server(model: str, args: dict[str, Any]) -> HarnessModel:
    name = args.pop("model", None)
    base_url = args.pop("base_url", None)
    if not name or not base_url:
        raise NegkitError(
            f"--model {model} needs --model_args model=NAME,base_url=http://HOST:PORT/v1/"
            f"{'chat/' if model in HARNESS_CHAT else ''}completions"
        )
    url = str(base_url).rstrip("/")
    for endpoint in ("/chat/completions", "/completions"):
        url = url.removesuffix(endpoint)
    if "max_retries" in args:
        if "retries" in args:
            raise NegkitError("--model-args: give max_retries or retries, not both")
        args["retries"] = args.pop("max_retries")
    unused = tuple(key for key in UNUSED_SERVER_KEYS if key in args)
    for key in unused:
        args.pop(key)
    chat = "?chat" if model in HARNESS_CHAT else ""
    return HarnessModel(f"openai:{url}#{name}{chat}", args, None, None, unused)
