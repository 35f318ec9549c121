"""Shared-prefix detection in token space, with a tokenization check.

Many prompts share their beginning (an instruction, a chat template's system text). The engine runs
that prefix once and reuses its key/value cache for every prompt of a batch. The prefix is found in
token space (the longest run of ids common to every prompt of the batch) and is used only when it is
a clean tokenization boundary: for every prompt, tokenizing the prefix text and the rest of the
prompt separately must give exactly the prompt's own ids. Otherwise the batch falls back to full
passes (or to a shorter prefix that passes the check).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

#: Encodes text to token ids; the flag says whether special tokens are added (a context) or not (the rest).
Encoder = Callable[[str, bool], list[int]]

#: How many shorter prefixes to try when the longest common one fails the check.
MAX_BACKOFF_TOKENS = 4


def common_prefix_length(id_lists: Sequence[Sequence[int]], limit: int | None = None) -> int:
    """Length of the longest run of ids that starts every list (at most ``limit``)."""
    if not id_lists:
        return 0
    first = id_lists[0]
    length = min(len(ids) for ids in id_lists)
    if limit is not None:
        length = min(length, limit)
    for position in range(length):
        token = first[position]
        if any(ids[position] != token for ids in id_lists):
            return position
    return length


@dataclass(frozen=True)
class PrefixChecker:
    """Checks that a token prefix is a clean tokenization boundary for a batch of prompts."""

    encode: Encoder

    def split_is_exact(self, text: str, ids: Sequence[int], ends: Sequence[int], length: int) -> bool:
        """Whether encoding ``text`` cut after token ``length`` gives back ``ids`` in two parts.

        ``ends`` holds the character end offset of each token of ``ids`` in ``text``.
        """
        if len(ends) < length or length == 0:
            return False
        boundary = ends[length - 1]
        prefix_ids = self.encode(text[:boundary], True)
        if list(prefix_ids) != list(ids[:length]):
            return False
        return list(self.encode(text[boundary:], False)) == list(ids[length:])

    def usable_prefix_length(
        self,
        texts: Sequence[str],
        id_lists: Sequence[Sequence[int]],
        end_lists: Sequence[Sequence[int]],
        length: int,
    ) -> int:
        """The longest prefix (at most ``length``, backing off a few tokens) that splits every prompt exactly; 0 if none."""
        for candidate in range(length, max(0, length - MAX_BACKOFF_TOKENS), -1):
            if candidate > 0 and all(
                self.split_is_exact(text, ids, ends, candidate) for text, ids, ends in zip(texts, id_lists, end_lists)
            ):
                return candidate
        return 0
