"""Length-sorted dynamic batching with a memory-safe batch size, learnt per length bucket.

Requests are processed longest first (lm-evaluation-harness's habit): the largest batch comes first,
so a batch size that does not fit in memory fails at once rather than after an hour. A batch holds
at most ``max_batch_size`` sequences and at most ``token_budget`` padded tokens (``--batch-size auto``:
no fixed maximum; the budget is 1024 tokens on a CPU, where larger batches are slower, and comes from
the free memory on a GPU). Lengths fall into power-of-two buckets; when a batch runs out of memory its
size is halved and the same batch is tried again, and the smaller size is remembered for its bucket and
every longer one (a long prompt never gets a size that failed for a shorter one), while shorter buckets
keep theirs. The sizes used per bucket are reported (:meth:`LengthSortedBatcher.report`), so the results
say how the run was batched; answers do not depend on the batch size (padding is masked).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from negkit.errors import NegkitError

T = TypeVar("T")

#: Padded tokens per batch when the batch size is "auto" on a CPU. Larger batches are slower there (their
#: activations leave the caches): on a 2-core x86 VM, SmolLM2-135M scored 300 plain TIND prompts in 6.6 s at
#: 1024 tokens and 13.5 s at 8192 (chat prompts: 8.9 s and 12.0 s; 512 and 2048 were no faster than 1024).
DEFAULT_TOKEN_BUDGET = 1024


def is_out_of_memory(error: BaseException) -> bool:
    """Whether ``error`` is an accelerator or host out-of-memory error."""
    try:
        import torch  # heavy: off the start-up path

        if isinstance(error, torch.OutOfMemoryError):
            return True
    except (ImportError, AttributeError):
        pass
    return isinstance(error, (RuntimeError, MemoryError)) and (
        isinstance(error, MemoryError) or "out of memory" in str(error).lower()
    )


def auto_token_budget(bytes_per_token: int, device: str = "cpu") -> int:
    """Padded tokens per batch that fit comfortably in the free memory of ``device``.

    ``bytes_per_token`` is a backend's estimate of the activation memory one token needs. On CPU
    :data:`DEFAULT_TOKEN_BUDGET` is used (larger batches run slower there).
    """
    if not device.startswith("cuda"):
        return DEFAULT_TOKEN_BUDGET
    import torch  # heavy: off the start-up path

    free, _total = torch.cuda.mem_get_info(torch.device(device))
    return max(256, int(free * 0.6) // max(1, bytes_per_token))


def length_bucket(length: int) -> int:
    """The power-of-two bucket (at least 16) that a padded length falls in."""
    bucket = 16
    while bucket < length:
        bucket *= 2
    return bucket


class LengthSortedBatcher:
    """Runs a function over length-sorted batches of indices, halving the batch size on out-of-memory and
    remembering the size per length bucket.

    ``max_batch_size`` is the largest batch (``None``: limited by the token budget only).
    """

    def __init__(self, max_batch_size: int | None = None, token_budget: int = DEFAULT_TOKEN_BUDGET) -> None:
        if max_batch_size is not None and max_batch_size < 1:
            raise NegkitError(f"batch size must be at least 1, got {max_batch_size}")
        self.max_batch_size = max_batch_size
        self.token_budget = token_budget
        #: Largest size known to be allowed per bucket (learnt from out-of-memory errors).
        self.bucket_limits: dict[int, int] = {}
        #: Largest batch that ran per bucket, and how many out-of-memory halvings happened.
        self.sizes_used: dict[int, int] = {}
        self.halvings = 0

    def batch_size_for(self, longest: int) -> int:
        """How many sequences of padded length ``longest`` go in one batch."""
        size = max(1, self.token_budget // max(1, longest))
        if self.max_batch_size is not None:
            size = min(size, self.max_batch_size)
        bucket = length_bucket(longest)
        limits = [limit for other, limit in self.bucket_limits.items() if other <= bucket]
        return min(size, *limits) if limits else size

    def report(self) -> dict[str, object]:
        """What the results record: the batch size asked for, the token budget, the sizes used per bucket."""
        return {
            "max_batch_size": self.max_batch_size or "auto",
            "token_budget": self.token_budget,
            "sizes_used": {f"<={bucket}": size for bucket, size in sorted(self.sizes_used.items())},
            "oom_halvings": self.halvings,
        }

    def run(
        self,
        lengths: Sequence[int],
        process: Callable[[list[int]], Sequence[T]],
        on_batch_done: Callable[[list[int], Sequence[T]], None] | None = None,
    ) -> list[T]:
        """Call ``process(indices)`` on batches of indices into ``lengths``; return results in input order.

        ``process`` returns one result per index, in the order given. ``on_batch_done`` is called after
        each successful batch (progress bars, durable storage).
        """
        order = sorted(range(len(lengths)), key=lambda index: (-lengths[index], index))
        results: list[T | None] = [None] * len(lengths)
        position = 0
        while position < len(order):
            longest = max(1, lengths[order[position]])
            batch = order[position : position + self.batch_size_for(longest)]
            try:
                outputs = process(batch)
            except Exception as error:  # noqa: BLE001 - only out-of-memory errors are handled here
                if not is_out_of_memory(error) or len(batch) == 1:
                    raise
                self.shrink(longest, max(1, len(batch) // 2))
                release_cached_memory()
                continue
            self.note_used(longest, len(batch))
            for index, output in zip(batch, outputs):
                results[index] = output
            if on_batch_done is not None:
                on_batch_done(batch, outputs)
            position += len(batch)
        return results  # type: ignore[return-value]

    def shrink(self, longest: int, size: int) -> None:
        """After an out-of-memory error on a batch of padded length ``longest``: at most ``size`` sequences in
        its bucket (and so in every longer one)."""
        self.halvings += 1
        bucket = length_bucket(longest)
        self.bucket_limits[bucket] = min(size, self.bucket_limits.get(bucket, size))

    def note_used(self, longest: int, size: int) -> None:
        """Record that a batch of ``size`` sequences of padded length ``longest`` ran."""
        bucket = length_bucket(longest)
        self.sizes_used[bucket] = max(self.sizes_used.get(bucket, 0), size)


def release_cached_memory() -> None:
    """Give cached accelerator memory back after an out-of-memory error."""
    try:
        import torch  # heavy: off the start-up path

        if torch.cuda.is_available():
            torch.cuda.empty_cache()
    except ImportError:
        pass
