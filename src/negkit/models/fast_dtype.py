"""Which dtype ``--mode fast`` computes in on this machine: a short calibration, cached per machine.

16-bit arithmetic is not faster on every CPU: where the CPU has AMX tiles (or another fast bfloat16 path) a
bfloat16 matmul runs several times faster than a float32 one, but on a CPU with AVX-512 BF16 and no AMX it ran at
half float32's rate (182 against 349 GFLOP/s), and float16 is emulated on many CPUs. So on the CPU fast mode
times a forward pass of a one-layer copy of the model's architecture (the model's own shapes and code, random
weights, a batch of :data:`ROWS` x :data:`TOKENS` tokens, as the engine's CPU token budget gives) in float32,
bfloat16 and float16, the dtypes in turn (CPU seconds of the process, which the load of other jobs hardly
changes), and takes the fastest; a 16-bit dtype only when it is faster than
float32 by :data:`MARGIN` at least, so fast mode is never slower than exact mode (which runs in float32). Where
the one-layer model cannot be built, square matmuls at the model's hidden and intermediate sizes are timed
instead.

The choice is cached in ``$NEGKIT_CACHE/fast-dtype.json`` (``NEGKIT_FAST_DTYPE_CACHE`` names another file), keyed by
the CPU (model name and instruction-set flags), torch version, torch threads and the model's shapes; the load info
of the model (written to every results file under ``model.load.fast_dtype``) records the dtype chosen, the
seconds measured and why. On a GPU fast mode takes bfloat16 where the GPU computes it, else float16 (no timing).
An explicit ``--dtype`` is never overridden.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from negkit.models.fingerprints import cache_dir

#: The dtypes fast mode chooses from, float32 (exact mode's) first.
CANDIDATES = ("float32", "bfloat16", "float16")
#: A 16-bit dtype is chosen only when its time is at most this fraction of float32's.
MARGIN = 0.9
#: The calibration batch: rows x tokens (1,024 tokens, the engine's CPU token budget).
ROWS, TOKENS = 4, 256
#: Timed rounds (every dtype once per round, in turn; the fastest round of each counts).
ROUNDS = 5
#: Bumped when the calibration changes, so that older cached choices are not reused.
VERSION = 1


def cache_file() -> Path:
    """Where the choices are cached: ``NEGKIT_FAST_DTYPE_CACHE``, else ``fast-dtype.json`` in negkit's cache."""
    override = os.environ.get("NEGKIT_FAST_DTYPE_CACHE")
    return Path(override) if override else cache_dir() / "fast-dtype.json"


def cpu_description() -> dict[str, Any]:
    """The CPU's model name and a digest of its instruction-set flags (Linux ``/proc/cpuinfo``), else platform's."""
    name, flags = "", ""
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name" and not name:
                name = value.strip()
            elif key.strip() in ("flags", "Features") and not flags:
                flags = " ".join(sorted(value.split()))
    except OSError:
        pass
    name = name or platform.processor() or platform.machine()
    wanted = [flag for flag in flags.split() if flag.startswith(("avx", "amx", "fma", "f16c", "sve", "asimd"))]
    return {
        "cpu": name,
        "flags_sha256": hashlib.sha256(flags.encode()).hexdigest()[:16],
        "matmul_flags": wanted,
        "capability": _cpu_capability(),
    }


def _cpu_capability() -> str:
    try:
        return str(torch.backends.cpu.get_cpu_capability())
    except Exception:  # noqa: BLE001 - older torch
        return "unknown"


def model_shapes(config: Any) -> dict[str, Any]:
    """The parts of a model configuration that decide its matmul shapes."""
    text = config.get_text_config() if hasattr(config, "get_text_config") else config
    keys = (
        "model_type",
        "hidden_size",
        "intermediate_size",
        "num_attention_heads",
        "num_key_value_heads",
        "head_dim",
        "d_model",
        "d_ff",
        "n_embd",
        "n_head",
    )
    return {key: getattr(text, key) for key in keys if isinstance(getattr(text, key, None), (int, str))}


def choose_fast_dtype(
    config: Any, device: str, auto_class_name: str = "AutoModelForCausalLM"
) -> tuple[str, dict[str, Any]]:
    """Fast mode's dtype on ``device`` for a model of ``config``, and what to record about the choice."""
    if device.startswith("cuda"):
        chosen = "bfloat16" if torch.cuda.is_bf16_supported() else "float16"
        return chosen, {"chosen": chosen, "reason": f"GPU: {chosen}, the GPU's 16-bit type (not timed)"}
    if device != "cpu":
        return "bfloat16", {"chosen": "bfloat16", "reason": f"{device}: bfloat16 (not timed)"}
    key_fields = {
        "version": VERSION,
        **cpu_description(),
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        "shapes": model_shapes(config),
    }
    key = hashlib.sha256(json.dumps(key_fields, sort_keys=True).encode()).hexdigest()
    cached = _read_cache().get(key)
    if isinstance(cached, dict) and cached.get("chosen") in CANDIDATES:
        return cached["chosen"], {**cached, "cached": True}
    seconds, workload = calibrate(config, auto_class_name)
    chosen, reason = decide(seconds)
    entry = {
        "chosen": chosen,
        "reason": reason,
        "seconds": {name: round(value, 6) for name, value in seconds.items()},
        "margin": MARGIN,
        "workload": workload,
        "machine": key_fields,
        "measured_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "load_average": _load_average(),
    }
    _write_cache(key, entry)
    return chosen, {**entry, "cached": False}


def decide(seconds: dict[str, float]) -> tuple[str, str]:
    """The fastest dtype, a 16-bit one only when it takes at most :data:`MARGIN` of float32's time; and why."""
    base = seconds["float32"]
    fastest = min((name for name in seconds if name != "float32"), key=lambda name: seconds[name], default=None)
    figures = ", ".join(f"{name} {1000 * value:.1f} CPU ms" for name, value in seconds.items())
    if fastest is not None and seconds[fastest] <= MARGIN * base:
        return fastest, f"{fastest} is {base / seconds[fastest]:.2f}x as fast as float32 here ({figures})"
    return "float32", (
        f"no 16-bit dtype is at least {1 / MARGIN:.2f}x as fast as float32 here ({figures}); "
        "fast mode computes in float32 (never slower than exact mode)"
    )


def calibrate(config: Any, auto_class_name: str) -> tuple[dict[str, float], str]:
    """CPU seconds of one calibration step per candidate dtype (the fastest of :data:`ROUNDS` rounds, the dtypes
    interleaved so that a change in the machine's load touches all of them), and a description of the step.
    CPU time, not wall time: on a machine shared with other jobs the wall time of a step is mostly waiting."""
    steps: dict[str, Callable[[], None]] = {}
    workload = f"one-layer {model_shapes(config).get('model_type', 'model')}, {ROWS} x {TOKENS} tokens"
    for name in CANDIDATES:
        dtype = getattr(torch, name)
        try:
            steps[name] = forward_step(config, dtype, auto_class_name)
        except Exception:  # noqa: BLE001 - an architecture that cannot be built small: time matmuls instead
            steps = {name: matmul_step(config, getattr(torch, name)) for name in CANDIDATES}
            workload = "matmuls at the model's hidden and intermediate sizes"
            break
    best = {name: float("inf") for name in steps}
    for step in steps.values():  # warm-up
        step()
    for _ in range(ROUNDS):
        for name, step in steps.items():
            started = time.process_time()
            step()
            best[name] = min(best[name], time.process_time() - started)
    return best, workload + " (CPU seconds of this process: other processes' load hardly changes them)"


def forward_step(config: Any, dtype: torch.dtype, auto_class_name: str) -> Callable[[], None]:
    """A forward pass of a one-layer model of ``config`` in ``dtype`` on a :data:`ROWS` x :data:`TOKENS` batch."""
    import copy

    import transformers  # heavy: kept off negkit's start-up path

    small = copy.deepcopy(config)
    text = small.get_text_config() if hasattr(small, "get_text_config") else small
    for attribute in ("num_hidden_layers", "num_layers", "num_decoder_layers", "n_layer", "n_layers"):
        if isinstance(getattr(text, attribute, None), int):
            setattr(text, attribute, 1)
    if isinstance(getattr(text, "layer_types", None), list):
        text.layer_types = text.layer_types[:1]
    vocab = 512
    text.vocab_size = vocab  # the engine runs the LM head on scored positions only: a small head is closer
    for attribute in ("pad_token_id", "bos_token_id", "eos_token_id", "decoder_start_token_id"):
        if isinstance(getattr(text, attribute, None), int) and getattr(text, attribute) >= vocab:
            setattr(text, attribute, 0)
    torch.manual_seed(0)
    model = getattr(transformers, auto_class_name).from_config(small, dtype=dtype).eval()
    ids = torch.randint(1, vocab, (ROWS, TOKENS))
    kwargs: dict[str, Any] = {"input_ids": ids, "attention_mask": torch.ones_like(ids)}
    if getattr(small, "is_encoder_decoder", False):
        kwargs["decoder_input_ids"] = ids[:, :8]
    else:
        kwargs["use_cache"] = False

    def step() -> None:
        with torch.inference_mode():
            model(**kwargs)

    step()  # fails here, not while timing, when the model cannot run
    return step


def matmul_step(config: Any, dtype: torch.dtype) -> Callable[[], None]:
    """The two MLP matmuls of one layer at the model's sizes for :data:`ROWS` x :data:`TOKENS` tokens."""
    shapes = model_shapes(config)
    hidden = int(shapes.get("hidden_size") or shapes.get("d_model") or shapes.get("n_embd") or 1024)
    inner = int(shapes.get("intermediate_size") or shapes.get("d_ff") or 4 * hidden)
    generator = torch.Generator().manual_seed(0)
    tokens = torch.randn(ROWS * TOKENS, hidden, generator=generator).to(dtype)
    up = torch.randn(hidden, inner, generator=generator).to(dtype)
    down = torch.randn(inner, hidden, generator=generator).to(dtype)

    def step() -> None:
        (tokens @ up) @ down

    return step


def _load_average() -> list[str]:
    try:
        return Path("/proc/loadavg").read_text().split()[:3]
    except OSError:
        return []


def _read_cache() -> dict[str, Any]:
    try:
        data = json.loads(cache_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # absent or damaged: calibrate again
    return data if isinstance(data, dict) else {}


def _write_cache(key: str, entry: dict[str, Any]) -> None:
    """Add ``entry`` to the cache file (written whole to a temporary file and renamed; a cache that cannot be
    written only means calibrating again next time)."""
    path = cache_file()
    data = _read_cache()
    data[key] = entry
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=".tmp-fast-dtype-", dir=path.parent)
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(data, out, indent=1, sort_keys=True)
        os.replace(temporary, path)
    except OSError:
        pass
