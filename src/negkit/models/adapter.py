"""LoRA (PEFT) adapters on a loaded transformers model, for ``negkit eval --adapter DIR``.

:func:`apply_adapter` loads the adapter into the backend's model in place and, by default, merges it into the
weights (same answers, plain forward passes, so batching and prefix reuse work unchanged). The adapter changes the
model's fingerprint (``extra["adapter_sha256"]``), so the run store never mixes answers of the base model and the
tuned one, and ``model.load_info["adapter"]`` records the adapter's folder, weights hash and training config hash
(the SHA-256 of ``negkit_training.json``, written by ``negkit finetune``; None for adapters trained elsewhere).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from negkit.errors import NegkitError
from negkit.models.fingerprints import file_sha256, files_sha256

ADAPTER_CONFIG = "adapter_config.json"
ADAPTER_WEIGHTS = ("adapter_model.safetensors", "adapter_model.bin")
TRAINING_RECORD = "negkit_training.json"


@dataclass(frozen=True)
class AdapterInfo:
    """What identifies an adapter: where it is, its weights and the record of its training."""

    path: str
    weights_sha256: str
    training_config_sha256: str | None
    #: The base model's fingerprint at training time (from the training record), if known.
    base_model: dict[str, Any] | None
    #: What it was trained on (from the training record): TIND groups, source file hashes.
    trained_on: dict[str, Any] | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "weights_sha256": self.weights_sha256,
            "training_config_sha256": self.training_config_sha256,
            "base_model_sha256": (self.base_model or {}).get("sha256"),
        }


def adapter_weights_sha256(folder: str | Path) -> str:
    """Hash of an adapter folder's weight file(s)."""
    folder = Path(folder)
    weights = [folder / name for name in ADAPTER_WEIGHTS if (folder / name).is_file()]
    if not weights:
        raise NegkitError(f"{folder}: no adapter weights ({' or '.join(ADAPTER_WEIGHTS)})")
    return files_sha256(weights)


def describe_adapter(folder: str | Path) -> AdapterInfo:
    """Read what identifies the adapter in ``folder``; a clear error when it is not a PEFT adapter folder."""
    folder = Path(folder)
    if not folder.is_dir():
        raise NegkitError(f"adapter folder not found: {folder}")
    if not (folder / ADAPTER_CONFIG).is_file():
        raise NegkitError(f"{folder}: not a PEFT adapter folder (no {ADAPTER_CONFIG})")
    training = folder / TRAINING_RECORD
    base = trained_on = None
    config_sha = None
    if training.is_file():
        config_sha = file_sha256(training)
        try:
            data = json.loads(training.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as error:
            raise NegkitError(f"{training}: not valid JSON ({error})") from None
        base = data.get("base_model") if isinstance(data, dict) else None
        trained_on = (data.get("data") or {}).get("train") if isinstance(data, dict) else None
    return AdapterInfo(str(folder), adapter_weights_sha256(folder), config_sha, base, trained_on)


def apply_adapter(model: Any, folder: str | Path, merge: bool = True) -> Any:
    """Put the adapter of ``folder`` into ``model`` (a negkit transformers backend) in place and return it.

    ``merge`` folds the LoRA weights into the base weights (falls back to unmerged layers where the weights
    cannot be merged, e.g. quantized ones)."""
    info = describe_adapter(folder)
    inner = getattr(model, "model", None)
    if inner is None or not hasattr(inner, "parameters"):
        raise NegkitError("--adapter needs a local transformers model (default, hf:PATH, gguf:FILE, nli:PATH)")
    from peft import PeftModel  # heavy: off the start-up path

    try:
        wrapped = PeftModel.from_pretrained(inner, str(folder), is_trainable=False)
    except (ValueError, RuntimeError, KeyError, OSError) as error:
        raise NegkitError(f"cannot apply the adapter {folder} to {model.fingerprint.name}: {error}") from None
    check_finite_adapter(wrapped, folder)
    merged = False
    if merge:
        try:
            wrapped.merge_and_unload()  # merges in place: ``inner`` now holds the merged weights
            merged = True
        except (ValueError, RuntimeError, NotImplementedError):
            merged = False
    inner.eval()
    model.fingerprint = replace(
        model.fingerprint, extra=(*model.fingerprint.extra, ("adapter_sha256", info.weights_sha256))
    )
    base_sha = (info.base_model or {}).get("sha256")
    load_info = dict(getattr(model, "load_info", None) or {})
    load_info["adapter"] = {
        **info.as_dict(),
        "merged": merged,
        "base_matches": None
        if base_sha is None or model.fingerprint.sha256 is None
        else base_sha == model.fingerprint.sha256,
    }
    if load_info["adapter"]["base_matches"] is False:
        print(
            f"negkit: warning: the adapter {folder} was trained on another base model (weights sha256 "
            f"{str(base_sha)[:12]}..., this model {str(model.fingerprint.sha256)[:12]}...)",
            file=sys.stderr,
        )
    model.load_info = load_info
    model.adapter = info
    return model


def check_finite_adapter(wrapped: Any, folder: str | Path) -> None:
    """A clear error when the adapter's weights hold NaN or infinite values (written by a training that diverged):
    a model with such weights returns NaN scores, which no metric may count."""
    import torch  # loaded by peft already

    adapter = [(name, weight) for name, weight in wrapped.named_parameters() if "lora_" in name]
    broken = [name for name, weight in adapter if not bool(torch.isfinite(weight).all())]
    if broken:
        raise NegkitError(
            f"{folder}: {len(broken)} of the adapter's {len(adapter)} weight tensors hold NaN or infinite values "
            f"({broken[0]}, ...): the training that wrote it diverged, so it cannot be evaluated"
        )


def overlapping_groups(model: Any, items: list[Any], files: list[Path]) -> int:
    """How many TIND groups among ``items`` the model's adapter was trained on (0 when unknown or not TIND).

    Compared only when the evaluated data files are the training data files (same hashes)."""
    info = getattr(model, "adapter", None)
    trained = (info.trained_on or {}) if info is not None else {}
    keys = trained.get("group_keys")
    if not keys or not items or not hasattr(items[0], "group_key"):
        return 0
    trained_files = {entry.get("sha256") for entry in trained.get("files", [])}
    evaluated = {file_sha256(path) for path in files if Path(path).is_file()}
    if not trained_files or not evaluated or not trained_files & evaluated:
        return 0
    trained_keys = {tuple(key) for key in keys}
    return len({item.group_key for item in items} & trained_keys)
