"""The options of a ``negkit eval`` run (:class:`EvalOptions`) and the small rules read from them: the modes,
each task's item limit, the dtype a mode runs in, and what the model loader gets.

It sits at the bottom of :mod:`negkit.commands.eval`: the pipeline (:mod:`negkit.commands.eval.evaluate`), its checks
(:mod:`negkit.commands.eval.preflight`), the flags (:mod:`negkit.commands.eval.flags`) and the exporters all read it, and it imports
none of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from negkit.errors import NegkitError
from negkit.kit.metrics.intervals import DEFAULT_RESAMPLES
from negkit.runs.runner import DEFAULT_CHUNK_SIZE, DEFAULT_COMMIT_SECONDS

MODES = ("exact", "fast")


@dataclass
class EvalOptions:
    """Everything ``negkit eval`` takes besides the model and the tasks."""

    data: str | None = None
    split: str = "test"
    #: About this many items per task (a float in (0, 1): that share of the items); a mapping gives per-task
    #: limits (tasks not named run in full).
    limit: int | float | dict[str, int | float] | None = None
    #: Seed of splits, samples and few-shot draws (None: 0, and a paper's own few-shot seeds for a task that has
    #: them; a seed given replaces those by itself).
    seed: int | None = None
    batch_size: int | None = None
    #: ``float32``, ``bfloat16``, ``float16`` or ``auto`` (exact mode: float32 only; fast mode: auto by default).
    dtype: str | None = None
    #: ``exact`` or ``fast``; None: exact on the CPU, fast in the checkpoint's dtype on a GPU
    #: (:func:`negkit.commands.eval.harness.resolve_mode`).
    mode: str | None = None
    #: ``cpu``, ``cuda``, ``cuda:N``, ``mps`` or ``auto`` (None: auto; under a launcher: each rank's own GPU).
    device: str | None = None
    #: ``8bit`` or ``4bit`` (bitsandbytes; fast mode, CUDA GPU).
    quantize: str | None = None
    #: OpenAI-compatible servers: seconds to wait for an answer, and tries after a failure (None: the backend's).
    timeout: float | None = None
    retries: int | None = None
    out: str | Path | None = None
    progress: bool = True
    command: Sequence[str] | None = None
    #: Requests per durable write to the run store at most (at most this much work is redone after a kill).
    chunk_size: int = DEFAULT_CHUNK_SIZE
    #: Seconds of model work per durable write to the run store, about (whichever of the two comes first).
    commit_seconds: float = DEFAULT_COMMIT_SECONDS
    #: Seconds to wait for another run that holds the output folder's lock (0: refuse at once).
    wait_lock: float = 0.0
    #: Write a task's private fields (a data set kept encrypted) into per-sample files even inside a git working tree
    #: (default: their SHA-256 there).
    allow_in_git: bool = False
    #: Remove the output folder's negkit run files before the run (a folder holds one model: without this, a folder
    #: holding another model's tasks is refused).
    start_over: bool = False
    #: Constructor options per task name, e.g. ``{"TASK": {"prompt": "7", "num_fewshot": 5}}``.
    task_options: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Options for the model loader (``--model-args``, see :mod:`negkit.models.model_args`).
    model_args: dict[str, Any] = field(default_factory=dict)
    #: Generation settings of the tasks that generate (``--gen-kwargs``: ``max_gen_toks``, ``until``); None: each
    #: task's own.
    gen_kwargs: dict[str, Any] | None = None
    #: A LoRA adapter folder (``negkit finetune`` output or any PEFT adapter) put on the model before any task.
    adapter: str | Path | None = None
    #: Merge the adapter into the weights in memory (same answers, faster); False keeps separate LoRA layers.
    merge_adapter: bool = True
    # The LM Evaluation Harness's task flags (see :mod:`negkit.commands.eval.flags`); None: each task's default.
    #: Few-shot examples: one count for every task, or per task.
    num_fewshot: int | dict[str, int] | None = None
    #: Prompt id: one for every task, or per task.
    prompt: str | dict[str, str] | None = None
    #: True: apply the model's chat template; False: never; None: each task's default.
    chat: bool | None = None
    #: A system message (chat), or text put before the prompt and a blank line (plain prompts).
    system_instruction: str | None = None
    #: A named conversation template (:mod:`negkit.models.conversation`) that replaces the tokenizer's chat template
    #: wherever a task applies one; recorded in the model's fingerprint.
    conversation_template: str | None = None
    #: The benchmarks' own task options set by their flags (:class:`negkit.kit.suites.TaskFlag`), e.g.
    #: ``{"bos": "none"}``; options not named: each task's default.
    task_flags: dict[str, Any] = field(default_factory=dict)
    #: Suites left out because their data was not found (suite -> how to get it), recorded in results.json.
    skipped: dict[str, str] = field(default_factory=dict)
    #: Bootstrap resamples for the 95% confidence intervals of every metric (0: no intervals), and their seed.
    bootstrap: int = DEFAULT_RESAMPLES
    bootstrap_seed: int = 0


def task_limit(limit: int | float | dict[str, int | float] | None, task_name: str) -> int | float | None:
    """The item limit of ``task_name``: one number for every task, or a per-task mapping."""
    if isinstance(limit, dict):
        return limit.get(task_name)
    return limit


def resolve_dtype_for_mode(mode: str | None, dtype: str | None, quantize: str | None = None) -> str:
    """Exact mode runs in float32 (another dtype, or quantized weights, is an error); fast mode defaults to
    ``auto`` (bfloat16, or float16 on GPUs without bfloat16)."""
    mode = mode or "exact"
    if mode not in MODES:
        raise NegkitError(f"unknown mode {mode!r}; choose exact or fast")
    if mode == "exact":
        if dtype not in (None, "auto", "float32"):
            raise NegkitError(f"exact mode runs in float32; use --mode fast for --dtype {dtype}")
        if quantize is not None:
            raise NegkitError(
                f"--quantize {quantize} computes in 16 bits; add --mode fast (exact mode runs in float32)"
            )
        return "float32"
    return dtype or "auto"


def model_options(options: EvalOptions) -> dict[str, Any]:
    """What ``load_model`` gets: the flags (batch size, device, quantization) and ``--model-args``; a key given
    both ways is an error."""
    flags = {
        "batch_size": options.batch_size,
        "device": options.device,
        "quantize": options.quantize,
        "timeout": options.timeout,
        "retries": options.retries,
    }
    both = sorted(key for key, value in flags.items() if value is not None and key in options.model_args)
    if both:
        raise NegkitError(f"{', '.join(both)} given both as a flag and in --model-args; give it once")
    merged = {key: value for key, value in flags.items() if value is not None or key == "batch_size"}
    # a server's own defaults are recorded in its load_info; other backends never see the server options
    merged.update(options.model_args)
    return merged
