"""Scope resolvers: given a sentence and one cue, label every word as in or out of the cue's scope.

Two variants from the literature:

* ``"marker"`` (NegBERT, Khandelwal & Sawant 2020): a special token is inserted before each cue word
  (``[NEGCUE]`` for a whole-word cue, ``[AFFCUE]`` for a word carrying an affix cue) and the encoder's
  output on each word's first subword is classified;
* ``"bilstm"`` (the "BiLSTM-tagger" of Sineva et al. 2021): a cue/affix-cue/not-cue embedding is
  concatenated to the encoder outputs and fed to a small BiLSTM before classification.

A word carrying an affix cue of the instance contributes the rest of the word ("possible" in "impossible")
when it is predicted in scope; whole-word cue tokens never belong to their own scope.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from negkit.errors import InputFormatError
from negkit.io.atomic import atomic_write_json
from negkit.io.textfiles import read_json_object
from negkit.resolution.cue_lexicon import affix_remainder
from negkit.resolution.instances import NegationInstance, ResolutionSentence, TokenPart
from negkit.resolution.neural import (
    IGNORED,
    NetworkConfig,
    Tagger,
    TaggingExample,
    TrainingReport,
    TrainingSettings,
    seed_everything,
    train_network,
)

VARIANTS = ("marker", "bilstm")
CUE_MARKER, AFFIX_MARKER = "[NEGCUE]", "[AFFCUE]"
NOT_CUE_ID, CUE_ID, AFFIX_ID = 0, 1, 2
_SCOPE_FILE = "scope_resolver.json"


@dataclass
class ScopeExample:
    """A tagging example for one (sentence, cue) pair and the original word position of each of its words."""

    example: TaggingExample
    positions: list[int | None]


class ScopeResolver:
    """Predicts the scope of given cues; ``variant`` is ``"marker"`` or ``"bilstm"``."""

    def __init__(
        self,
        variant: str = "marker",
        encoder: str = "all-MiniLM-L6-v2",
        settings: TrainingSettings | None = None,
        max_length: int = 160,
        lstm_hidden: int = 128,
        cue_embedding_dim: int = 16,
        lstm_layers: int = 1,
        network_options: dict[str, Any] | None = None,
    ) -> None:
        if variant not in VARIANTS:
            raise ValueError(f"unknown scope resolver variant {variant!r} (expected one of {', '.join(VARIANTS)})")
        self.variant = variant
        self.encoder = encoder
        self.settings = settings or TrainingSettings()
        self.max_length = max_length
        self.lstm_hidden = lstm_hidden
        self.cue_embedding_dim = cue_embedding_dim
        self.lstm_layers = lstm_layers
        #: Extra :class:`~negkit.resolution.neural.NetworkConfig` settings (dropouts, layer mix).
        self.network_options = dict(network_options or {})
        self.tagger: Tagger | None = None
        self.report: TrainingReport | None = None

    def network_config(self) -> NetworkConfig:
        if self.variant == "marker":
            return NetworkConfig(
                2, max_length=self.max_length, extra_tokens=[CUE_MARKER, AFFIX_MARKER], **self.network_options
            )
        return NetworkConfig(
            2,
            cue_embedding_dim=self.cue_embedding_dim,
            lstm_hidden=self.lstm_hidden,
            lstm_layers=self.lstm_layers,
            max_length=self.max_length,
            **self.network_options,
        )

    def example(self, sentence: ResolutionSentence, instance: NegationInstance, with_labels: bool) -> ScopeExample:
        """Encode one cue of ``sentence`` for this variant (labels from ``instance.scope`` when asked)."""
        kinds = _cue_kinds(sentence, instance)
        in_scope = {part.index for part in instance.scope}
        words: list[str] = []
        positions: list[int | None] = []
        labels: list[int] = []
        cue_ids: list[int] = []
        for position, word in enumerate(sentence.words):
            if self.variant == "marker" and position in kinds:
                words.append(AFFIX_MARKER if kinds[position] == AFFIX_ID else CUE_MARKER)
                positions.append(None)
                labels.append(IGNORED)
            words.append(word)
            positions.append(position)
            labels.append(int(position in in_scope))
            cue_ids.append(kinds.get(position, NOT_CUE_ID))
        return ScopeExample(
            TaggingExample(
                words=words,
                labels=labels if with_labels else None,
                cue_ids=cue_ids if self.variant == "bilstm" else None,
            ),
            positions,
        )

    def fit(
        self,
        train: Sequence[ResolutionSentence],
        dev: Sequence[ResolutionSentence],
        log: Callable[[str], None] = lambda message: None,
    ) -> ScopeResolver:
        """Fine-tune on every gold instance of ``train``; keep the best epoch by scope-token F1 on ``dev``."""
        seed_everything(self.settings.seed)  # the new layers' initial weights
        self.tagger = Tagger.create(self.encoder, self.network_config())
        examples = [self.example(s, i, True).example for s in train for i in s.instances]

        def dev_score() -> float:
            return scope_token_f1(dev, self.predict(dev))

        self.report = train_network(
            self.tagger, examples, dev_score, self.settings, lambda message: log(f"scope resolver {message}")
        )
        return self

    def predict(self, sentences: Sequence[ResolutionSentence]) -> list[ResolutionSentence]:
        """Copies of ``sentences`` whose instances (cues as given) get predicted scopes and no events."""
        if self.tagger is None:
            raise RuntimeError("the scope resolver must be fitted or loaded before predicting")
        pairs = [(s, i) for s in sentences for i in s.instances]
        encoded = [self.example(sentence, instance, False) for sentence, instance in pairs]
        labels = self.tagger.predict([item.example for item in encoded]) if encoded else []
        scopes = iter(
            _decode_scope(sentence, instance, item.positions, predicted)
            for (sentence, instance), item, predicted in zip(pairs, encoded, labels)
        )
        return [
            replace(sentence, instances=[NegationInstance(cue=i.cue, scope=next(scopes)) for i in sentence.instances])
            for sentence in sentences
        ]

    def save(self, folder: str | Path) -> None:
        if self.tagger is None:
            raise RuntimeError("nothing to save: the scope resolver is not fitted")
        self.tagger.save(folder)
        atomic_write_json(Path(folder) / _SCOPE_FILE, {"variant": self.variant}, indent=None)

    @classmethod
    def load(cls, folder: str | Path) -> ScopeResolver:
        path = Path(folder) / _SCOPE_FILE
        settings = read_json_object(path, "scope resolver settings")
        try:
            resolver = cls(variant=settings["variant"])
        except (KeyError, TypeError, ValueError) as error:
            raise InputFormatError(
                path, None, f"not scope resolver settings ({type(error).__name__}: {error})"
            ) from None
        resolver.tagger = Tagger.load(folder)
        return resolver


def _cue_kinds(sentence: ResolutionSentence, instance: NegationInstance) -> dict[int, int]:
    """Cue id of each cue word of ``instance``: :data:`AFFIX_ID` for partial (affix) cues, else :data:`CUE_ID`."""
    return {part.index: AFFIX_ID if part.is_partial(sentence.tokens[part.index]) else CUE_ID for part in instance.cue}


def _decode_scope(
    sentence: ResolutionSentence, instance: NegationInstance, positions: list[int | None], labels: list[int]
) -> tuple[TokenPart, ...]:
    kinds = _cue_kinds(sentence, instance)
    parts: list[TokenPart] = []
    for position, label in zip(positions, labels):
        if position is None or label != 1:
            continue
        if kinds.get(position) == AFFIX_ID:
            remainder = affix_remainder(instance, sentence.words, position)
            if remainder is not None:
                parts.append(remainder)
        elif position not in kinds:
            parts.append(TokenPart(position, sentence.words[position], 0))
    return tuple(parts)


def scope_token_f1(gold: Sequence[ResolutionSentence], predicted: Sequence[ResolutionSentence]) -> float:
    """Micro F1 of in-scope (instance, token) pairs, for gold cues in the same order on both sides."""
    tp = n_gold = n_predicted = 0
    for gold_sentence, predicted_sentence in zip(gold, predicted):
        for gold_instance, predicted_instance in zip(gold_sentence.instances, predicted_sentence.instances):
            gold_positions = set(gold_instance.scope_indices)
            predicted_positions = set(predicted_instance.scope_indices)
            tp += len(gold_positions & predicted_positions)
            n_gold += len(gold_positions)
            n_predicted += len(predicted_positions)
    return 2 * tp / (n_gold + n_predicted) if n_gold + n_predicted else 1.0
