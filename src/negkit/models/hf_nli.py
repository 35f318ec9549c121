"""transformers sequence-classification models (NLI): label names come from the model's config."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import torch

from negkit.engine.batching import LengthSortedBatcher, auto_token_budget
from negkit.errors import NegkitError
from negkit.models.base import ModelFingerprint
from negkit.engine.placement import input_device
from negkit.models.loading import load_pretrained

_GENERIC_LABEL = re.compile(r"LABEL_\d+", re.IGNORECASE)


def config_labels(config: Any) -> tuple[str, ...]:
    """The label names in output order from ``config.id2label`` (lower-cased); a clear error when the
    config only has generic names (``LABEL_0``...), since then nobody knows which output means what."""
    id2label = getattr(config, "id2label", None) or {}
    labels = tuple(str(id2label[index]).lower() for index in sorted(int(key) for key in id2label))
    if not labels or any(_GENERIC_LABEL.fullmatch(label) for label in labels):
        raise NegkitError(
            f"the model's config names its labels {list(labels) or 'nowhere'}; negkit cannot tell which output "
            "is entailment, neutral or contradiction. Use a model whose config.id2label names them."
        )
    return labels


def map_labels(model_labels: Sequence[str], wanted: Sequence[str]) -> dict[str, str]:
    """Map each wanted label (e.g. entailment) to the model's label of that name (case-insensitive,
    prefix match: ``entail`` matches ``entailment``); a clear error naming both lists otherwise."""
    mapping = {}
    for label in wanted:
        matches = [name for name in model_labels if name.lower().startswith(label.lower()[:6])]
        if len(matches) != 1:
            raise NegkitError(f"cannot map label {label!r} to the model's labels {list(model_labels)}")
        mapping[label] = matches[0]
    return mapping


class HFClassifier:
    """A sequence-pair classifier behind the :class:`negkit.models.base.Classifier` protocol."""

    def __init__(self, model: Any, tokenizer: Any, fingerprint: ModelFingerprint,
                 batch_size: int | None = None, token_budget: int | None = None) -> None:
        self.model = model.eval()
        self.tokenizer = tokenizer
        self.fingerprint = fingerprint
        self.labels = config_labels(model.config)
        self.batcher = LengthSortedBatcher(batch_size, token_budget or auto_token_budget(65536, str(input_device(model))))
        self.load_info: dict[str, Any] = {"batch_size": batch_size or "auto", "token_budget": self.batcher.token_budget}

    #: ``--model-args`` keys of this backend besides the loader's.
    ENGINE_ARGS = {"token_budget": "padded tokens per batch"}

    @classmethod
    def from_pretrained(cls, name: str, dtype: str | None = "float32", batch_size: int | None = None,
                        token_budget: int | None = None, **loader: Any) -> HFClassifier:
        model, tokenizer, fingerprint, info = load_pretrained("AutoModelForSequenceClassification", name, dtype, "nli", **loader)
        classifier = cls(model, tokenizer, fingerprint, batch_size, token_budget)
        classifier.load_info = {**info, **classifier.load_info}
        return classifier

    def classify(self, pairs: Sequence[tuple[str, str]]) -> list[dict[str, float]]:
        device = input_device(self.model)

        def process(indices: list[int]) -> list[dict[str, float]]:
            batch = [pairs[index] for index in indices]
            encoded = self.tokenizer([p for p, _ in batch], [h for _, h in batch], padding=True,
                                     truncation=True, return_tensors="pt").to(device)
            with torch.inference_mode():
                probabilities = torch.softmax(self.model(**encoded).logits.float(), dim=-1).cpu()
            return [dict(zip(self.labels, map(float, row))) for row in probabilities]

        lengths = [(len(first) + len(second)) // 4 + 3 for first, second in pairs]  # rough token counts
        return self.batcher.run(lengths, process)
