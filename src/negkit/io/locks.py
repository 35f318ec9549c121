"""One writer per output folder: the run lock.

A run that writes into an output folder first takes its lock, the file ``FOLDER/.negkit.lock``. The lock
is an exclusive ``flock`` on that file, held for as long as the run lasts; the kernel drops it when the
process ends in any way (``kill -9`` included), so a lock can never outlive its owner on one machine. The
file's content says who holds it (pid, host, process start time, when, the command), for the message a
second run prints when it is refused.

- A second run on the same folder is refused at once with a :class:`RunLockedError` naming the owner, or
  waits for it with ``wait`` seconds (``math.inf``: for as long as it takes).
- A lock file left by a process that is gone (killed, or on a file system without ``flock``) is stale: it
  is taken over, and ``announce`` (standard error by default) says so.
- The lock file is removed when the run releases it (and the folder too, when the run created it and wrote
  nothing into it).

Data-parallel runs (one launcher group of N processes writing one folder): the lock belongs to the run,
not to each process. Rank 0 takes it with ``RunLock(folder, info={"world_size": N, ...})`` before any rank
writes, and holds it until every rank is done (the ranks synchronise through the launcher's process
group: rank 0 acquires, then a barrier or broadcast tells the others whether it succeeded; a refused rank
0 makes every rank stop). Every rank writes only its own files (e.g. its own run store file), so the
ranks never need a lock among themselves. :func:`run_lock_for_rank` returns the real lock for rank 0 and
a no-op stand-in for the other ranks, so that the code around it is the same on every rank.
"""

from __future__ import annotations

import json
import math
import os
import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from negkit.errors import NegkitError

#: Name of the lock file inside the output folder.
LOCK_FILE = ".negkit.lock"
#: Seconds between two attempts while waiting for a lock.
POLL_SECONDS = 0.5
#: Marker: the lock file was removed between opening and locking it (try again at once).
_REMOVED: dict[str, Any] = {"pid": None, "removed": True}

try:  # POSIX; elsewhere the lock works from the file's content alone
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


class RunLockedError(NegkitError):
    """The output folder is being written by another run (``owner`` says which)."""

    def __init__(self, path: Path, owner: dict[str, Any], wait_flag: str | None = "--wait-lock") -> None:
        self.path, self.owner = path, owner
        advice = f"use another --out, or pass {wait_flag} to wait" if wait_flag else "or use another --out"
        super().__init__(
            f"{path}: this output folder is in use by another negkit run ({describe_owner(owner)}); wait for it "
            f"to finish, {advice}"
        )


def describe_owner(owner: dict[str, Any]) -> str:
    """``pid 123 on host h since 2025-01-01 12:00:00`` (whatever of it the lock file records)."""
    if owner.get("unreadable"):
        return "an unreadable lock file"
    parts = []
    if owner.get("pid") is not None:
        parts.append(f"pid {owner['pid']}")
    if owner.get("host"):
        parts.append(f"on host {owner['host']}")
    if isinstance(owner.get("acquired"), (int, float)):
        parts.append("since " + time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(owner["acquired"])))
    if owner.get("world_size"):
        parts.append(f"for {owner['world_size']} processes")
    return " ".join(parts) or "owner unknown"


def process_start_time(pid: int) -> str | None:
    """The start time of process ``pid`` as the kernel records it (Linux), to tell a reused pid apart."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2 :].split()
    return fields[19] if len(fields) > 19 else None


def process_alive(pid: int, start_time: str | None = None) -> bool:
    """Whether process ``pid`` runs on this machine (and, given ``start_time``, is the same process)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # it exists, owned by someone else
    if start_time is not None:
        now = process_start_time(pid)
        if now is not None and now != start_time:
            return False  # the pid was reused by another process
    return True


class RunLock:
    """The lock of one output folder (see the module documentation); a context manager.

    ``wait``: seconds to wait for a held lock (0: refuse at once; ``math.inf``: no limit). ``info``: extra
    facts recorded in the lock file (e.g. ``world_size``, ``command``). ``announce``: where the takeover of a
    stale lock and waiting are reported (default: standard error). ``wait_flag``: the command's option for
    waiting, named in the refusal (None for a command without one).
    """

    def __init__(
        self,
        folder: str | os.PathLike[str],
        wait: float = 0.0,
        info: dict[str, Any] | None = None,
        announce: Callable[[str], None] | None = None,
        wait_flag: str | None = "--wait-lock",
    ) -> None:
        self.folder = Path(folder)
        self.wait_flag = wait_flag
        self.path = self.folder / LOCK_FILE
        self.wait = wait
        self.info = dict(info or {})
        self.announce = announce or (lambda message: print(message, file=sys.stderr, flush=True))
        self._descriptor: int | None = None
        self._created_folder = False
        #: The owner whose stale lock this run took over, if any.
        self.took_over: dict[str, Any] | None = None

    @property
    def held(self) -> bool:
        return self._descriptor is not None

    def owner(self) -> dict[str, Any]:
        """What this lock records about its holder."""
        return {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "start_time": process_start_time(os.getpid()),
            "acquired": time.time(),
            **self.info,
        }

    def acquire(self) -> RunLock:
        """Take the lock, waiting up to ``self.wait`` seconds; :class:`RunLockedError` when it stays held."""
        if self.held:
            return self
        self._created_folder = not self.folder.exists()
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise NegkitError(f"{self.folder}: cannot create the output folder: {error.strerror or error}") from None
        if not self.folder.is_dir():
            raise NegkitError(f"{self.folder}: not a folder (the output must be a folder)")
        deadline = time.monotonic() + self.wait if math.isfinite(self.wait) else math.inf
        announced = False
        while True:
            owner = self._try_acquire()
            if owner is None:
                return self
            if owner is _REMOVED:
                continue  # the holder released and removed the file between our open and our lock
            if time.monotonic() >= deadline:
                raise RunLockedError(self.path, owner, self.wait_flag)
            if not announced:
                self.announce(f"negkit: waiting for the run holding {self.path} ({describe_owner(owner)})")
                announced = True
            time.sleep(min(POLL_SECONDS, max(0.0, deadline - time.monotonic())))

    def _try_acquire(self) -> dict[str, Any] | None:
        """Take the lock now; return None on success, else the current owner's record."""
        try:
            descriptor = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as error:
            raise NegkitError(f"{self.path}: cannot create the lock file: {error.strerror or error}") from None
        try:
            if fcntl is not None:
                try:
                    fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:  # held by a live process (the kernel says so)
                    owner = _read_owner(descriptor) or {"pid": None}
                    os.close(descriptor)
                    return owner
                except OSError:
                    pass  # no flock on this file system: the recorded owner decides below
            if not _same_file(descriptor, self.path):
                os.close(descriptor)
                return _REMOVED
            previous = _read_owner(descriptor)
            if previous and _alive_elsewhere(previous):
                os.close(descriptor)
                return previous  # a live owner on this machine whose lock flock cannot see
            record = self.owner()
            os.ftruncate(descriptor, 0)
            os.pwrite(descriptor, (json.dumps(record) + "\n").encode("utf-8"), 0)
            os.fsync(descriptor)
        except OSError as error:
            os.close(descriptor)
            raise NegkitError(f"{self.path}: cannot write the lock file: {error.strerror or error}") from None
        except BaseException:
            os.close(descriptor)
            raise
        if previous:
            self.took_over = previous
            self.announce(
                f"negkit: {self.path}: taking over a stale lock ({describe_owner(previous)}; that process is gone)"
            )
        self._descriptor = descriptor
        return None

    def release(self) -> None:
        """Give the lock up and remove the lock file."""
        if self._descriptor is None:
            return
        try:
            if _same_file(self._descriptor, self.path):
                self.path.unlink()
        except OSError:
            pass
        finally:
            os.close(self._descriptor)  # closing drops the flock
            self._descriptor = None
        if self._created_folder:  # a run that wrote nothing leaves no empty folder behind
            try:
                self.folder.rmdir()
            except OSError:
                pass

    def __enter__(self) -> RunLock:
        return self.acquire()

    def __exit__(self, *_exc: object) -> None:
        self.release()


class _NoLock:
    """Stands in for the run lock on ranks other than 0 (rank 0 holds it for the whole group)."""

    held = False
    took_over = None

    def acquire(self) -> _NoLock:
        return self

    def release(self) -> None:
        pass

    def __enter__(self) -> _NoLock:
        return self

    def __exit__(self, *_exc: object) -> None:
        pass


def run_lock_for_rank(
    folder: str | os.PathLike[str],
    rank: int = 0,
    world_size: int = 1,
    wait: float = 0.0,
    info: dict[str, Any] | None = None,
) -> RunLock | _NoLock:
    """The folder's run lock for rank 0 of a group of ``world_size`` processes; a no-op for other ranks."""
    if rank != 0:
        return _NoLock()
    extra = {"world_size": world_size} if world_size > 1 else {}
    return RunLock(folder, wait=wait, info={**extra, **(info or {})})


def read_lock_owner(folder: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The owner recorded in ``folder``'s lock file, or None when there is none (it may be stale)."""
    try:
        text = (Path(folder) / LOCK_FILE).read_text(encoding="utf-8")
        owner = json.loads(text)
    except (OSError, ValueError):
        return None
    return owner if isinstance(owner, dict) else None


def _read_owner(descriptor: int) -> dict[str, Any] | None:
    try:
        data = os.pread(descriptor, 65536, 0)
        if not data.strip():
            return None  # a new lock file (or one whose owner died before writing it)
        owner = json.loads(data.decode("utf-8"))
    except (OSError, ValueError):
        return {"pid": None, "unreadable": True}
    return owner if isinstance(owner, dict) else {"pid": None, "unreadable": True}


def _same_file(descriptor: int, path: Path) -> bool:
    try:
        opened, current = os.fstat(descriptor), os.stat(path)
    except OSError:
        return False
    return (opened.st_dev, opened.st_ino) == (current.st_dev, current.st_ino)


def _alive_elsewhere(owner: dict[str, Any]) -> bool:
    """A recorded owner that still runs on this machine and is not this process."""
    pid = owner.get("pid")
    if not isinstance(pid, int) or owner.get("host") != socket.gethostname() or pid == os.getpid():
        return False
    return process_alive(pid, owner.get("start_time"))
