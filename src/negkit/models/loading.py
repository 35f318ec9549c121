"""How a transformers model is placed and loaded: device, precision, quantization, sharding, loader options.

:func:`load_pretrained` is the one place where negkit calls ``from_pretrained`` for its transformers
backends (causal, encoder-decoder, NLI; GGUF files after conversion). It takes:

- ``device``: ``cpu``, ``cuda``, ``cuda:N``, ``mps`` or ``auto`` (a GPU when one is visible, else the CPU);
  an explicit GPU that is not there is an error, never a silent fallback to the CPU;
- ``dtype``: ``float32``, ``bfloat16``, ``float16`` or ``auto`` (fast mode's: on the CPU the fastest of the
  three on this machine, timed once and cached, never a 16-bit one slower than float32; bfloat16 on GPUs that
  compute it, else float16; see :mod:`negkit.models.fast_dtype`; exact runs ask for float32, as :mod:`negkit.commands.eval.evaluate` decides);
- ``quantize``: ``8bit`` or ``4bit`` through bitsandbytes (TIND's Table 9 loaded its largest models so),
  which needs the ``bitsandbytes`` package and a CUDA GPU; it changes the answers, so the model's
  fingerprint records it;
- loader options (``--model-args``, see :data:`LOADER_ARGS`): revision, attention implementation,
  ``device_map`` (``auto`` shards a model over the visible GPUs and offloads what does not fit to CPU memory
  or to ``offload_folder``), ``max_memory``, remote code only with ``trust_remote_code=true``, ...

What was resolved is returned as ``load_info`` (recorded in every results file under ``model.load``);
the device is recorded there but not in the fingerprint, so a run resumes on another device.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any

import torch

from negkit.errors import NegkitError
from negkit.models.fast_dtype import choose_fast_dtype
from negkit.models.loader_options import FLAG_ARGS, LOADER_ARGS, check_options

__all__ = ["FLAG_ARGS", "LOADER_ARGS", "check_options", "load_pretrained"]

DTYPES: dict[str, torch.dtype] = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
#: ``--dtype`` values (``auto`` is resolved per device by :func:`resolve_dtype_name`).
DTYPE_CHOICES = ("auto", "checkpoint", *DTYPES)
QUANTIZE_CHOICES = ("8bit", "4bit")

_BNB_KEYS = ("bnb_4bit_quant_type", "bnb_4bit_use_double_quant", "llm_int8_threshold")


def resolve_device(device: str | None) -> str:
    """``auto``/``None`` -> ``cuda`` when a GPU is visible (else ``mps``, else ``cpu``); an explicit GPU that is
    not there is a clear error."""
    name = (device or "auto").strip().lower()
    if name == "auto":
        if torch.cuda.is_available():
            return "cuda:0"
        if _mps_available():
            return "mps"
        return "cpu"
    if name == "cpu":
        return "cpu"
    if name == "mps":
        if not _mps_available():
            raise NegkitError("--device mps: no Apple GPU (MPS) is available to torch here")
        return "mps"
    if name == "cuda" or name.startswith("cuda:"):
        if not torch.cuda.is_available():
            raise NegkitError(
                f"--device {name}: no CUDA GPU is visible to torch here "
                f"(torch {torch.__version__}, CUDA build: {torch.version.cuda or 'no'}); use --device cpu"
            )
        index = name.partition(":")[2]
        if index and (not index.isdigit() or int(index) >= torch.cuda.device_count()):
            raise NegkitError(
                f"--device {name}: there are {torch.cuda.device_count()} visible GPUs (cuda:0.."
                f"cuda:{torch.cuda.device_count() - 1})"
            )
        return f"cuda:{int(index) if index else 0}"
    raise NegkitError(f"unknown device {device!r}; use cpu, cuda, cuda:N, mps or auto")


def _mps_available() -> bool:
    backend = getattr(torch.backends, "mps", None)
    return bool(backend is not None and backend.is_available())


def resolve_dtype_name(dtype: str | None, device: str) -> str:
    """``auto`` -> bfloat16 on the CPU and on GPUs that compute it, else float16; other names checked."""
    name = dtype or "auto"
    if name == "auto":
        if device.startswith("cuda") and not torch.cuda.is_bf16_supported():
            return "float16"
        return "bfloat16"
    if name not in DTYPES:
        raise NegkitError(f"unknown dtype {name!r}; choose one of {', '.join(DTYPE_CHOICES)}")
    return name


def checkpoint_dtype(config: Any) -> str:
    """The dtype a model's configuration says its weights were saved in (float32 when it says none negkit
    computes in, e.g. float64 or nothing)."""
    saved = getattr(config, "dtype", None) or getattr(config, "torch_dtype", None)
    name = str(saved).removeprefix("torch.") if saved is not None else "float32"
    return name if name in DTYPES else "float32"


def checkpoint_dtype_of(name: str, options: dict[str, Any]) -> str:
    """The dtype the checkpoint ``name`` was saved in (its configuration, read with the loader's revision and
    remote-code options): ``--dtype checkpoint``."""
    return checkpoint_dtype(_config(name, options))


def quantization_config(quantize: str | None, dtype: str, options: dict[str, Any]) -> Any:
    """A ``transformers.BitsAndBytesConfig`` for ``--quantize`` (``None`` without it); clear errors when
    bitsandbytes or a CUDA GPU is missing."""
    if quantize is None:
        stray = [key for key in _BNB_KEYS if key in options]
        if stray:
            raise NegkitError(f"--model-args {', '.join(stray)} only apply with --quantize 8bit|4bit")
        return None
    if quantize not in QUANTIZE_CHOICES:
        raise NegkitError(f"--quantize must be 8bit or 4bit, got {quantize!r}")
    try:
        import bitsandbytes  # noqa: F401
    except ImportError:
        raise NegkitError(
            f"--quantize {quantize} needs the bitsandbytes package (pip install 'negkit[quant]')"
        ) from None
    if not torch.cuda.is_available():
        raise NegkitError(f"--quantize {quantize} needs a CUDA GPU (bitsandbytes' k-bit kernels); none is visible here")
    from transformers import BitsAndBytesConfig  # heavy: off the start-up path

    if quantize == "8bit":
        return BitsAndBytesConfig(load_in_8bit=True, llm_int8_threshold=float(options.get("llm_int8_threshold", 6.0)))
    return BitsAndBytesConfig(
        load_in_4bit=True,
        bnb_4bit_compute_dtype=DTYPES[dtype],
        bnb_4bit_quant_type=str(options.get("bnb_4bit_quant_type", "nf4")),
        bnb_4bit_use_double_quant=bool(options.get("bnb_4bit_use_double_quant", False)),
    )


def quantization_label(quantize: str | None, options: dict[str, Any]) -> str | None:
    """A short stable name of the quantization (fingerprinted: it changes the answers)."""
    if quantize is None:
        return None
    if quantize == "8bit":
        return f"bitsandbytes-8bit-t{float(options.get('llm_int8_threshold', 6.0)):g}"
    double = "-double" if options.get("bnb_4bit_use_double_quant") else ""
    return f"bitsandbytes-4bit-{options.get('bnb_4bit_quant_type', 'nf4')}{double}"


def parse_max_memory(value: Any) -> dict[Any, str]:
    """``[0:20GiB,cpu:64GiB]`` (or one such string) -> ``{0: "20GiB", "cpu": "64GiB"}``."""
    entries = value if isinstance(value, list) else [value]
    memory: dict[Any, str] = {}
    for entry in entries:
        device, separator, size = str(entry).partition(":")
        if not separator or not size.strip():
            raise NegkitError(
                f"--model-args max_memory entries are DEVICE:SIZE (e.g. 0:20GiB, cpu:64GiB), got {entry!r}"
            )
        device = device.strip()
        memory[int(device) if device.isdigit() else device] = size.strip()
    return memory


def pretrained_kwargs(dtype: str, device: str, quantize: str | None, options: dict[str, Any]) -> dict[str, Any]:
    """Keyword arguments for ``from_pretrained`` (the model; the tokenizer takes revision/subfolder/remote code)."""
    kwargs: dict[str, Any] = {"dtype": DTYPES[dtype]}
    for key in ("revision", "subfolder", "variant", "attn_implementation", "offload_folder", "low_cpu_mem_usage"):
        if options.get(key) is not None:
            kwargs[key] = options[key]
    if options.get("trust_remote_code") is True:
        kwargs["trust_remote_code"] = True
    elif options.get("trust_remote_code") not in (None, False):
        raise NegkitError("--model-args trust_remote_code takes true or false")
    if options.get("device_map") is not None:
        kwargs["device_map"] = options["device_map"]
    if options.get("max_memory") is not None:
        if "device_map" not in kwargs:
            raise NegkitError("--model-args max_memory needs device_map (e.g. device_map=auto)")
        kwargs["max_memory"] = parse_max_memory(options["max_memory"])
    config = quantization_config(quantize, dtype, options)
    if config is not None:
        kwargs["quantization_config"] = config
        kwargs.setdefault("device_map", {"": device})  # quantized weights are placed while loading
    return kwargs


def load_pretrained(
    auto_class_name: str,
    name: str,
    dtype: str | None,
    backend: str,
    device: str | None = None,
    quantize: str | None = None,
    **options: Any,
) -> tuple[Any, Any, Any, dict[str, Any]]:
    """Model (``transformers.<auto_class_name>``), tokenizer, fingerprint and load info of a folder or hub
    name (see the module documentation for the arguments)."""
    import transformers  # heavy: off the start-up path

    from negkit.models.hf_common import fingerprint_for  # loads torch: off the start-up path

    if options.get("device_map") is not None and device not in (None, "auto"):
        raise NegkitError("give either --device or --model-args device_map (which places the model itself), not both")
    resolved_device = resolve_device(device) if options.get("device_map") is None else "auto"
    compute_device = resolved_device if resolved_device != "auto" else resolve_device("auto")
    dtype_choice = None
    if dtype == "checkpoint":  # the dtype the weights were saved in (transformers' dtype="auto"; the Harness's)
        dtype_name = checkpoint_dtype_of(name, options)
    elif (dtype or "auto") == "auto" and quantize is None:  # fast mode's own choice, timed on this machine
        dtype_name, dtype_choice = choose_fast_dtype(_config(name, options), compute_device, auto_class_name)
    else:
        dtype_name = resolve_dtype_name(dtype, compute_device)
    kwargs = pretrained_kwargs(dtype_name, resolved_device, quantize, options)
    tokenizer_kwargs = {key: kwargs[key] for key in ("revision", "subfolder", "trust_remote_code") if key in kwargs}
    tokenizer_name = options.get("tokenizer") or name
    recorded = {key: _jsonable(value) for key, value in kwargs.items() if key != "quantization_config"}
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(tokenizer_name, **tokenizer_kwargs)
        model = getattr(transformers, auto_class_name).from_pretrained(name, **kwargs)
    except (OSError, ValueError) as error:
        text = str(error).strip()
        first = (text.splitlines()[0] if text else type(error).__name__)[:300]
        raise NegkitError(f"{name}: cannot load the model ({first})") from None
    if "device_map" not in kwargs:
        model.to(resolved_device)
    fingerprint = fingerprint_for(backend, model, name, dtype_name, options.get("revision"))
    label = quantization_label(quantize, options)
    if label:
        fingerprint = replace(fingerprint, extra=(*fingerprint.extra, ("quantization", label)))
    info = {
        "backend": backend,
        "device": str(input_device_of(model)),
        "device_map": placement_summary(model),
        "dtype": dtype_name,
        "dtype_requested": dtype or "auto",
        "quantization": label,
        "loader": recorded,
    }
    if dtype_choice is not None:
        info["fast_dtype"] = dtype_choice
    if options.get("tokenizer"):
        info["tokenizer"] = options["tokenizer"]
    return model, tokenizer, fingerprint, info


def _config(name: str, options: dict[str, Any]) -> Any:
    """The model's configuration (for fast mode's calibration), with the loader's revision and remote-code options."""
    import transformers  # heavy: kept off negkit's start-up path

    kwargs = {key: options[key] for key in ("revision", "subfolder") if options.get(key) is not None}
    if options.get("trust_remote_code") is True:
        kwargs["trust_remote_code"] = True
    try:
        return transformers.AutoConfig.from_pretrained(name, **kwargs)
    except (OSError, ValueError) as error:
        text = str(error).strip()
        raise NegkitError(
            f"{name}: cannot load the model configuration ({(text.splitlines()[0] if text else type(error).__name__)[:300]})"
        ) from None


def input_device_of(model: Any) -> torch.device:
    """Where a model's inputs go (see :func:`negkit.engine.placement.input_device`)."""
    from negkit.engine.placement import input_device  # loads torch: off the start-up path

    return input_device(model)


def placement_summary(model: Any) -> dict[str, int] | None:
    """For a model sharded with ``device_map``: how many modules went to each device (else ``None``)."""
    device_map = getattr(model, "hf_device_map", None)
    if not device_map:
        return None
    counts = Counter(str(f"cuda:{where}" if isinstance(where, int) else where) for where in device_map.values())
    return dict(sorted(counts.items()))


def _jsonable(value: Any) -> Any:
    if isinstance(value, torch.dtype):
        return str(value).removeprefix("torch.")
    if isinstance(value, dict):
        return {str(key): _jsonable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(item) for item in value]
    return value if isinstance(value, (str, int, float, bool)) or value is None else str(value)
