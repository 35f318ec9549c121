"""What every fine-tuning run does around the Trainer: claim the output folder for one plan, resume from the last
complete checkpoint, pick the best step, write the training log and summarise the session."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from negkit.errors import NegkitError
from negkit.io.atomic import atomic_write_json, make_folder
from negkit.io.locks import LOCK_FILE
from negkit.training import record
from negkit.training.callbacks import (
    NonFiniteWeights,
    best_guard_step,
    best_step,
    complete_checkpoints,
    remove_torn_checkpoints,
    write_log,
)
from negkit.training.trainer import padded_attention_kernels, throughput


def output_folder(out: str | Path) -> Path:
    """The output folder as a path; an error when it names a file."""
    path = Path(out)
    if path.exists() and not path.is_dir():
        raise NegkitError(f"--out {path} is a file, not a folder")
    return path


def claim(out: Path, plan: dict[str, Any]) -> dict[str, Any] | None:
    """Tie ``out`` to ``plan``: the finished record when this plan already completed there (nothing to do), else
    None after writing the plan; an error when ``out`` holds another plan, or files of no plan (nothing is
    overwritten)."""
    make_folder(out)
    resuming = record.check_plan(out, plan)
    if not resuming:
        others = sorted(path.name for path in out.iterdir() if path.name != LOCK_FILE)
        if others:  # e.g. an adapter saved by another tool: never overwritten
            raise NegkitError(
                f"{out}: the folder holds files that are not a negkit fine-tuning run ({', '.join(others[:5])}"
                f"{', ...' if len(others) > 5 else ''}); use another --out or an empty folder"
            )
    finished = record.read_json(out / record.TRAINING_RECORD)
    if resuming and finished and finished.get("status") == "complete":
        return finished
    atomic_write_json(out / record.PLAN_FILE, plan)
    return None


def train_resumably(
    trainer: Any, out: Path, has_dev: bool, threshold: float, started: float, select_by: str = "dev-loss"
) -> dict[str, Any]:
    """Train from the newest complete checkpoint (or from scratch); write the log; return the session summary.

    ``summary["best_step"]`` is, when there is development data, the step with the lowest development loss, or
    with ``select_by="worst-format"`` the step whose worst format is best (a mix's guards), with the reason in
    ``summary["selection"]`` (the caller restores that checkpoint's weights when it is not the last step)."""
    checkpoints = out / record.CHECKPOINTS
    remove_torn_checkpoints(checkpoints)
    complete = complete_checkpoints(checkpoints)
    resume_from = complete[-1] if complete else None
    prepare_seconds = time.perf_counter() - started
    with padded_attention_kernels(str(trainer.args.device)):
        trainer.train(resume_from_checkpoint=str(resume_from) if resume_from else None)
    state = trainer.state
    history = [entry for entry in state.log_history if "train_loss" not in entry]  # the session-only summary
    write_log(history, out / record.TRAIN_LOG, out / record.TRAIN_LOG_CSV)
    stop_if_diverged(trainer, checkpoints)
    best = best_step(history, threshold) if has_dev else None
    reason: dict[str, Any] | None = {"criterion": "lowest development loss"} if best is not None else None
    if has_dev and select_by == "worst-format":
        chosen = best_guard_step(history)
        best, reason = chosen if chosen else (None, None)
    budget = any(getattr(callback, "stopped", False) for callback in trainer.callback_handler.callbacks)
    evaluations = [entry["eval_loss"] for entry in history if "eval_loss" in entry]
    return {
        "global_step": state.global_step,
        "max_steps": state.max_steps,
        "epoch": state.epoch,
        "stopped_by_time_budget": budget,
        "stopped_early": has_dev and not budget and state.global_step < state.max_steps,
        "best_step": best,
        "selection": reason,
        "saved_step": best if best is not None else state.global_step,
        "train_loss": mean_train_loss(history),
        "final_eval_loss": evaluations[-1] if evaluations else None,
        "best_eval_loss": min(evaluations) if evaluations else None,
        "resumed_from_step": int(resume_from.name.rsplit("-", 1)[1]) if resume_from else None,
        "tokens_seen": state.num_input_tokens_seen,
        **throughput(trainer),
        "prepare_seconds": round(prepare_seconds, 2),
        "session_seconds": round(time.perf_counter() - started, 2),
    }


def stop_if_diverged(trainer: Any, checkpoints: Path) -> None:
    """A clear error when the weights stopped being finite (:class:`NonFiniteWeights`): no adapter is written, and
    the checkpoints saved before that step, the training log and the plan stay, so nothing computed is lost."""
    step = next(
        (
            callback.diverged_at
            for callback in trainer.callback_handler.callbacks
            if isinstance(callback, NonFiniteWeights)
        ),
        None,
    )
    if step is None:
        return
    kept = complete_checkpoints(checkpoints)
    last = f"the newest checkpoint before it is {kept[-1]}" if kept else "no checkpoint was saved before it"
    raise NegkitError(
        f"the training diverged at step {step}: the trainable weights hold NaN or infinite values after it, so no "
        f"adapter was written ({last}; the log is train_log.jsonl). Try a lower --learning-rate or --dtype float32"
    )


def status(summary: dict[str, Any]) -> str:
    """``stopped`` when a time budget ended the session (the same command resumes it), else ``complete``."""
    return "stopped" if summary["stopped_by_time_budget"] else "complete"


def mean_train_loss(history: list[dict[str, Any]]) -> float | None:
    """The mean training loss over every step (each log entry covers the steps since the previous one); the same
    for a resumed run as for an uninterrupted one, unlike the Trainer's per-session figure."""
    total = steps = 0.0
    previous = 0
    for entry in history:
        if "loss" in entry:
            span = int(entry["step"]) - previous
            total += float(entry["loss"]) * span
            steps += span
            previous = int(entry["step"])
    return total / steps if steps else None
