"""A ``--model`` string parsed once: :class:`ModelSpec`.

The spec says which backend answers (see :mod:`negkit.models.registry` for the table): ``default``, ``hf:NAME``,
``gguf:FILE``, ``openai:URL#MODEL``, ``vllm:NAME``, ``nli:NAME``, ``embed:NAME`` (a sentence embedding model; a local
folder in the sentence-transformers layout is one by its path alone), the baselines ``random``, ``constant:ANSWER`` and
``majority``, and anything else as ``hf:``. Every part of negkit that needs to know what kind of model a spec names
(a classifier? a server? a pseudo-model?) asks the parsed spec instead of looking at prefixes itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

#: Schemes written ``SCHEME:REST``.
PREFIXED = ("hf", "gguf", "openai", "vllm", "nli", "embed", "constant")
#: Files that mark a local folder as a sentence-transformers model: its bare path is an ``embed:`` spec.
EMBEDDING_MARKERS = ("modules.json", "config_sentence_transformers.json")
#: Baseline pseudo-models.
BASELINES = ("random", "constant", "majority")


@dataclass(frozen=True)
class ModelSpec:
    """What a ``--model`` string names: its ``kind`` (``default``, ``hf``, ``gguf``, ``openai``, ``vllm``, ``nli``,
    ``embed``, ``random``, ``constant``, ``majority``), the ``target`` after the scheme (a path, hub name, URL or constant
    answer; the whole string for a bare name) and the string as given."""

    text: str
    kind: str
    target: str

    @property
    def is_classifier(self) -> bool:
        """A sequence-classification (NLI) model: it answers ``classify``, not log-likelihoods."""
        return self.kind == "nli"

    @property
    def is_embedding(self) -> bool:
        """A bi-encoder (sentence embedding model): it answers ``similarity``, not log-likelihoods."""
        return self.kind == "embed"

    @property
    def model_kind(self) -> str:
        """The task model kind the spec's model serves: ``classifier``, ``embedding`` or ``language_model``."""
        return "classifier" if self.is_classifier else "embedding" if self.is_embedding else "language_model"

    @property
    def is_server(self) -> bool:
        """An OpenAI-compatible server: nothing loads here, and it cannot be fine-tuned."""
        return self.kind == "openai"

    @property
    def is_baseline(self) -> bool:
        """A baseline pseudo-model (``random``, ``constant:ANSWER``, ``majority``)."""
        return self.kind in BASELINES

    @property
    def takes_adapter(self) -> bool:
        """A local transformers model a LoRA adapter can be put on (default, hf:, gguf:, nli:)."""
        return self.kind in ("default", "hf", "gguf", "nli")

    @property
    def fine_tunable(self) -> bool:
        """A local model ``negkit finetune`` can train (a causal LM with LoRA, or an NLI classifier whole)."""
        return self.kind in ("default", "hf", "gguf", "nli")


def parse_model_spec(text: str) -> ModelSpec:
    """The parsed spec (no check that what it names exists: :func:`negkit.models.checks.check_model_spec`)."""
    scheme, colon, rest = text.partition(":")
    if text in ("default", "random", "majority"):
        return ModelSpec(text, text, "")
    if colon and scheme in PREFIXED:
        return ModelSpec(text, scheme, rest)
    folder = Path(text).expanduser()
    if folder.is_dir() and any((folder / marker).is_file() for marker in EMBEDDING_MARKERS):
        return ModelSpec(text, "embed", text)
    return ModelSpec(text, "hf", text)
