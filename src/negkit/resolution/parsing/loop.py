"""A resumable training loop: one learning rate for encoder and classifier, a schedule, early stopping on a dev
score, and a time budget after which the state is saved so that the next call continues where this one stopped.

The checkpoint folder holds ``state.pt`` (network, optimizer, schedule, random generators, position in the
epoch), ``best.pt`` (the weights of the best epoch so far) and ``loop.json`` (the report so far). Batches of an
epoch are drawn from ``seed`` and the epoch number alone, so a resumed run sees exactly the batches an
uninterrupted one would have seen.
"""

from __future__ import annotations

import copy
import math
import random
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch import nn

from negkit.errors import InputFormatError
from negkit.io.atomic import atomic_write_json, atomic_writer
from negkit.io.textfiles import read_json_object
from negkit.resolution.layers import make_scheduler


@dataclass
class LoopSettings:
    """Optimisation settings of :func:`run_loop`."""

    epochs: int = 20
    patience: int = 5
    learning_rate: float = 5e-5
    batch_size: int = 16
    schedule: str = "noam"
    #: Warm-up steps (linear and Noam schedules).
    warmup_steps: int = 200
    weight_decay: float = 0.0
    clip: float = 5.0
    seed: int = 13


@dataclass
class LoopReport:
    """Dev score per finished epoch, the best epoch, seconds spent (all slices) and why the loop stopped."""

    dev_scores: list[float] = field(default_factory=list)
    best_epoch: int = 0
    seconds: float = 0.0
    steps: int = 0
    stopped_by: str = ""
    slices: int = 0

    @property
    def finished(self) -> bool:
        return self.stopped_by in ("epochs", "patience")


def _batches(count: int, batch_size: int, seed: int, epoch: int, lengths: Sequence[int]) -> list[list[int]]:
    """Shuffled batches of similar length for one epoch, a function of (seed, epoch) only."""
    shuffler = random.Random(seed * 1_000_003 + epoch)
    order = list(range(count))
    shuffler.shuffle(order)
    pool = batch_size * 50
    batches: list[list[int]] = []
    for start in range(0, count, pool):
        chunk = sorted(order[start : start + pool], key=lambda i: lengths[i])
        batches += [chunk[s : s + batch_size] for s in range(0, len(chunk), batch_size)]
    shuffler.shuffle(batches)
    return batches


def run_loop(
    network: nn.Module,
    epoch_examples: Callable[[int], Sequence[Any]],
    batch_loss: Callable[[list[Any]], torch.Tensor],
    dev_score: Callable[[], float],
    settings: LoopSettings,
    *,
    checkpoint: Path | None = None,
    time_limit_s: float | None = None,
    length: Callable[[Any], int] = len,
    log: Callable[[str], None] = lambda message: None,
) -> LoopReport:
    """Train ``network``; return when the epochs are done, patience runs out, or the time budget is spent.

    ``epoch_examples(epoch)`` gives the examples of an epoch (1-based; it may resample), ``batch_loss`` the loss of
    a list of them. With ``checkpoint`` (a folder), a run stopped by the time budget saves its state there and a
    later call with the same folder resumes it; when the loop finishes the network holds the best epoch's weights
    and the checkpoint folder is removed. Without a checkpoint folder a stop by time keeps the best weights.
    """
    started = time.monotonic()
    trained = [parameter for parameter in network.parameters() if parameter.requires_grad]
    optimizer = torch.optim.AdamW(trained, lr=settings.learning_rate, weight_decay=settings.weight_decay)
    steps_per_epoch = max(1, math.ceil(len(epoch_examples(1)) / settings.batch_size))
    scheduler = make_scheduler(optimizer, settings.schedule, settings.warmup_steps, steps_per_epoch * settings.epochs)
    report, epoch, position, best_state = LoopReport(), 1, 0, None
    if checkpoint is not None and (checkpoint / "state.pt").exists():
        report, epoch, position, best_state = _restore(checkpoint, network, optimizer, scheduler)
        log(f"resumed at epoch {epoch}, batch {position} (best epoch so far: {report.best_epoch})")
    if best_state is None:
        best_state = copy.deepcopy(network.state_dict())
    report.slices += 1
    report.stopped_by = ""
    seconds_before = report.seconds
    best_score = max(report.dev_scores) if report.dev_scores else -math.inf
    while epoch <= settings.epochs:
        examples = epoch_examples(epoch)
        batches = _batches(
            len(examples), settings.batch_size, settings.seed, epoch, [length(example) for example in examples]
        )
        network.train()
        epoch_started, total = time.monotonic(), 0.0
        for index in range(position, len(batches)):
            if time_limit_s is not None and time.monotonic() - started > time_limit_s:
                report.seconds = seconds_before + time.monotonic() - started
                report.stopped_by = "time limit"
                if checkpoint is not None:
                    _save(checkpoint, network, optimizer, scheduler, report, epoch, index, best_state)
                    log(f"time budget spent at epoch {epoch}, batch {index}: state saved, run again to resume")
                else:
                    network.load_state_dict(best_state)
                network.eval()
                return report
            loss = batch_loss([examples[i] for i in batches[index]])
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(trained, settings.clip)
            optimizer.step()
            scheduler.step()
            report.steps += 1
            total += float(loss.detach())
        score = dev_score()
        report.dev_scores.append(score)
        log(
            f"epoch {epoch}: loss {total / max(1, len(batches) - position):.4f}, dev {score:.4f}, "
            f"{time.monotonic() - epoch_started:.0f}s"
        )
        position = 0
        if score > best_score:
            best_score, report.best_epoch = score, epoch
            best_state = copy.deepcopy(network.state_dict())
        elif epoch - report.best_epoch >= settings.patience:
            report.stopped_by = "patience"
            break
        epoch += 1
        if checkpoint is not None and epoch <= settings.epochs:
            report.seconds = seconds_before + time.monotonic() - started
            _save(checkpoint, network, optimizer, scheduler, report, epoch, 0, best_state)
    report.stopped_by = report.stopped_by or "epochs"
    report.seconds = seconds_before + time.monotonic() - started
    network.load_state_dict(best_state)
    network.eval()
    if checkpoint is not None and checkpoint.exists():
        shutil.rmtree(checkpoint)
    return report


def _save(
    folder: Path,
    network: nn.Module,
    optimizer: torch.optim.Optimizer,
    scheduler: Any,
    report: LoopReport,
    epoch: int,
    position: int,
    best_state: dict[str, torch.Tensor],
) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    state = {
        "network": network.state_dict(),
        "optimizer": optimizer.state_dict(),
        "scheduler": scheduler.state_dict(),
        "torch_rng": torch.get_rng_state(),
        "python_rng": random.getstate(),
    }
    with atomic_writer(folder / "best.pt", "wb") as handle:
        torch.save(best_state, handle)
    with atomic_writer(folder / "state.pt", "wb") as handle:
        torch.save(state, handle)
    atomic_write_json(folder / "loop.json", {"epoch": epoch, "position": position, "report": asdict(report)})


def _restore(
    folder: Path, network: nn.Module, optimizer: torch.optim.Optimizer, scheduler: Any
) -> tuple[LoopReport, int, int, dict[str, torch.Tensor]]:
    progress = read_json_object(folder / "loop.json", "training progress")
    try:
        state = torch.load(folder / "state.pt", weights_only=True, map_location="cpu")
        best = torch.load(folder / "best.pt", weights_only=True, map_location="cpu")
        network.load_state_dict(state["network"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        torch.set_rng_state(state["torch_rng"])
        random.setstate(state["python_rng"])
        report = LoopReport(**progress["report"])
        return report, int(progress["epoch"]), int(progress["position"]), best
    except (OSError, KeyError, TypeError, ValueError, RuntimeError) as error:
        raise InputFormatError(
            folder,
            None,
            f"cannot resume from this checkpoint ({type(error).__name__}: "
            f"{str(error)[:160]}); delete the folder to start over",
        ) from None
