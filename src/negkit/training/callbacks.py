"""Trainer callbacks: checkpoints that survive ``kill -9``, the training log, progress on stderr, early stopping.

Checkpoints: the Trainer writes ``checkpoints/checkpoint-N/`` non-atomically. :class:`DurableCheckpoints` makes a
checkpoint count only once it is complete: after the Trainer's save it ``fsync``-s every file and then writes the
marker ``checkpoint-N/COMPLETE`` atomically; a resumed run starts from the newest marked checkpoint and removes
unmarked (torn) ones. Old checkpoints are removed only after a newer one is marked, and the best one by
development loss is kept. Saves happen every ``save_steps`` optimizer steps and at least every ``save_seconds``.

Early stopping and the best step are derived from the evaluation entries of ``state.log_history``, which the
Trainer restores on resume, so they carry over a kill exactly.
"""

from __future__ import annotations

import csv
import io
import os
import re
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tqdm import tqdm
from transformers import TrainerCallback

from negkit.io.atomic import atomic_write_jsonl, atomic_write_text, fsync_folder

COMPLETE_MARKER = "COMPLETE"
_CHECKPOINT_RE = re.compile(r"checkpoint-(\d+)")


def checkpoint_step(path: Path) -> int | None:
    match = _CHECKPOINT_RE.fullmatch(path.name)
    return int(match.group(1)) if match else None


def complete_checkpoints(folder: Path) -> list[Path]:
    """Marked checkpoints in ``folder``, oldest first."""
    if not folder.is_dir():
        return []
    found = [
        path
        for path in folder.iterdir()
        if path.is_dir() and checkpoint_step(path) is not None and (path / COMPLETE_MARKER).is_file()
    ]
    return sorted(found, key=lambda path: checkpoint_step(path) or 0)


def remove_torn_checkpoints(folder: Path) -> list[Path]:
    """Delete checkpoint folders without the marker (a save cut by a kill); return what was removed."""
    removed = []
    if folder.is_dir():
        for path in folder.iterdir():
            if path.is_dir() and checkpoint_step(path) is not None and not (path / COMPLETE_MARKER).is_file():
                shutil.rmtree(path, ignore_errors=True)
                removed.append(path)
    return removed


#: The log key of a mix's worst-format development accuracy (:mod:`negkit.training.guards`).
WORST = "eval_guard_worst_accuracy"


def best_guard_step(log_history: Sequence[dict[str, Any]]) -> tuple[int, dict[str, Any]] | None:
    """The step whose worst-format development accuracy is highest (the later step on a tie), with the reason."""
    best: tuple[int, dict[str, Any]] | None = None
    for entry in log_history:
        if WORST not in entry:
            continue
        if best is None or entry[WORST] >= best[1]["worst_accuracy"]:
            reason = {
                "criterion": "highest worst-format development accuracy",
                "worst_accuracy": entry[WORST],
                "worst_format": entry.get("eval_guard_worst_format"),
            }
            best = (int(entry["step"]), reason)
    return best


def evaluations(log_history: list[dict[str, Any]]) -> list[tuple[int, float]]:
    """``(step, eval_loss)`` of every evaluation so far."""
    return [(int(entry["step"]), float(entry["eval_loss"])) for entry in log_history if "eval_loss" in entry]


def best_step(log_history: list[dict[str, Any]], threshold: float = 0.0) -> int | None:
    """The step of the lowest development loss (an improvement must exceed ``threshold``), or None."""
    best: tuple[int, float] | None = None
    for step, loss in evaluations(log_history):
        if best is None or loss < best[1] - threshold:
            best = (step, loss)
    return best[0] if best else None


class DurableCheckpoints(TrainerCallback):
    """Marks complete checkpoints, saves at least every ``save_seconds``, keeps the newest ``keep`` and the best."""

    def __init__(self, folder: Path, keep: int = 2, save_seconds: float | None = None) -> None:
        self.folder = folder
        self.keep = max(1, keep)
        self.save_seconds = save_seconds
        self.last_save = time.monotonic()
        self.history: list[dict[str, Any]] = []

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
        if self.save_seconds is not None and time.monotonic() - self.last_save >= self.save_seconds:
            control.should_save = True
        return control

    def on_save(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
        path = self.folder / f"checkpoint-{state.global_step}"
        if path.is_dir():
            for file in sorted(path.rglob("*")):
                if file.is_file():
                    with open(file, "rb+") as handle:
                        os.fsync(handle.fileno())
            fsync_folder(path)
            atomic_write_text(path / COMPLETE_MARKER, f"{state.global_step}\n")
        self.last_save = time.monotonic()
        self.history = state.log_history
        self._rotate(best_step(state.log_history))
        return control

    def _rotate(self, best: int | None) -> None:
        complete = complete_checkpoints(self.folder)
        keep = set(complete[-self.keep :])
        guarded = best_guard_step(self.history)
        keep.update(path for path in complete if checkpoint_step(path) in (best, guarded[0] if guarded else None))
        for path in complete:
            if path not in keep:
                shutil.rmtree(path, ignore_errors=True)


class EarlyStopping(TrainerCallback):
    """Stops after ``patience`` evaluations without a development-loss improvement larger than ``threshold``;
    asks for a checkpoint whenever the loss improves, so that the best adapter can be restored at the end."""

    def __init__(self, patience: int | None, threshold: float = 0.0) -> None:
        self.patience = patience
        self.threshold = threshold

    def on_evaluate(
        self, args: Any, state: Any, control: Any, metrics: dict[str, float] | None = None, **kwargs: Any
    ) -> Any:
        guarded = best_guard_step(state.log_history)
        if guarded is not None and guarded[0] == state.global_step:  # a mix's best so far by its worst format
            control.should_save = True
        history = evaluations(state.log_history)
        if not history:
            return control
        best = best_step(state.log_history, self.threshold)
        if best == history[-1][0]:
            control.should_save = True
        elif self.patience is not None and sum(1 for step, _ in history if step > (best or 0)) >= self.patience:
            control.should_training_stop = True
        return control


class TimeBudget(TrainerCallback):
    """Stops training (with a checkpoint) once this session has trained for ``seconds``; the learning-rate schedule
    stays planned for the full run, so a stopped run ends where the schedule was, not at its end."""

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.started = time.monotonic()
        self.stopped = False

    def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
        self.started = time.monotonic()
        return control

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
        if self.seconds is not None and time.monotonic() - self.started >= self.seconds:
            control.should_training_stop = True
            control.should_save = True
            self.stopped = True
        return control


class NonFiniteWeights(TrainerCallback):
    """Stops training at the first step after which a trainable weight is NaN or infinite (a diverged run: a NaN
    gradient poisons every later step, and the Trainer's log shows its loss as 0.0). Nothing is saved from that
    step on; ``diverged_at`` holds the step for the caller, which reports it as an error."""

    def __init__(self) -> None:
        self.diverged_at: int | None = None

    def on_step_end(self, args: Any, state: Any, control: Any, model: Any = None, **kwargs: Any) -> Any:
        import torch  # loaded by the Trainer already

        if model is None:
            return control
        weights = [parameter.detach() for parameter in model.parameters() if parameter.requires_grad]
        if weights and not bool(torch.stack([weight.isfinite().all() for weight in weights]).all()):
            self.diverged_at = state.global_step
            control.should_training_stop = True
            control.should_save = control.should_evaluate = control.should_log = False
        return control


class TrainingLog(TrainerCallback):
    """Rewrites ``train_log.jsonl`` and ``train_log.csv`` atomically from ``state.log_history`` at every log
    (after a resume the history restored from the checkpoint continues, so the files equal an uninterrupted run's)."""

    def __init__(self, jsonl: Path, csv_path: Path) -> None:
        self.jsonl = jsonl
        self.csv_path = csv_path

    def on_log(self, args: Any, state: Any, control: Any, logs: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        write_log(state.log_history, self.jsonl, self.csv_path)
        return control


def write_log(history: list[dict[str, Any]], jsonl: Path, csv_path: Path) -> None:
    atomic_write_jsonl(jsonl, history)
    columns: list[str] = []
    for entry in history:
        columns += [key for key in entry if key not in columns]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(history)
    atomic_write_text(csv_path, buffer.getvalue())


class ProgressBar(TrainerCallback):
    """A tqdm bar on stderr over optimizer steps, showing the latest training and development loss."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self.bar: Any = None
        self.postfix: dict[str, str] = {}

    def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
        if self.enabled:
            self.bar = tqdm(
                total=state.max_steps,
                initial=state.global_step,
                desc="finetune",
                unit="step",
                file=sys.stderr,
                dynamic_ncols=True,
            )
        return control

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
        if self.bar is not None:
            self.bar.update(state.global_step - self.bar.n)
        return control

    def on_log(self, args: Any, state: Any, control: Any, logs: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        if self.bar is not None and logs:
            for key, label in (("loss", "loss"), ("eval_loss", "dev")):
                if key in logs:
                    self.postfix[label] = f"{logs[key]:.4f}"
            self.bar.set_postfix(self.postfix, refresh=False)
        return control

    def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
        return control


class Throughput(TrainerCallback):
    """Training tokens (padding excluded) and seconds of this session, for tokens/s in the run record."""

    def __init__(self) -> None:
        self.tokens = 0
        self.seconds = 0.0
        self._start: tuple[float, int] | None = None

    def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
        self._start = (time.perf_counter(), state.num_input_tokens_seen)
        return control

    def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
        if self._start is not None:
            self.seconds = time.perf_counter() - self._start[0]
            self.tokens = state.num_input_tokens_seen - self._start[1]
        return control

    def summary(self) -> dict[str, Any]:
        rate = self.tokens / self.seconds if self.seconds > 0 else None
        return {
            "session_tokens": self.tokens,
            "session_train_seconds": round(self.seconds, 3),
            "session_tokens_per_second": None if rate is None else round(rate, 1),
        }
