"""The run store: every answered request, appended durably to a JSONL file.

Each line is ``{"key": ..., "response": ...}`` where the key hashes the model fingerprint, the scoring
mode and the exact request. Lines are written and ``fsync``-ed as each chunk of requests finishes, so a
killed run (even ``kill -9``) loses nothing that was written; rerunning the same command finds those
answers and recomputes nothing. A line torn by a kill in the middle of a write can only be the last one:
it is detected when the store is opened and cut off. Any other damaged line is an error naming the
file and line.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

from negkit.atomic_io import describe_os_error
from negkit.errors import InputFormatError, NegkitError
from negkit.engine.requests import LoglikelihoodResult, ModelFingerprint, Request, Response, request_payload


def request_key(fingerprint: ModelFingerprint, mode: str, request: Request) -> str:
    """The store key of ``request`` answered by the model ``fingerprint`` in ``mode``."""
    payload = {"model": fingerprint.as_dict(), "mode": mode, "request": request_payload(request)}
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def encode_response(response: Response) -> Any:
    """A JSON-ready form of a response (loglikelihood results keep their type)."""
    if isinstance(response, LoglikelihoodResult):
        return {"loglikelihood": asdict(response)}
    return response


def decode_response(data: Any) -> Response:
    """Inverse of :func:`encode_response`."""
    if isinstance(data, dict) and set(data) == {"loglikelihood"}:
        return LoglikelihoodResult(**data["loglikelihood"])
    return data


class RunStore:
    """An append-only, crash-safe map from request keys to responses, kept in one JSONL file."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._answers: dict[str, Any] = {}
        self.truncated_bytes = 0
        if self.path.is_dir():
            raise NegkitError(f"{self.path}: is a folder, not a run store file")
        try:
            self._load()
            self._handle = open(self.path, "ab")
        except OSError as error:
            raise NegkitError(f"{self.path}: cannot open the run store: {describe_os_error(error)}") from None

    def _load(self) -> None:
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        good_end = 0
        line_number = 0
        for line_number, line in enumerate(_lines_with_ends(data), start=1):
            start, end, complete = line
            if not complete:
                break  # a torn last line: written partly when the run was killed
            text = data[start:end].strip()
            if text:
                try:
                    record = json.loads(text)
                    self._answers[record["key"]] = record["response"]
                except (ValueError, KeyError, TypeError) as error:
                    if end == len(data):  # the last line is complete but damaged: same as torn
                        break
                    raise InputFormatError(self.path, line_number, f"damaged run store line ({error})") from None
            good_end = end
        if good_end < len(data):
            self.truncated_bytes = len(data) - good_end
            with open(self.path, "r+b") as handle:
                handle.truncate(good_end)
                handle.flush()
                os.fsync(handle.fileno())

    def __len__(self) -> int:
        return len(self._answers)

    def __contains__(self, key: str) -> bool:
        return key in self._answers

    def get(self, key: str) -> Response | None:
        """The stored response for ``key``, or ``None``."""
        if key not in self._answers:
            return None
        return decode_response(self._answers[key])

    def put_many(self, entries: Iterable[tuple[str, Response]]) -> None:
        """Append answers and make them durable (one write and one fsync for the lot)."""
        lines = []
        for key, response in entries:
            encoded = encode_response(response)
            self._answers[key] = encoded
            lines.append(json.dumps({"key": key, "response": encoded}, ensure_ascii=False) + "\n")
        if not lines:
            return
        start = self._handle.tell()
        try:
            self._handle.write("".join(lines).encode("utf-8"))
            self._handle.flush()
            os.fsync(self._handle.fileno())
        except OSError as error:
            self._undo_append(start)
            raise NegkitError(
                f"{self.path}: cannot write the run store: {describe_os_error(error)} (answers stored before are "
                "kept; free some space and rerun the same command to resume)"
            ) from None

    def _undo_append(self, size: int) -> None:
        """Cut a failed append back to ``size`` bytes, so that no partial line is left behind."""
        try:
            self._handle.close()
        except OSError:
            pass  # the buffered bytes could not be flushed: they are dropped
        try:
            with open(self.path, "r+b") as handle:
                handle.truncate(size)
        except OSError:
            pass  # a torn last line is cut off when the store is opened next
        self._handle = open(self.path, "ab")

    def close(self) -> None:
        self._handle.close()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def _lines_with_ends(data: bytes) -> Iterator[tuple[int, int, bool]]:
    """(start, end, complete) of each line of ``data``; ``end`` includes the newline."""
    start = 0
    while start < len(data):
        newline = data.find(b"\n", start)
        if newline == -1:
            yield start, len(data), False
            return
        yield start, newline + 1, True
        start = newline + 1
