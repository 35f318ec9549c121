"""File hashes (negkit.models.fingerprints.file_sha256): right, remembered for the process and in the cache's
sha256.json, which keeps only the last MEMO_ENTRIES; a changed file is hashed anew."""

from __future__ import annotations

import hashlib
import json
import os

from negkit.models import fingerprints


def test_hashes_are_remembered_and_the_memo_file_stays_bounded(tmp_path, monkeypatch):
    monkeypatch.setenv("NEGKIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(fingerprints, "MEMO_ENTRIES", 3)
    monkeypatch.setattr(fingerprints, "_KNOWN_HASHES", {})
    files = []
    for number in range(5):
        path = tmp_path / f"file-{number}.txt"
        path.write_text(f"invented content {number}\n")
        files.append(path)
        assert fingerprints.file_sha256(path) == hashlib.sha256(path.read_bytes()).hexdigest()
    memo = json.loads((tmp_path / "cache" / "sha256.json").read_text())
    assert len(memo) == 3 and all(str(files[n].resolve()) in " ".join(memo) for n in (2, 3, 4))
    (tmp_path / "cache" / "sha256.json").unlink()  # the process still knows: nothing is read or hashed again
    assert fingerprints.file_sha256(files[0]) == hashlib.sha256(files[0].read_bytes()).hexdigest()
    assert not (tmp_path / "cache" / "sha256.json").exists()
    files[0].write_text("changed, and longer than before\n")
    os.utime(files[0], ns=(1, 1))
    assert fingerprints.file_sha256(files[0]) == hashlib.sha256(files[0].read_bytes()).hexdigest()
