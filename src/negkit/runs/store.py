"""The run store: every answered request, appended durably to a JSONL file.

Each line is ``{"key": ..., "response": ...}`` where the key hashes the model fingerprint, the scoring
mode and the exact request. Lines are written and ``fsync``-ed as each chunk of requests finishes, so a
killed run (even ``kill -9``) loses nothing that was written; rerunning the same command finds those
answers and recomputes nothing. A line torn by a kill in the middle of a write can only be the last one:
it is detected when the store is opened and cut off. Any other damaged line is an error naming the
file and line.

Several processes of one data-parallel run (see :mod:`negkit.runs.distributed`) each append to their
own file (``requests.rank-K.jsonl``) and read the others' (``siblings``) without ever writing them; the
keys do not depend on the number of processes, so a run resumes with any number of them (or one) and
recomputes nothing that any file holds.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

from negkit.engine.requests import LoglikelihoodResult, ModelFingerprint, Request, Response, request_payload
from negkit.errors import InputFormatError, NegkitError
from negkit.io.atomic import describe_os_error


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
    response: Response = data  # JSON of a response: a dict of floats, a string or a number
    return response


class RunStore:
    """An append-only, crash-safe map from request keys to responses, kept in one JSONL file."""

    def __init__(self, path: str | os.PathLike[str], siblings: str | None = None) -> None:
        self.path = Path(path)
        self._answers: dict[str, Any] = {}
        self._where: dict[str, tuple[Path, int]] = {}  # key -> (file, line) of its stored answer
        self.truncated_bytes = 0
        #: A glob pattern, in the same folder, of other processes' store files that are read (never written):
        #: the rank files of a data-parallel run, or a single process's file seen from a rank.
        self.siblings = siblings
        self._read_to: dict[Path, tuple[int, int]] = {}  # sibling -> (bytes read, lines read)
        if self.path.is_dir():
            raise NegkitError(f"{self.path}: is a folder, not a run store file")
        self._handle: Any = None  # opened at the first write: a run that fails before answering leaves no file
        try:
            self._load()
            self.refresh()
        except OSError as error:
            raise NegkitError(f"{self.path}: cannot open the run store: {describe_os_error(error)}") from None

    def _load(self) -> None:
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        good_end, _lines = self._parse(data, self.path, 0)
        if good_end < len(data):
            self.truncated_bytes = len(data) - good_end
            with open(self.path, "r+b") as handle:
                handle.truncate(good_end)
                handle.flush()
                os.fsync(handle.fileno())

    def _parse(self, data: bytes, path: Path, lines_before: int) -> tuple[int, int]:
        """Take the answers of the complete lines of ``data``; return the end of the last good line and the
        number of lines taken. A torn or damaged last line stops the reading (it is being written, or was
        cut by a kill); a damaged line before others is an error naming the file and line."""
        good_end = lines = 0
        for lines_seen, (start, end, complete) in enumerate(_lines_with_ends(data), start=1):
            if not complete:
                break  # a torn last line: written partly when the run was killed (or being written now)
            text = data[start:end].strip()
            if text:
                try:
                    record = json.loads(text)
                    self._answers[record["key"]] = record["response"]
                    self._where[record["key"]] = (path, lines_before + lines_seen)
                except (ValueError, KeyError, TypeError) as error:
                    if end == len(data):  # the last line is complete but damaged: same as torn
                        break
                    raise InputFormatError(
                        path, lines_before + lines_seen, f"damaged run store line ({error})"
                    ) from None
            good_end, lines = end, lines_seen
        return good_end, lines

    def refresh(self) -> int:
        """Read what other processes appended to the sibling store files since the last look (their files are
        never changed here); return how many answers were new."""
        if not self.siblings:
            return 0
        before = len(self._answers)
        for other in sorted(self.path.parent.glob(self.siblings)):
            if other.resolve() == self.path.resolve() or not other.is_file():
                continue
            offset, lines = self._read_to.get(other, (0, 0))
            with open(other, "rb") as handle:
                handle.seek(offset)
                data = handle.read()
            good_end, taken = self._parse(data, other, lines)
            self._read_to[other] = (offset + good_end, lines + taken)
        return len(self._answers) - before

    def __len__(self) -> int:
        return len(self._answers)

    def __contains__(self, key: str) -> bool:
        return key in self._answers

    def get(self, key: str) -> Response | None:
        """The stored response for ``key``, or ``None``."""
        if key not in self._answers:
            return None
        try:
            return decode_response(self._answers[key])
        except (TypeError, ValueError) as error:
            raise self.damaged(key, f"a stored answer that cannot be read ({error})") from None

    def damaged(self, key: str, problem: str) -> InputFormatError:
        """The error for the stored answer of ``key`` (naming the file and line it was read from)."""
        path, line = self._where.get(key, (self.path, None))
        return InputFormatError(path, line, f"damaged run store line: {problem}")

    def put_many(self, entries: Iterable[tuple[str, Response]]) -> None:
        """Append answers and make them durable (one write and one fsync for the lot)."""
        lines = []
        for key, response in entries:
            encoded = encode_response(response)
            self._answers[key] = encoded
            lines.append(json.dumps({"key": key, "response": encoded}, ensure_ascii=False) + "\n")
        if not lines:
            return
        if self._handle is None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._handle = open(self.path, "ab")
            except OSError as error:
                raise NegkitError(f"{self.path}: cannot write the run store: {describe_os_error(error)}") from None
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
        self._handle = None  # opened again at the next write

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None

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
