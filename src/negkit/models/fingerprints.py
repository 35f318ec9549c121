"""File hashes and the negkit cache folder (shared by the model loaders and the run store)."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path

WEIGHT_SUFFIXES = (".safetensors", ".bin", ".gguf", ".pt", ".pth")
#: The files of a model folder besides its weights that change its answers: configuration, tokenizer, chat template.
SUPPORT_FILES = (
    "config.json",
    "generation_config.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "added_tokens.json",
    "vocab.json",
    "vocab.txt",
    "merges.txt",
    "tokenizer.model",
    "spiece.model",
    "sentencepiece.bpe.model",
    "chat_template.jinja",
    "chat_template.json",
)


def cache_dir() -> Path:
    """negkit's cache folder: ``NEGKIT_CACHE``, else ``$XDG_CACHE_HOME/negkit``, else ``~/.cache/negkit``."""
    if os.environ.get("NEGKIT_CACHE"):
        return Path(os.environ["NEGKIT_CACHE"])
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "negkit"


#: Hashes this process already knows: "path|size|mtime_ns" -> SHA-256 (a run hashes each data file once per task).
_KNOWN_HASHES: dict[str, str] = {}
#: At most this many hashes are remembered in ``sha256.json`` (the oldest go first): every lookup reads the file.
MEMO_ENTRIES = 2048


def file_sha256(path: str | os.PathLike[str]) -> str:
    """SHA-256 of a file, remembered by (path, size, mtime): for the process, and in the cache's ``sha256.json``
    (the last :data:`MEMO_ENTRIES`) so that big files are hashed once."""
    path = Path(path).resolve()
    stat = path.stat()
    memo_key = f"{path}|{stat.st_size}|{stat.st_mtime_ns}"
    if memo_key in _KNOWN_HASHES:
        return _KNOWN_HASHES[memo_key]
    memo_path = cache_dir() / "sha256.json"
    try:
        memo: dict[str, str] = json.loads(memo_path.read_text())
    except (OSError, ValueError):
        memo = {}
    if memo_key not in memo:
        digest = hashlib.sha256()
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        memo[memo_key] = digest.hexdigest()
        for stale in list(memo)[: max(0, len(memo) - MEMO_ENTRIES)]:
            del memo[stale]
        try:
            memo_path.parent.mkdir(parents=True, exist_ok=True)
            temporary = memo_path.with_suffix(f".{os.getpid()}.tmp")
            temporary.write_text(json.dumps(memo))
            os.replace(temporary, memo_path)
        except OSError:
            pass  # the hash is still right; it is just not remembered
    _KNOWN_HASHES[memo_key] = memo[memo_key]
    return memo[memo_key]


def files_sha256(paths: Iterable[str | os.PathLike[str]]) -> str:
    """One SHA-256 over the hashes of several files (sorted by name)."""
    digest = hashlib.sha256()
    for path in sorted(Path(p) for p in paths):
        digest.update(f"{path.name}:{file_sha256(path)}\n".encode())
    return digest.hexdigest()


def weights_sha256(folder: str | os.PathLike[str]) -> str | None:
    """Hash of the weight files in a model folder, or ``None`` when it holds none."""
    weights = [path for path in Path(folder).iterdir() if path.suffix in WEIGHT_SUFFIXES]
    return files_sha256(weights) if weights else None


def support_files_sha256(folder: str | os.PathLike[str]) -> str | None:
    """Hash of a model folder's configuration, tokenizer and chat template files (:data:`SUPPORT_FILES`), or
    ``None`` when it holds none: an edited tokenizer or configuration gives another model fingerprint."""
    files = [Path(folder) / name for name in SUPPORT_FILES if (Path(folder) / name).is_file()]
    return files_sha256(files) if files else None
