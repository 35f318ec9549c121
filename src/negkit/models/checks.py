"""Model specs checked before anything loads: cheap tests that turn a broken model input into one clear error.

:func:`check_model_spec` looks at what a spec names without loading it: a GGUF file's header, a model folder's
``config.json``, tokenizer and weight files, an OpenAI-compatible server's URL, and whether a hub name can be
fetched at all (offline, a name that is not in the local cache fails at once, see :mod:`negkit.io.hub`). A path
that does not exist is reported as a missing path, never looked up on the hub. The loaders still catch what
only loading can show (:func:`negkit.models.registry.load_model` turns it into a :class:`NegkitError`).
"""

from __future__ import annotations

import json
import struct
from difflib import get_close_matches
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from negkit.errors import InputFormatError, NegkitError, quoted
from negkit.io.hub import in_hub_cache, looks_like_path, require_hub
from negkit.io.textfiles import read_json_object
from negkit.models.catalogue import catalogue_model, catalogue_names, is_catalogue_name, require_file
from negkit.models.gguf import GGUF_MAGIC, check_gguf_file

#: Files any one of which makes a folder's tokenizer loadable.
TOKENIZER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "vocab.json",
    "vocab.txt",
    "tokenizer.model",
    "spiece.model",
    "sentencepiece.bpe.model",
)
#: The model spec schemes ``--model`` takes (besides a bare path or hub name).
SCHEMES = ("default", "hf", "gguf", "openai", "nli", "embed", "vllm", "random", "constant", "majority")
#: Weight files (or shard indexes) transformers loads; variants (``model.fp16.safetensors``) end the same way.
WEIGHT_FILES = (
    "model.safetensors",
    "model.safetensors.index.json",
    "pytorch_model.bin",
    "pytorch_model.bin.index.json",
)
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".index.json", ".h5", ".msgpack", ".pt", ".pth")


def check_model_spec(spec: str, model_args: dict[str, Any] | None = None) -> None:
    """Raise a :class:`NegkitError` naming the file (or spec) when ``spec`` cannot be a loadable model
    (``model_args``: the loader options that change where files are: revision, subfolder, tokenizer)."""
    args = model_args or {}
    revision, subfolder = args.get("revision"), args.get("subfolder")
    tokenizer = not args.get("tokenizer")
    scheme, _, rest = spec.partition(":")
    if not spec.strip():
        raise NegkitError("--model is empty; use default, hf:PATH_OR_NAME, gguf:FILE, openai:URL#MODEL or nli:PATH")
    from negkit.models.baselines import is_baseline_spec, load_baseline  # loads torch: off the start-up path

    if is_baseline_spec(spec):
        load_baseline(spec, **args)  # nothing to load: the spec and its options are checked by building it
    elif is_catalogue_name(spec):
        check_gguf_file(require_file(catalogue_model(spec)))
    elif scheme == "gguf":
        check_gguf_file(Path(rest).expanduser())
    elif scheme == "openai":
        check_server_spec(rest)
    elif scheme in ("hf", "nli", "embed"):
        check_pretrained(rest, revision, subfolder, tokenizer)
    elif ":" in spec and not Path(spec).exists() and "/" not in scheme:
        raise NegkitError(
            f"unknown model spec {quoted(spec)}{did_you_mean(spec)}; use one of: {', '.join(SCHEMES)} "
            "(default, hf:PATH, gguf:FILE, openai:URL#MODEL, nli:PATH)"
        )
    elif scheme != "vllm":  # vLLM loads and checks its own models
        if not Path(spec).expanduser().exists() and did_you_mean(spec):
            raise NegkitError(
                f"unknown model {quoted(spec)}{did_you_mean(spec)}; a Hugging Face name or folder is written hf:{spec}"
            )
        check_pretrained(spec, revision, subfolder, tokenizer)


#: Specs without a path or name: a bare word close to one of these is taken for a misspelling.
BARE_SPECS = ("default", "random", "majority")


def did_you_mean(spec: str) -> str:
    """``" (did you mean 'default'?)"`` when ``spec`` looks like a misspelt built-in spec (``defualt``) or scheme
    (``hff:gpt2``, ``constnat:true``); "" otherwise (then ``spec`` is taken as it is)."""
    scheme, colon, rest = spec.partition(":")
    if colon and scheme not in SCHEMES and "/" not in scheme:
        match = get_close_matches(scheme.lower(), [name for name in SCHEMES if name not in BARE_SPECS], 1, 0.6)
        return f" (did you mean {quoted(match[0] + ':' + rest)}?)" if match else ""
    if colon or "/" in spec or spec in BARE_SPECS or is_catalogue_name(spec):
        return ""
    match = get_close_matches(spec.lower(), [*BARE_SPECS, *catalogue_names()], 1, 0.75)
    return f" (did you mean {quoted(match[0])}?)" if match else ""


def check_server_spec(rest: str) -> None:
    """``URL#MODEL[?chat]`` with an http(s) URL that has a host (and a numeric port if any)."""
    url, _, model = rest.partition("#")
    expected = "(expected openai:http://HOST:PORT/v1#MODEL)"
    try:
        parsed = urlparse(url)
    except ValueError as error:  # e.g. an unclosed IPv6 bracket
        raise NegkitError(f"openai model spec {quoted('openai:' + rest)}: not a URL ({error}) {expected}") from None
    problem = None
    if parsed.scheme not in ("http", "https"):
        problem = "needs an http:// or https:// URL"
    elif not parsed.hostname:
        problem = "the URL has no host"
    else:
        try:
            parsed.port  # noqa: B018 - raises on a non-numeric or out-of-range port
        except ValueError:
            problem = "the URL's port is not a number from 0 to 65535"
    if problem is None and not model.partition("?")[0].strip():
        problem = "no model name after '#'"
    if problem:
        raise NegkitError(f"openai model spec {quoted('openai:' + rest)}: {problem} {expected}")


def check_pretrained(
    name: str, revision: str | None = None, subfolder: str | None = None, tokenizer: bool = True
) -> None:
    """A transformers model folder (or its ``subfolder``) that has what loading needs (``tokenizer``: its
    tokenizer files too), or a hub id that can be fetched."""
    if not name.strip():
        raise NegkitError("empty model name (expected a folder or a hub name after the scheme)")
    path = Path(name).expanduser()
    if not path.exists():
        if looks_like_path(name):
            raise InputFormatError(name, None, "no such model folder")
        cached = f"{subfolder}/config.json" if subfolder else "config.json"
        if not in_hub_cache(name, cached, revision):
            require_hub("model", name)
        return
    check_model_folder(path / subfolder if subfolder else path, tokenizer)


def check_model_folder(path: Path, tokenizer: bool = True) -> None:
    """``config.json`` (a JSON object naming a model type), weights and, for ``tokenizer``, tokenizer files."""
    if path.is_file():
        if _starts_with(path, GGUF_MAGIC):
            raise InputFormatError(path, None, "a GGUF file; load it with --model gguf:FILE")
        raise InputFormatError(path, None, "a file, not a model folder (config.json, weights and tokenizer files)")
    try:
        names = {child.name for child in path.iterdir()}
    except OSError as error:
        raise InputFormatError(path, None, f"cannot read the model folder: {error.strerror or error}") from None
    if not names:
        raise InputFormatError(
            path, None, "empty folder (a model folder holds config.json, weights and tokenizer files)"
        )
    config = path / "config.json"
    if "config.json" not in names:
        raise InputFormatError(path, None, "no config.json: not a transformers model folder")
    data = read_json_object(config, "model configuration")
    if not isinstance(data.get("model_type"), str) and not isinstance(data.get("architectures"), list):
        raise InputFormatError(config, None, "no 'model_type' (not a transformers model configuration)")
    if not any(name.endswith(WEIGHT_SUFFIXES) and name != "training_args.bin" for name in names):
        raise InputFormatError(path, None, f"no weight files (expected one of {', '.join(WEIGHT_FILES)})")
    for weights in sorted(path.glob("*.safetensors")):
        check_safetensors_header(weights)
    if tokenizer and not any(name in names for name in TOKENIZER_FILES):
        raise InputFormatError(
            path, None, f"no tokenizer files (expected one of {', '.join(TOKENIZER_FILES[:4])}, ...)"
        )


def check_safetensors_header(path: Path) -> None:
    """A safetensors file's 8-byte header length and JSON header are whole, and its data is as long as it says."""
    try:
        size = path.stat().st_size
        with open(path, "rb") as handle:
            start = handle.read(8)
            if len(start) < 8:
                raise InputFormatError(path, None, f"truncated safetensors file ({size} bytes)")
            (length,) = struct.unpack("<Q", start)
            if length > min(size - 8, 100_000_000):
                raise InputFormatError(
                    path,
                    None,
                    f"not a safetensors file, or truncated (its header length is {length} bytes, the file {size})",
                )
            header = json.loads(handle.read(length).decode("utf-8"))
    except OSError as error:
        raise InputFormatError(path, None, f"cannot read: {error.strerror or error}") from None
    except (ValueError, UnicodeDecodeError):
        raise InputFormatError(path, None, "damaged safetensors header (not JSON)") from None
    if not isinstance(header, dict):
        raise InputFormatError(path, None, "damaged safetensors header (not a JSON object)")
    ends = [
        entry.get("data_offsets", [0, 0])[1]
        for key, entry in header.items()
        if key != "__metadata__"
        and isinstance(entry, dict)
        and isinstance(entry.get("data_offsets"), list)
        and len(entry["data_offsets"]) == 2
        and isinstance(entry["data_offsets"][1], int)
    ]
    if ends and 8 + length + max(ends) > size:
        raise InputFormatError(
            path, None, f"truncated safetensors file ({size} bytes; its header says {8 + length + max(ends)})"
        )


def _starts_with(path: Path, magic: bytes) -> bool:
    try:
        with open(path, "rb") as handle:
            return handle.read(len(magic)) == magic
    except OSError:
        return False
