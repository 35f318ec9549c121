"""What a fine-tuning run writes next to its adapter so that it can be reproduced and recognised.

``negkit_training.json`` (:data:`TRAINING_RECORD`) holds the exact command, the base model's fingerprint, the
training data (source files with their SHA-256, the filters, counts, and a hash of the examples' text), every
option, the LoRA configuration, library versions, the device, and the outcome. Its SHA-256 is the adapter's
*training config hash*, recorded by ``negkit eval --adapter``.

The *plan* is the part that decides the numbers (model, data, options); a rerun with the same plan resumes from
the last checkpoint, a different plan in the same folder is refused.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
from collections.abc import Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

from negkit import __version__
from negkit.errors import NegkitError
from negkit.models.fingerprints import file_sha256

#: File names inside a fine-tuning output folder.
TRAINING_RECORD = "negkit_training.json"
PLAN_FILE = "negkit_plan.json"
TRAIN_LOG = "train_log.jsonl"
TRAIN_LOG_CSV = "train_log.csv"
CHECKPOINTS = "checkpoints"

_LIBRARIES = ("torch", "transformers", "peft", "accelerate", "tokenizers", "safetensors", "numpy")


def library_versions() -> dict[str, str | None]:
    """negkit, Python and the installed versions of the libraries training depends on."""
    versions: dict[str, str | None] = {"negkit": __version__, "python": sys.version.split()[0]}
    for name in _LIBRARIES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def environment() -> dict[str, Any]:
    """Where the run happened (no host names or paths): platform, CPU count, torch threads, GPU if any."""
    import torch  # heavy: off the start-up path

    info: dict[str, Any] = {
        "platform": platform.platform(terse=True),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
    }
    if torch.cuda.is_available():
        info["gpu"] = torch.cuda.get_device_name(0)
        info["gpu_count"] = torch.cuda.device_count()
        info["deterministic_kernels"] = torch.are_deterministic_algorithms_enabled()
        info["cublas_workspace_config"] = os.environ.get("CUBLAS_WORKSPACE_CONFIG")
    return info


def file_entries(paths: list[Path]) -> list[dict[str, Any]]:
    """``{"name", "sha256", "bytes"}`` of each existing data file (names only: no machine paths)."""
    entries = []
    for path in paths:
        path = Path(path)
        if path.is_file():
            entries.append({"name": path.name, "sha256": file_sha256(path), "bytes": path.stat().st_size})
    return entries


def jsonable(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` as it reads back from JSON (tuples become lists): what a finished run returns either way."""
    copy: dict[str, Any] = json.loads(json.dumps(data))
    return copy


def canonical_sha256(data: Any) -> str:
    """SHA-256 of ``data`` as canonical JSON (sorted keys, no spaces)."""
    return hashlib.sha256(json.dumps(data, sort_keys=True, separators=(",", ":")).encode("utf-8")).hexdigest()


def read_json(path: Path) -> dict[str, Any] | None:
    """A JSON object from ``path``, or None when the file is absent; a damaged file is an error naming it."""
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as error:
        raise NegkitError(f"{path}: not a valid negkit record ({error}); remove it or use another --out") from None
    if not isinstance(data, dict):
        raise NegkitError(f"{path}: not a valid negkit record (expected a JSON object)")
    return data


def plan_differences(old: Mapping[str, Any], new: Mapping[str, Any], prefix: str = "") -> list[str]:
    """Dotted names of the entries that differ between two plans (for the 'different run' error)."""
    differences = []
    for key in sorted(set(old) | set(new)):
        name = f"{prefix}{key}"
        left, right = old.get(key), new.get(key)
        if isinstance(left, Mapping) and isinstance(right, Mapping):
            differences += plan_differences(left, right, f"{name}.")
        elif left != right:
            differences.append(name)
    return differences


def check_plan(out: Path, plan: dict[str, Any]) -> bool:
    """True when ``out`` already holds this plan (resume), False when it holds none; an error when it holds
    another one."""
    old = read_json(out / PLAN_FILE)
    if old is None:
        return False
    plan = jsonable(plan)
    if old != plan:
        differing = ", ".join(plan_differences(old, plan)[:8])
        raise NegkitError(
            f"{out} holds another fine-tuning run (different: {differing}); use another --out or remove the folder"
        )
    return True
