"""Data parallel evaluation: several processes started by a standard launcher share one run.

``torchrun --nproc-per-node N -m negkit eval ...`` and ``accelerate launch -m negkit eval ...`` (one or
several machines) start N processes and give each ``RANK``, ``WORLD_SIZE`` and ``LOCAL_RANK``. negkit then:

- puts each rank on its own device (``cuda:LOCAL_RANK`` when GPUs are visible, else the CPU);
- lets rank 0 hold the output folder's run lock for the whole group (:mod:`negkit.io.locks`);
- per task, splits the requests that no store file answers yet over the ranks: in prefix order, one
  contiguous block of about equal prompt length per rank (prompts that begin alike stay on one rank, which
  runs what they share once; the choices of one context stay together);
- has each rank append its answers to its own durable store file, ``requests.rank-K.jsonl``, while it
  reads every other store file of the folder (``requests.jsonl`` and the other ranks'), never writing them;
- waits for every rank, then lets rank 0 read all answers and write the results, samples and report.

Store keys hash the model, the mode and the request only, never the rank or the number of processes, so a
run resumes with a different number of processes, or with one, and recomputes nothing already answered
(the harness's cache is tied to the number of GPUs; this one is not).

The ranks coordinate through a ``gloo`` process group (CPU tensors only: it works beside GPUs, on one
machine or several), created from the launcher's environment (``MASTER_ADDR``, ``MASTER_PORT``).
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from negkit.engine.requests import LoglikelihoodRequest
from negkit.errors import NegkitError
from negkit.runs.runner import request_sort_key
from negkit.runs.store import request_key

T = TypeVar("T")

#: The run store file of a single process, and the pattern of every store file of a folder.
SINGLE_STORE = "requests.jsonl"
STORE_PATTERN = "requests*.jsonl"
#: How long a rank waits for the others at a barrier (seconds; NEGKIT_DIST_TIMEOUT overrides).
DEFAULT_TIMEOUT_S = 12 * 3600


@dataclass
class ProcessGroup:
    """This process's place in a launcher group (a group of one when not launched so)."""

    rank: int = 0
    world_size: int = 1
    local_rank: int = 0
    local_world_size: int = 1
    _owns_backend: bool = False

    @property
    def is_main(self) -> bool:
        """Whether this process writes results and reports (rank 0)."""
        return self.rank == 0

    @property
    def active(self) -> bool:
        return self.world_size > 1

    def barrier(self) -> None:
        if self.active:
            import torch.distributed as dist  # heavy: off the start-up path

            dist.barrier()

    def broadcast(self, value: T) -> T:
        """Rank 0's ``value`` on every rank."""
        if not self.active:
            return value
        import torch.distributed as dist  # heavy: off the start-up path

        box = [value]
        dist.broadcast_object_list(box, src=0)
        return box[0]

    def gather(self, value: T) -> list[T]:
        """Every rank's ``value``, in rank order, on every rank."""
        if not self.active:
            return [value]
        import torch.distributed as dist  # heavy: off the start-up path

        values: list[Any] = [None] * self.world_size
        dist.all_gather_object(values, value)
        return values

    def close(self) -> None:
        """Leave the process group if this object created it."""
        if self._owns_backend:
            import torch.distributed as dist  # heavy: off the start-up path

            if dist.is_initialized():
                dist.destroy_process_group()
            self._owns_backend = False

    def describe(self) -> dict[str, int]:
        return {"rank": self.rank, "world_size": self.world_size, "local_rank": self.local_rank}


def launcher_group(environ: Mapping[str, str] | None = None) -> ProcessGroup:
    """The group this process was launched in (``RANK``/``WORLD_SIZE``/``LOCAL_RANK``, as torchrun and
    accelerate set them); with a world size above 1 the gloo process group is joined (or reused)."""
    environ = os.environ if environ is None else environ
    try:
        world_size = int(environ.get("WORLD_SIZE", "1"))
        rank = int(environ.get("RANK", "0"))
        local_rank = int(environ.get("LOCAL_RANK", str(rank)))
        local_world_size = int(environ.get("LOCAL_WORLD_SIZE", str(world_size)))
    except ValueError:
        raise NegkitError("RANK, WORLD_SIZE and LOCAL_RANK must be whole numbers (as torchrun sets them)") from None
    if world_size < 1 or not 0 <= rank < world_size:
        raise NegkitError(f"RANK={rank} does not fit WORLD_SIZE={world_size}")
    group = ProcessGroup(rank, world_size, local_rank, local_world_size)
    if world_size > 1:
        import torch.distributed as dist  # heavy: off the start-up path

        if not dist.is_initialized():
            if "MASTER_ADDR" not in environ or "MASTER_PORT" not in environ:
                raise NegkitError(
                    "WORLD_SIZE > 1 but MASTER_ADDR/MASTER_PORT are not set: start the ranks with "
                    "torchrun or accelerate launch"
                )
            timeout = float(environ.get("NEGKIT_DIST_TIMEOUT", DEFAULT_TIMEOUT_S))
            dist.init_process_group(
                "gloo", rank=rank, world_size=world_size, timeout=datetime.timedelta(seconds=timeout)
            )
            group._owns_backend = True
    return group


def rank_device(group: ProcessGroup, device: str | None, model_args: Mapping[str, Any] | None = None) -> str | None:
    """The device of this rank: ``cuda:LOCAL_RANK`` for ``auto``/``cuda`` when GPUs are visible, the CPU for
    ``cpu`` (or when no GPU is visible); one process alone keeps what it was given."""
    if not group.active:
        return device
    if model_args and model_args.get("device_map") is not None:
        if group.local_world_size > 1:
            raise NegkitError(
                "device_map shards one model over a machine's GPUs; with several ranks per machine use "
                "one rank per machine (--nproc-per-node 1), or drop device_map"
            )
        return device
    import torch  # heavy: off the start-up path

    name = (device or "auto").lower()
    if name == "cpu":
        return "cpu"
    if name.startswith("cuda:"):
        raise NegkitError(
            f"--device {device}: under a launcher each rank takes cuda:LOCAL_RANK; pass --device cuda "
            "or auto (choose GPUs with CUDA_VISIBLE_DEVICES)"
        )
    if name in ("auto", "cuda") and torch.cuda.is_available():
        if group.local_rank >= torch.cuda.device_count():
            raise NegkitError(
                f"rank {group.rank} has LOCAL_RANK {group.local_rank} but only "
                f"{torch.cuda.device_count()} GPUs are visible"
            )
        return f"cuda:{group.local_rank}"
    if name == "cuda":
        raise NegkitError("--device cuda: no CUDA GPU is visible to this rank")
    return "cpu" if name == "auto" else device


def store_file(folder: Path, group: ProcessGroup) -> Path:
    """The store file this process appends to: ``requests.jsonl`` alone, ``requests.rank-K.jsonl`` in a group."""
    return folder / (f"requests.rank-{group.rank}.jsonl" if group.active else SINGLE_STORE)


def shard(
    requests: Sequence[T],
    group: ProcessGroup,
    sort_key: Callable[[T], Any],
    unit_key: Callable[[T], Any],
    size: Callable[[T], int] = lambda request: 1,
) -> list[T]:
    """This rank's share of ``requests``: units (requests with equal ``unit_key``, e.g. the choices of one
    context) in ``sort_key`` order, cut into one contiguous block per rank of about equal total ``size`` (so
    that prompts that begin alike stay on one rank, which runs what they share once); every rank computes the
    same split."""
    if not group.active:
        return list(requests)
    units: dict[Any, list[T]] = {}
    for request in requests:
        units.setdefault(unit_key(request), []).append(request)
    ordered = sorted(units.values(), key=lambda members: sort_key(members[0]))
    weights = [sum(size(request) for request in members) for members in ordered]
    total = max(1, sum(weights))
    share: list[T] = []
    before = 0
    for members, weight in zip(ordered, weights):
        # the rank whose block holds the middle of this unit
        if min(group.world_size - 1, (2 * before + weight) * group.world_size // (2 * total)) == group.rank:
            share.extend(members)
        before += weight
    return share


def answer_share(
    group: ProcessGroup, model: Any, requests: Sequence[Any], store: Any, mode: str, answer: Callable[[list[Any]], Any]
) -> dict[str, Any]:
    """In a group: every rank answers its share of the requests that no store file holds yet (``answer(share)``
    stores what it computes), waits for the others, and reads their answers; returns what this rank did.
    Alone: nothing to do (the caller answers everything)."""
    if not group.active:
        return {}

    store.refresh()  # every answer of the earlier tasks (all written before the last barrier)
    group.barrier()  # no rank writes this task's answers before every rank has looked: all see the same missing set
    missing = [
        request for request in dict.fromkeys(requests) if request_key(model.fingerprint, mode, request) not in store
    ]

    def unit(request: Any) -> Any:  # the choices of one context stay on one rank (one context pass)
        return ("context", request.context) if isinstance(request, LoglikelihoodRequest) else request

    share = shard(missing, group, request_sort_key, unit, size=lambda request: len(getattr(request, "context", "")) + 1)
    answer(share)
    group.barrier()  # every rank's answers are durable in its own file
    store.refresh()
    return {**group.describe(), "missing_before": len(missing), "assigned": len(share)}
