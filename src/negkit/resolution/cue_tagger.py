"""The cue tagger: token classification of words as not-cue, whole-word cue, affix cue or multiword-cue part.

Word labels become cue instances through the lexicons of affixes and multiword cues learned from the
training data (:mod:`negkit.resolution.cue_lexicon`): "impossible" labelled ``AFFIX`` gets the cue "im" and
keeps "possible" for the scope; "neither" and "nor" labelled ``MULTI`` become one discontinuous instance.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from negkit.errors import InputFormatError
from negkit.io.atomic import atomic_write_json
from negkit.io.textfiles import read_json_object
from negkit.resolution.cue_lexicon import (
    CUE_LABELS,
    AffixLexicon,
    MultiwordLexicon,
    cue_labels_for,
    decode_cues,
)
from negkit.resolution.instances import NegationInstance, ResolutionSentence
from negkit.resolution.neural import (
    NetworkConfig,
    Tagger,
    TaggingExample,
    TrainingReport,
    TrainingSettings,
    seed_everything,
    train_network,
)

_LEXICON_FILE = "cue_lexicon.json"


class CueTagger:
    """Finds negation cues in tokenised sentences; ``fit`` on annotated sentences, ``predict`` on any."""

    def __init__(
        self,
        encoder: str = "all-MiniLM-L6-v2",
        settings: TrainingSettings | None = None,
        max_length: int = 128,
        negatives_per_negated: float | None = 1.0,
        network_options: dict[str, Any] | None = None,
    ) -> None:
        self.encoder = encoder
        #: Extra :class:`~negkit.resolution.neural.NetworkConfig` settings (dropouts, layer mix).
        self.network_options = dict(network_options or {})
        #: Sentences without negation used for training, per sentence with negation (a seeded sample;
        #: ``None``: all of them). Cue detection is mostly lexical, so a sample keeps CPU training short.
        self.negatives_per_negated = negatives_per_negated
        self.settings = settings or TrainingSettings()
        self.max_length = max_length
        self.tagger: Tagger | None = None
        self.affixes = AffixLexicon()
        self.multiwords = MultiwordLexicon()
        self.report: TrainingReport | None = None

    @staticmethod
    def examples(sentences: Sequence[ResolutionSentence], with_labels: bool = True) -> list[TaggingExample]:
        """One example per sentence, labelled with :func:`cue_labels_for` when ``with_labels``."""
        return [
            TaggingExample(
                words=sentence.words,
                labels=[CUE_LABELS.index(label) for label in cue_labels_for(sentence)] if with_labels else None,
            )
            for sentence in sentences
        ]

    def fit(
        self,
        train: Sequence[ResolutionSentence],
        dev: Sequence[ResolutionSentence],
        log: Callable[[str], None] = lambda message: None,
    ) -> CueTagger:
        """Learn the lexicons from ``train`` and fine-tune the encoder; the best epoch on ``dev`` is kept."""
        self.affixes = AffixLexicon.learn(train)
        self.multiwords = MultiwordLexicon.learn(train)
        seed_everything(self.settings.seed)  # the new layers' initial weights
        self.tagger = Tagger.create(
            self.encoder, NetworkConfig(len(CUE_LABELS), max_length=self.max_length, **self.network_options)
        )

        def dev_score() -> float:
            return cue_f1(dev, self.predict(dev))

        self.report = train_network(
            self.tagger,
            self.examples(self.training_sample(train)),
            dev_score,
            self.settings,
            lambda message: log(f"cue tagger {message}"),
        )
        return self

    def training_sample(self, train: Sequence[ResolutionSentence]) -> list[ResolutionSentence]:
        """Every negated sentence plus a seeded sample of the others (see ``negatives_per_negated``)."""
        negated = [sentence for sentence in train if sentence.instances]
        plain = [sentence for sentence in train if not sentence.instances]
        if self.negatives_per_negated is None or len(plain) <= self.negatives_per_negated * len(negated):
            return list(train)
        wanted = round(self.negatives_per_negated * len(negated))
        return negated + random.Random(self.settings.seed).sample(plain, wanted)

    def predict(self, sentences: Sequence[ResolutionSentence]) -> list[list[NegationInstance]]:
        """Cue instances (without scope) for each sentence."""
        if self.tagger is None:
            raise RuntimeError("the cue tagger must be fitted or loaded before predicting")
        label_ids = self.tagger.predict(self.examples(sentences, with_labels=False))
        return [
            decode_cues(sentence.words, [CUE_LABELS[i] for i in ids], self.affixes, self.multiwords)
            for sentence, ids in zip(sentences, label_ids)
        ]

    def save(self, folder: str | Path) -> None:
        if self.tagger is None:
            raise RuntimeError("nothing to save: the cue tagger is not fitted")
        self.tagger.save(folder)
        lexicons = {"affixes": self.affixes.to_json(), "multiwords": self.multiwords.to_json()}
        atomic_write_json(Path(folder) / _LEXICON_FILE, lexicons)

    @classmethod
    def load(cls, folder: str | Path) -> CueTagger:
        cue_tagger = cls()
        cue_tagger.tagger = Tagger.load(folder)
        path = Path(folder) / _LEXICON_FILE
        lexicons = read_json_object(path, "cue lexicon")
        try:
            cue_tagger.affixes = AffixLexicon.from_json(lexicons["affixes"])
            cue_tagger.multiwords = MultiwordLexicon.from_json(lexicons["multiwords"])
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise InputFormatError(path, None, f"not a cue lexicon ({type(error).__name__}: {error})") from None
        return cue_tagger


def cue_f1(gold: Sequence[ResolutionSentence], predicted: Sequence[Sequence[NegationInstance]]) -> float:
    """F1 of exactly matching cues (same token positions and cue strings), the NIS cue matching."""
    matched = n_gold = n_predicted = 0
    for sentence, instances in zip(gold, predicted):
        remaining = [_cue_key(instance) for instance in sentence.instances]
        n_gold += len(remaining)
        n_predicted += len(instances)
        for instance in instances:
            key = _cue_key(instance)
            if key in remaining:
                remaining.remove(key)
                matched += 1
    return 2 * matched / (n_gold + n_predicted) if n_gold + n_predicted else 1.0


def _cue_key(instance: NegationInstance) -> tuple[tuple[int, str], ...]:
    return tuple((part.index, part.text) for part in instance.cue)
