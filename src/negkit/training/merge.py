"""The base model with a LoRA adapter merged into its weights, saved as an ordinary transformers folder.

The folder loads anywhere (``negkit eval --model hf:DIR``, transformers, vLLM, llama.cpp's converter) without PEFT.
It is written to a temporary folder beside the target and renamed into place when complete, with
``negkit_merged.json`` recording the base model's fingerprint and the adapter's hashes.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from negkit.errors import NegkitError
from negkit.io.atomic import atomic_write_json, fsync_folder, make_folder
from negkit.models.adapter import describe_adapter

MERGED_RECORD = "negkit_merged.json"


def merge_adapter(
    model: str, adapter: str | Path, out: str | Path, dtype: str = "float32", model_args: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Load ``model`` (``default``, ``hf:PATH``, ``gguf:FILE``), merge the adapter of ``adapter`` into it and save
    the result in ``out``; return the record written beside it."""
    from peft import PeftModel  # heavy: off the start-up path

    from negkit.models.registry import load_model  # loads torch: off the start-up path

    _check_target(Path(out))
    describe_adapter(adapter)  # a clear error for a folder that is not an adapter
    lm = load_model(model, dtype=dtype, **(model_args or {}))
    if not hasattr(lm, "model") or not hasattr(lm, "tokenizer"):
        raise NegkitError(f"{model}: only local transformers models can be merged")
    try:
        wrapped = PeftModel.from_pretrained(lm.model, str(adapter), is_trainable=False)
    except (ValueError, RuntimeError, KeyError, OSError) as error:
        raise NegkitError(f"cannot apply the adapter {adapter} to {model}: {error}") from None
    return save_merged(wrapped, lm, Path(out), Path(adapter), spec=model)


def save_merged(peft_model: Any, lm: Any, out: Path, adapter: Path, spec: str | None = None) -> dict[str, Any]:
    """Merge ``peft_model``'s adapter into its base (in place) and write the merged model and ``lm``'s tokenizer."""
    _check_target(out)
    info = describe_adapter(adapter)
    merged = peft_model.merge_and_unload()
    make_folder(out.parent)
    temporary = out.with_name(f".{out.name}.partial-{os.getpid()}")
    shutil.rmtree(temporary, ignore_errors=True)
    try:
        merged.save_pretrained(str(temporary), safe_serialization=True)
        lm.tokenizer.save_pretrained(str(temporary))
        result = {
            "base_model": {"spec": spec or lm.fingerprint.name, **lm.fingerprint.as_dict()},
            "adapter": info.as_dict(),
            "path": str(out),
        }
        atomic_write_json(temporary / MERGED_RECORD, result)
        for file in temporary.rglob("*"):
            if file.is_file():
                with open(file, "rb+") as handle:
                    os.fsync(handle.fileno())
        os.replace(temporary, out)
    except OSError as error:
        shutil.rmtree(temporary, ignore_errors=True)
        raise NegkitError(f"{out}: cannot write the merged model: {error.strerror or error}") from None
    fsync_folder(out.parent)
    return result


def _check_target(out: Path) -> None:
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise NegkitError(f"{out} already exists; the merged model goes to a new folder")
