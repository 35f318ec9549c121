"""transformers sequence-classification models (NLI).

**Labels.** The label of each output comes from the model's ``config.id2label``, or from an explicit map,
``--model-args labels=[entailment,neutral,contradiction]`` (one name per output, in output order), which wins
over the config. A config that only says ``LABEL_0``, ``LABEL_1``... is refused without a map, since nobody can
tell which output means what; the error names the fix. The NaN-NLI authors' released checkpoints are such
models: their ``nli_infer.py`` reads ``LABEL_0`` as entailment, ``LABEL_1`` as neutral and ``LABEL_2`` as
contradiction (MNLI's order in the GLUE data). negkit applies that convention by itself to those checkpoints
(:data:`AUTHORS_CHECKPOINTS`, by hub name or by a local folder of the same name) when their config names no
labels, and ``labels=authors`` applies it to any model; the results record where the labels came from.

**Pair encoding** (``--model-args pair_encoding=...``):

- ``pair`` (default): the tokenizer's own text-pair encoding, ``tokenizer(premise, hypothesis)``, which is how
  MNLI classifiers are fine-tuned (transformers' ``run_glue``; for RoBERTa ``<s>P</s></s>H</s>``), so it matches
  how the checkpoints were trained;
- ``authors``: the string the NaN-NLI authors' ``nli_infer.py`` built and passed to a text-classification
  pipeline as ONE text, to reproduce their numbers exactly: ``"<s>" + P + "</s></s> " + H + "</s>"`` (for
  model names containing ``deberta``: ``"[CLS] " + P + " [SEP] " + H + " [SEP]"``), tokenized with the
  special tokens added again around it (so RoBERTa sees ``<s><s>P</s></s> H</s></s>``).
"""

from __future__ import annotations

import re
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

_GENERIC_LABEL = re.compile(r"LABEL_\d+", re.IGNORECASE)
#: The NaN-NLI authors' output order for their checkpoints (``LABEL_0``, ``LABEL_1``, ``LABEL_2``).
AUTHORS_LABELS: tuple[str, ...] = ("entailment", "neutral", "contradiction")
#: The checkpoints the NaN-NLI authors evaluated (their README); generic labels there mean AUTHORS_LABELS.
AUTHORS_CHECKPOINTS: tuple[str, ...] = (
    "joey234/cuenb-mnli",
    "joey234/cuenb-mnli-negnli",
    "joey234/roberta-base-mnli-negnli",
    "sileod/roberta-base-mnli",
)
PAIR_ENCODINGS: tuple[str, ...] = ("pair", "authors")


def _raw_config_labels(config: Any) -> tuple[str, ...]:
    id2label = getattr(config, "id2label", None) or {}
    return tuple(str(id2label[index]).lower() for index in sorted(int(key) for key in id2label))


def is_authors_checkpoint(name: str) -> bool:
    """True for one of :data:`AUTHORS_CHECKPOINTS`, given by hub name or as a local folder of the same name."""
    return name in AUTHORS_CHECKPOINTS or Path(name).name in {
        checkpoint.split("/")[1] for checkpoint in AUTHORS_CHECKPOINTS
    }


def config_labels(config: Any) -> tuple[str, ...]:
    """The label names in output order from ``config.id2label`` (lower-cased); a clear error when the
    config only has generic names (``LABEL_0``...), since then nobody knows which output means what."""
    labels = _raw_config_labels(config)
    if not labels or any(_GENERIC_LABEL.fullmatch(label) for label in labels):
        raise NegkitError(
            f"the model's config names its labels {list(labels) or 'nowhere'}; negkit cannot tell which output "
            "is entailment, neutral or contradiction. Name them in output order with --model-args "
            "labels=[entailment,neutral,contradiction] (labels=authors is the NaN-NLI authors' convention: "
            "LABEL_0 entailment, LABEL_1 neutral, LABEL_2 contradiction)."
        )
    return labels


def resolve_labels(config: Any, name: str, labels: Sequence[str] | str | None = None) -> tuple[tuple[str, ...], str]:
    """The label of each output and where it came from: ``"model-args"``, ``"config"`` or ``"authors"``.

    ``labels`` is a list of names in output order (``labels=[...]``) or ``"authors"`` (:data:`AUTHORS_LABELS`).
    Without it, the config's names are used; generic ``LABEL_n`` names of one of the authors' checkpoints
    take the authors' convention; any other generic config is an error.
    """
    outputs = int(getattr(config, "num_labels", 0) or len(_raw_config_labels(config)))
    if labels is None:
        raw = _raw_config_labels(config)
        if (
            raw
            and all(_GENERIC_LABEL.fullmatch(label) for label in raw)
            and is_authors_checkpoint(name)
            and outputs == 3
        ):
            return AUTHORS_LABELS, "authors"
        return config_labels(config), "config"
    source = "model-args"
    if isinstance(labels, str):
        if labels.lower() != "authors":
            raise NegkitError(
                f"--model-args labels: expected a list in brackets such as [entailment,neutral,contradiction] "
                f"or 'authors', got {labels!r}"
            )
        labels, source = AUTHORS_LABELS, "authors"
    names = tuple(str(label).strip().lower() for label in labels)
    if len(names) != outputs:
        raise NegkitError(
            f"--model-args labels: the model has {outputs} outputs but {len(names)} labels were given: {list(names)}"
        )
    if any(not label for label in names) or len(set(names)) != len(names):
        raise NegkitError(f"--model-args labels: labels must be distinct and non-empty, got {list(names)}")
    return names, source


def authors_pair_text(premise: str, hypothesis: str, model_name: str) -> str:
    """The single text the NaN-NLI authors' ``nli_infer.py`` built for a pair (see the module documentation)."""
    if "deberta" in model_name:
        return f"[CLS] {premise} [SEP] {hypothesis} [SEP]"
    return f"<s>{premise}</s></s> {hypothesis}</s>"


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

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        fingerprint: ModelFingerprint,
        batch_size: int | None = None,
        token_budget: int | None = None,
        labels: Sequence[str] | str | None = None,
        pair_encoding: str = "pair",
    ) -> None:
        if pair_encoding not in PAIR_ENCODINGS:
            raise NegkitError(
                f"--model-args pair_encoding: expected one of {', '.join(PAIR_ENCODINGS)}, got {pair_encoding!r}"
            )
        self.model = model.eval()
        self.tokenizer = tokenizer
        self.labels, self.labels_source = resolve_labels(model.config, fingerprint.name, labels)
        self.pair_encoding = pair_encoding
        extra = dict(fingerprint.extra)
        if self.labels_source != "config":  # the label map changes what the stored answers mean
            extra["labels"] = ",".join(self.labels)
        if pair_encoding != "pair":
            extra["pair_encoding"] = pair_encoding
        self.fingerprint = replace(fingerprint, extra=tuple(sorted(extra.items())))
        self.batcher = LengthSortedBatcher(
            batch_size, token_budget or auto_token_budget(65536, str(input_device(model)))
        )
        self.load_info: dict[str, Any] = {
            "batch_size": batch_size or "auto",
            "token_budget": self.batcher.token_budget,
            "labels": list(self.labels),
            "labels_from": self.labels_source,
            "pair_encoding": pair_encoding,
        }

    #: ``--model-args`` keys of this backend besides the loader's.
    ENGINE_ARGS = {
        "token_budget": "padded tokens per batch",
        "labels": "the label of each output in order, e.g. [entailment,neutral,contradiction], or authors",
        "pair_encoding": "pair (the tokenizer's text-pair encoding, default) or authors (NaN-NLI's nli_infer.py string)",
    }

    @classmethod
    def from_pretrained(
        cls,
        name: str,
        dtype: str | None = "float32",
        batch_size: int | None = None,
        token_budget: int | None = None,
        labels: Sequence[str] | str | None = None,
        pair_encoding: str = "pair",
        **loader: Any,
    ) -> HFClassifier:
        model, tokenizer, fingerprint, info = load_pretrained(
            "AutoModelForSequenceClassification", name, dtype, "nli", **loader
        )
        classifier = cls(model, tokenizer, fingerprint, batch_size, token_budget, labels, pair_encoding)
        classifier.load_info = {**info, **classifier.load_info}
        return classifier

    def classify(self, pairs: Sequence[tuple[str, str]]) -> list[dict[str, float]]:
        device = input_device(self.model)

        def process(indices: list[int]) -> list[dict[str, float]]:
            batch = [pairs[index] for index in indices]
            if self.pair_encoding == "authors":
                texts = [authors_pair_text(p, h, self.fingerprint.name) for p, h in batch]
                encoded = self.tokenizer(texts, padding=True, truncation=True, return_tensors="pt").to(device)
            else:
                encoded = self.tokenizer(
                    [p for p, _ in batch], [h for _, h in batch], padding=True, truncation=True, return_tensors="pt"
                ).to(device)
            with torch.inference_mode():
                probabilities = torch.softmax(self.model(**encoded).logits.float(), dim=-1).cpu()
            return [dict(zip(self.labels, map(float, row))) for row in probabilities]

        lengths = [(len(first) + len(second)) // 4 + 3 for first, second in pairs]  # rough token counts
        return self.batcher.run(lengths, process)
