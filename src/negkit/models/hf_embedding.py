"""transformers bi-encoders (sentence embedding models): each text becomes one vector, and two texts score the cosine
similarity of their vectors (:class:`negkit.models.base.EmbeddingModel`).

A model is a folder or hub name in the sentence-transformers layout (``modules.json``, ``1_Pooling/config.json``,
``sentence_bert_config.json``; e.g. all-MiniLM-L6-v2), named ``embed:PATH`` or, for a local folder with a
``modules.json`` or ``config_sentence_transformers.json``, by its path alone. negkit runs the transformer with
``transformers.AutoModel`` and pools its last hidden states itself, as the folder's pooling configuration says:
the mean over the non-padding tokens (``pooling_mode_mean_tokens``, the default when no configuration is found) or
the first token (``pooling_mode_cls_token``); other pooling modes are refused. Texts longer than the folder's
``max_seq_length`` (default: the tokenizer's limit) are cut there, as sentence-transformers does. A normalising
module does not change a cosine, so it is not needed. No sentence-transformers code runs: the protocol is a few
lines of tensor algebra over a model transformers already loads.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import torch

from negkit.engine.batching import LengthSortedBatcher, auto_token_budget
from negkit.engine.placement import input_device
from negkit.errors import NegkitError
from negkit.models.base import ModelFingerprint
from negkit.models.loading import load_pretrained
from negkit.models.spec import EMBEDDING_MARKERS as MARKERS

POOLINGS: tuple[str, ...] = ("mean", "cls")


def is_embedding_folder(path: str | Path) -> bool:
    """True for a local folder in the sentence-transformers layout (see :data:`MARKERS`)."""
    folder = Path(path).expanduser()
    return folder.is_dir() and any((folder / marker).is_file() for marker in MARKERS)


def folder_settings(path: str | Path) -> tuple[str, int | None]:
    """The pooling (``mean`` or ``cls``) and ``max_seq_length`` of a sentence-transformers folder (``mean`` and
    None when it has no such files, e.g. a hub name)."""
    folder = Path(path).expanduser()
    pooling, max_length = "mean", None
    config = folder / "1_Pooling" / "config.json"
    if config.is_file():
        try:
            modes = json.loads(config.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise NegkitError(f"{config}: cannot read the pooling configuration ({error})") from None
        chosen = [key for key, value in modes.items() if key.startswith("pooling_mode_") and value is True]
        names = {"pooling_mode_mean_tokens": "mean", "pooling_mode_cls_token": "cls"}
        if len(chosen) != 1 or chosen[0] not in names:
            raise NegkitError(
                f"{config}: pooling {chosen or 'none'} is not supported; negkit pools by the mean of the tokens "
                "(pooling_mode_mean_tokens) or by the first token (pooling_mode_cls_token)"
            )
        pooling = names[chosen[0]]
    settings = folder / "sentence_bert_config.json"
    if settings.is_file():
        try:
            value = json.loads(settings.read_text(encoding="utf-8")).get("max_seq_length")
        except (OSError, ValueError, AttributeError) as error:
            raise NegkitError(f"{settings}: cannot read the model settings ({error})") from None
        max_length = int(value) if isinstance(value, int) and value > 0 else None
    return pooling, max_length


def pool(hidden: torch.Tensor, mask: torch.Tensor, pooling: str) -> torch.Tensor:
    """One vector per sequence: the mean of the hidden states over the tokens ``mask`` keeps, or the first one."""
    if pooling == "cls":
        return hidden[:, 0]
    weights = mask.unsqueeze(-1).to(hidden.dtype)
    return (hidden * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1e-9)


def cosine(first: torch.Tensor, second: torch.Tensor) -> float:
    """The cosine similarity of two vectors (0 when one is zero)."""
    return float(torch.nn.functional.cosine_similarity(first.float(), second.float(), dim=0, eps=1e-12))


class HFEmbeddingModel:
    """A bi-encoder behind the :class:`negkit.models.base.EmbeddingModel` protocol."""

    #: ``--model-args`` keys of this backend besides the loader's.
    ENGINE_ARGS = {
        "token_budget": "padded tokens per batch",
        "pooling": "mean or cls (default: the folder's 1_Pooling/config.json, else mean)",
        "max_length": "tokens per text at most (default: the folder's max_seq_length, else the tokenizer's)",
    }

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        fingerprint: ModelFingerprint,
        pooling: str = "mean",
        max_length: int | None = None,
        batch_size: int | None = None,
        token_budget: int | None = None,
    ) -> None:
        if pooling not in POOLINGS:
            raise NegkitError(f"--model-args pooling: expected one of {', '.join(POOLINGS)}, got {pooling!r}")
        self.model, self.tokenizer = model.eval(), tokenizer
        self.pooling, self.max_length = pooling, max_length
        extra = {**dict(fingerprint.extra), "pooling": pooling, "max_length": str(max_length)}
        self.fingerprint = replace(fingerprint, extra=tuple(sorted(extra.items())))
        self.batcher = LengthSortedBatcher(
            batch_size, token_budget or auto_token_budget(32768, str(input_device(model)))
        )
        self.load_info: dict[str, Any] = {
            "pooling": pooling,
            "max_length": max_length,
            "batch_size": batch_size or "auto",
            "token_budget": self.batcher.token_budget,
        }

    @classmethod
    def from_pretrained(
        cls,
        name: str,
        dtype: str | None = "float32",
        batch_size: int | None = None,
        token_budget: int | None = None,
        pooling: str | None = None,
        max_length: int | None = None,
        **loader: Any,
    ) -> HFEmbeddingModel:
        folder_pooling, folder_length = folder_settings(name)
        model, tokenizer, fingerprint, info = load_pretrained("AutoModel", name, dtype, "embed", **loader)
        embedder = cls(
            model,
            tokenizer,
            fingerprint,
            pooling or folder_pooling,
            max_length or folder_length,
            batch_size,
            token_budget,
        )
        embedder.load_info = {**info, **embedder.load_info}
        return embedder

    def embed(self, texts: Sequence[str]) -> torch.Tensor:
        """One pooled vector per text (rows in the texts' order)."""
        device = input_device(self.model)
        limit = {"max_length": self.max_length} if self.max_length else {}

        def process(indices: list[int]) -> list[torch.Tensor]:
            encoded = self.tokenizer(
                [texts[index] for index in indices], padding=True, truncation=True, return_tensors="pt", **limit
            ).to(device)
            with torch.inference_mode():
                hidden = self.model(**encoded).last_hidden_state
            return list(pool(hidden, encoded["attention_mask"], self.pooling).float().cpu())

        lengths = [len(text) // 4 + 2 for text in texts]  # rough token counts, for the batch sizes
        vectors = self.batcher.run(lengths, process)
        return torch.stack(vectors) if vectors else torch.zeros((0, 0))

    def similarity(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """The cosine similarity of each pair's embeddings (each distinct text embedded once)."""
        texts = list(dict.fromkeys(text for pair in pairs for text in pair))
        vectors = self.embed(texts)
        row = {text: index for index, text in enumerate(texts)}
        return [cosine(vectors[row[first]], vectors[row[second]]) for first, second in pairs]
