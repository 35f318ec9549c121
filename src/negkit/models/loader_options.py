"""The ``--model-args`` keys of the transformers backends and their check: what a command needs before any model
loads (no torch here, so that ``negkit --help`` and a baseline run work without the models extra)."""

from __future__ import annotations

from typing import Any

from negkit.errors import NegkitError, shortened

#: ``--model-args`` keys every transformers backend accepts: key -> what it does.
LOADER_ARGS: dict[str, str] = {
    "revision": "hub branch, tag or commit to load",
    "subfolder": "folder inside the repository or path that holds the model",
    "variant": "weights variant (e.g. fp16 for model.fp16.safetensors)",
    "tokenizer": "tokenizer folder or hub name, when it is not the model's",
    "attn_implementation": "attention kernel: eager, sdpa, flash_attention_2, ...",
    "device_map": "auto | balanced | balanced_low_0 | sequential | cpu | cuda:N: shard the model over the "
    "visible GPUs (what does not fit goes to CPU memory, then to offload_folder)",
    "max_memory": "memory per device for device_map, e.g. [0:20GiB,1:20GiB,cpu:64GiB]",
    "offload_folder": "folder for weights that fit neither on the GPUs nor in CPU memory",
    "low_cpu_mem_usage": "true/false: load weights without a full copy in CPU memory",
    "trust_remote_code": "true to run the model repository's own Python code (never by default)",
    "bnb_4bit_quant_type": "4-bit data type with --quantize 4bit: nf4 (default) or fp4",
    "bnb_4bit_use_double_quant": "true/false: quantize the 4-bit quantization constants too",
    "llm_int8_threshold": "outlier threshold with --quantize 8bit (default 6.0)",
}
#: Options that come from negkit's own flags (--device, --quantize, --batch-size) or the Python API.
FLAG_ARGS: dict[str, str] = {
    "device": "cpu | cuda | cuda:N | mps | auto (--device)",
    "quantize": "8bit | 4bit through bitsandbytes (--quantize)",
    "batch_size": "largest batch (--batch-size; None: automatic)",
}


def check_options(backend: str, options: dict[str, Any], known: dict[str, str]) -> None:
    """A :class:`NegkitError` naming every unknown key and listing the known ones."""
    unknown = sorted(set(options) - set(known))
    if unknown:
        listing = ", ".join(sorted(known))
        raise NegkitError(
            f"--model-args: unknown key{'s' if len(unknown) > 1 else ''} {', '.join(shortened(key, 60) for key in unknown)} "
            f"for the {backend} backend; known keys: {listing}"
        )


def gpu_visible(device: str | None, device_map: Any = None) -> bool:
    """Whether a transformers model would be placed on a CUDA GPU: ``--device cuda[:N]``, or no device (``auto``)
    while torch sees one (False without torch, or with ``device_map=cpu``)."""
    if device not in (None, "auto"):
        return str(device).startswith("cuda")
    if device_map is not None and str(device_map) == "cpu":
        return False
    try:
        import torch  # only when a model loads anyway
    except ImportError:
        return False
    return bool(torch.cuda.is_available())
