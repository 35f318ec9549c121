"""Length-sorted dynamic batching with a memory-safe batch size.

Requests are processed longest first (lm-evaluation-harness's habit): the largest batch comes first,
so a batch size that does not fit in memory fails at once rather than after an hour. A batch holds
at most ``max_batch_size`` sequences and at most ``token_budget`` padded tokens; when a batch runs out
of memory the batch size is halved and the same batch is tried again, and later batches keep the
smaller size.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from negkit.errors import NegkitError

T = TypeVar("T")

#: Padded tokens per batch when the batch size is "auto" and nothing better is known (CPU).
DEFAULT_TOKEN_BUDGET = 8192


def is_out_of_memory(error: BaseException) -> bool:
    """Whether ``error`` is an accelerator or host out-of-memory error."""
    try:
        import torch

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
    :data:`DEFAULT_TOKEN_BUDGET` is used (larger batches do not run faster there).
    """
    if not device.startswith("cuda"):
        return DEFAULT_TOKEN_BUDGET
    import torch

    free, _total = torch.cuda.mem_get_info(torch.device(device))
    return max(256, int(free * 0.6) // max(1, bytes_per_token))


class LengthSortedBatcher:
    """Runs a function over length-sorted batches of indices, halving the batch size on out-of-memory.

    ``max_batch_size`` is the largest batch (``None``: limited by the token budget only).
    """

    def __init__(self, max_batch_size: int | None = None, token_budget: int = DEFAULT_TOKEN_BUDGET) -> None:
        if max_batch_size is not None and max_batch_size < 1:
            raise NegkitError(f"batch size must be at least 1, got {max_batch_size}")
        self.max_batch_size = max_batch_size
        self.token_budget = token_budget

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
            size = max(1, self.token_budget // longest)
            if self.max_batch_size is not None:
                size = min(size, self.max_batch_size)
            batch = order[position : position + size]
            try:
                outputs = process(batch)
            except Exception as error:  # noqa: BLE001 - only out-of-memory errors are handled here
                if not is_out_of_memory(error) or len(batch) == 1:
                    raise
                self.max_batch_size = max(1, len(batch) // 2)
                self.token_budget = max(longest, self.token_budget // 2)
                _release_cached_memory()
                continue
            for index, output in zip(batch, outputs):
                results[index] = output
            if on_batch_done is not None:
                on_batch_done(batch, outputs)
            position += len(batch)
        return results  # type: ignore[return-value]


def _release_cached_memory() -> None:
    try:
        import torch

        if torch.cuda.is_available():
            torch.cuda.empty_cache()
    except ImportError:
        pass
