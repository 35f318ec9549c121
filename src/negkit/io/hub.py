"""The Hugging Face hub, seen from negkit: is it reachable, and does a name look like a hub id or a path?

Loading a hub name without a network makes transformers and datasets retry for half a minute or more.
negkit decides first: :func:`hub_offline` is true when ``HF_HUB_OFFLINE`` (or ``TRANSFORMERS_OFFLINE`` /
``HF_DATASETS_OFFLINE``) is set, or when a quick connection to the hub's endpoint (``HF_ENDPOINT``, default
``https://huggingface.co``) fails within :data:`PROBE_SECONDS`; the answer is kept for the process. Then a name
that is not in the local cache fails at once with a message that says why.

:func:`looks_like_path` tells a path the user meant (``./x``, ``/x``, ``~/x``, ``x/y/z``, ``x/``, a file name
with an extension) from a hub id (``org/name``), so that a missing folder is reported as a missing path, not as
an unknown hub name (``org/name`` counts as a path too when ``./org`` is a folder).
"""

from __future__ import annotations

import os
import re
import socket
import threading
from pathlib import Path
from urllib.parse import urlparse

from negkit.errors import NegkitError

#: Seconds the reachability probe waits for a connection (name lookup included).
PROBE_SECONDS = 3.0
#: A hub id: ``name`` or ``org/name`` (letters, digits, ``-``, ``_``, ``.``; at most 96 characters each).
HUB_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,95}(/[A-Za-z0-9][A-Za-z0-9_.-]{0,95})?")
_OFFLINE_VARIABLES = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE")
_FILE_SUFFIXES = (
    ".gguf",
    ".bin",
    ".safetensors",
    ".json",
    ".pt",
    ".pth",
    ".ckpt",
    ".zip",
    ".jsonl",
    ".parquet",
    ".csv",
    ".txt",
    ".onnx",
    ".model",
)
_probe_result: bool | None = None


def offline_by_setting() -> bool:
    """Whether the environment says to stay offline (``HF_HUB_OFFLINE=1`` and the like)."""
    return any(os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on") for name in _OFFLINE_VARIABLES)


def endpoint() -> str:
    return os.environ.get("HF_ENDPOINT", "https://huggingface.co")


def hub_reachable() -> bool:
    """Whether a TCP connection to the hub's endpoint opens within :data:`PROBE_SECONDS` (probed once)."""
    global _probe_result
    if _probe_result is None:
        _probe_result = _probe(endpoint(), PROBE_SECONDS)
    return _probe_result


def hub_offline() -> bool:
    """True when the hub must not or cannot be used (see the module documentation)."""
    return offline_by_setting() or not hub_reachable()


def offline_reason() -> str:
    if offline_by_setting():
        names = [name for name in _OFFLINE_VARIABLES if os.environ.get(name)]
        return f"{names[0]} is set"
    return f"{endpoint()} cannot be reached"


def looks_like_path(name: str) -> bool:
    """Whether ``name`` was meant as a file or folder rather than a hub id (see the module documentation)."""
    if not name:
        return False
    if name.startswith(("/", "./", "../", "~", ".\\", "..\\")) or name in (".", "..") or "\\" in name:
        return True
    if name.endswith("/") or name.count("/") > 1 or "//" in name:
        return True
    if any(part in (".", "..") for part in name.split("/")):
        return True
    if name.lower().endswith(_FILE_SUFFIXES):
        return True
    if "/" in name and Path(name.split("/")[0]).is_dir():
        return True  # runs/model where ./runs is a folder: a path whose last part is missing
    return not HUB_ID_RE.fullmatch(name)


def require_hub(what: str, name: str) -> None:
    """Raise a :class:`NegkitError` at once when the hub is needed for ``name`` but offline."""
    if hub_offline():
        raise NegkitError(
            f"{what} {name!r} is not a local path and the Hugging Face hub cannot be used ({offline_reason()}); "
            "pass a local folder, or download it first where there is a network"
        )


def in_hub_cache(
    repo_id: str, filename: str = "config.json", revision: str | None = None, repo_type: str = "model"
) -> bool:
    """Whether ``filename`` of ``repo_id`` is in the local Hugging Face cache."""
    try:
        from huggingface_hub import try_to_load_from_cache  # optional library, imported when used
    except ImportError:
        return False
    try:
        found = try_to_load_from_cache(repo_id, filename, revision=revision, repo_type=repo_type)
    except Exception:  # noqa: BLE001 - an invalid id or cache layout means: not cached
        return False
    return isinstance(found, str)


def _probe(url: str, seconds: float) -> bool:
    parsed = urlparse(url)
    host = parsed.hostname
    if not host:
        return False
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    result: list[bool] = []

    def connect() -> None:
        try:
            with socket.create_connection((host, port), timeout=seconds):
                result.append(True)
        except OSError:
            result.append(False)

    # name lookup is not bounded by the socket timeout: run the probe in a thread and stop waiting
    thread = threading.Thread(target=connect, daemon=True)
    thread.start()
    thread.join(seconds)
    return bool(result and result[0])
