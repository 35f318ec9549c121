"""Kill `negkit eval` at every output write, in turn (for test_durability.py).

Usage: python kill_at_write_child.py DATA WORK

WORK/old is a finished run on a sample of DATA (the "old" files). WORK/new is the uninterrupted run on all of DATA
that resumes it (the "new" files); it counts the write events, the calls of os.fsync and os.replace that every
durable write goes through. Then for each event N: a copy of the old run, WORK/killed-N, is resumed in a forked
process that SIGKILLs itself just before event N (the file written but not synced, synced but not renamed, renamed
but the folder not synced, a store append not synced, ...); and WORK/resumed-N is that folder resumed to the end.
Prints "EVENTS N" when done. The model is a deterministic fake (no torch work), so every fork takes a moment.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import sys
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1] / "src")]

from negkit.commands.eval.evaluate import evaluate  # noqa: E402
from negkit.commands.eval.options import EvalOptions  # noqa: E402
from negkit.models.base import ModelFingerprint  # noqa: E402


class FakeModel:
    """Answers from a hash of the prompt: deterministic, instant."""

    fingerprint = ModelFingerprint(backend="test", name="fake-for-kills", dtype="float32")
    is_encoder_decoder = False
    has_chat_template = False

    def next_token_logprobs(self, contexts, candidates):
        answers = []
        for context in contexts:
            digest = hashlib.sha256(context.encode()).digest()
            answers.append({candidate: -1.0 - digest[index] / 64 for index, candidate in enumerate(candidates)})
        return answers


class Events:
    """Counts os.fsync / os.replace calls; SIGKILLs the process just before call number ``kill_at``."""

    def __init__(self, kill_at: int = 0) -> None:
        self.count, self.kill_at = 0, kill_at
        self.fsync, self.replace = os.fsync, os.replace
        os.fsync = self.wrap(self.fsync)
        os.replace = self.wrap(self.replace)

    def wrap(self, function):
        def counted(*args, **kwargs):
            self.count += 1
            if self.count == self.kill_at:
                os.kill(os.getpid(), signal.SIGKILL)
            return function(*args, **kwargs)

        return counted

    def restore(self) -> None:
        os.fsync, os.replace = self.fsync, self.replace


def run(data: str, out: Path, limit: int | None = None) -> None:
    options = EvalOptions(data=data, out=out, limit=limit, progress=False, chunk_size=4, allow_in_git=True)
    evaluate(FakeModel(), ["tind"], options)


def in_child(function) -> int:
    """Run ``function`` in a forked process; return its exit status (negative: the signal that ended it)."""
    pid = os.fork()
    if pid == 0:
        try:
            function()
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)


def main() -> None:
    data, work = sys.argv[1], Path(sys.argv[2])
    run(data, work / "old", limit=8)
    shutil.copytree(work / "old", work / "new")
    events = Events()
    run(data, work / "new")
    events.restore()
    total = events.count
    for number in range(1, total + 1):
        killed = work / f"killed-{number}"
        shutil.copytree(work / "old", killed)

        def killed_run(number=number, killed=killed):
            Events(kill_at=number)
            run(data, killed)

        status = in_child(killed_run)
        assert status == -signal.SIGKILL, f"event {number}: the run ended with {status}, not SIGKILL"
        shutil.copytree(killed, work / f"resumed-{number}")
        assert in_child(lambda number=number: run(data, work / f"resumed-{number}")) == 0
    print(f"EVENTS {total}", flush=True)


if __name__ == "__main__":
    main()
