"""The two-stage negation resolution system: a cue tagger followed by a scope resolver.

:class:`NegationResolver` trains both stages (the scope resolver on gold cues, only on negated
instances), predicts into :class:`~negkit.resolution.instances.ResolutionSentence` objects, and is saved as a
folder in the ``save_pretrained`` spirit::

    MODEL_DIR/negkit_resolution.json   what was trained, how, on what, and the training report
    MODEL_DIR/cue/                     cue tagger (encoder/, head.pt, tagger.json, cue_lexicon.json)
    MODEL_DIR/scope/                   scope resolver (encoder/, head.pt, tagger.json, scope_resolver.json)
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from negkit import __version__
from negkit.errors import InputFormatError, quoted
from negkit.io.atomic import TEMP_PREFIX, atomic_write_json
from negkit.io.locks import LOCK_FILE
from negkit.io.textfiles import read_json_object
from negkit.resolution.cue_tagger import CueTagger
from negkit.resolution.instances import NegationInstance, ResolutionSentence
from negkit.resolution.neural import TrainingSettings, resolve_encoder
from negkit.resolution.scope_resolver import ScopeResolver

CONFIG_FILE = "negkit_resolution.json"


#: Share of the training time budget given to the cue tagger (the scope resolver gets the rest).
CUE_SHARE_OF_BUDGET = 12 / 27


@dataclass
class ResolverSettings:
    """Hyper-parameters of both stages (the scope stage trains on far fewer examples, so more epochs)."""

    encoder: str = "all-MiniLM-L6-v2"
    scope_variant: str = "marker"
    cue: TrainingSettings = field(
        default_factory=lambda: TrainingSettings(epochs=5, learning_rate=1e-4, time_limit_s=12 * 60)
    )
    scope: TrainingSettings = field(
        default_factory=lambda: TrainingSettings(epochs=10, patience=3, learning_rate=1e-4, time_limit_s=15 * 60)
    )
    max_length: int = 128
    #: Network settings of both stages (the defaults are the ones negkit always used).
    dropout: float = 0.1
    layer_mix: bool = False
    layer_dropout: float = 0.0
    hidden_dropout: float | None = None
    attention_dropout: float | None = None
    #: The ``bilstm`` scope resolver: BiLSTM layers and size, cue embedding size.
    lstm_layers: int = 1
    lstm_hidden: int = 128
    cue_embedding_dim: int = 16

    def network_options(self) -> dict[str, Any]:
        """The :class:`~negkit.resolution.neural.NetworkConfig` settings both stages share."""
        return {
            "dropout": self.dropout,
            "layer_mix": self.layer_mix,
            "layer_dropout": self.layer_dropout,
            "hidden_dropout": self.hidden_dropout,
            "attention_dropout": self.attention_dropout,
        }

    @classmethod
    def for_budget(
        cls,
        minutes: float = 27.0,
        *,
        encoder: str = "all-MiniLM-L6-v2",
        scope_variant: str = "marker",
        seed: int = 13,
        threads: int | None = 1,
        cue_epochs: int = 5,
        scope_epochs: int = 10,
        training: dict[str, Any] | None = None,
        **network: Any,
    ) -> ResolverSettings:
        """Default settings whose two stages share a time budget of ``minutes``; ``training`` overrides
        :class:`TrainingSettings` fields of both stages (``None`` values are ignored), ``network`` the network
        fields of this class (dropouts, layer mix, BiLSTM sizes)."""
        defaults = cls()
        cue_seconds = minutes * 60 * CUE_SHARE_OF_BUDGET
        common = {key: value for key, value in (training or {}).items() if value is not None}
        return cls(
            encoder=encoder,
            scope_variant=scope_variant,
            cue=replace(
                defaults.cue, epochs=cue_epochs, seed=seed, threads=threads, time_limit_s=cue_seconds, **common
            ),
            scope=replace(
                defaults.scope,
                epochs=scope_epochs,
                seed=seed,
                threads=threads,
                time_limit_s=minutes * 60 - cue_seconds,
                **common,
            ),
            **{key: value for key, value in network.items() if value is not None},
        )


class NegationResolver:
    """Cue tagger + scope resolver with ``fit``/``predict``/``save``/``load``."""

    def __init__(self, settings: ResolverSettings | None = None) -> None:
        self.settings = settings or ResolverSettings()
        options = self.settings.network_options()
        self.cue_tagger = CueTagger(
            self.settings.encoder, self.settings.cue, self.settings.max_length, network_options=options
        )
        self.scope_resolver = ScopeResolver(
            self.settings.scope_variant,
            self.settings.encoder,
            self.settings.scope,
            self.settings.max_length,
            lstm_hidden=self.settings.lstm_hidden,
            cue_embedding_dim=self.settings.cue_embedding_dim,
            lstm_layers=self.settings.lstm_layers,
            network_options=options,
        )
        self.metadata: dict[str, object] = {}
        #: How results of this system are labelled (the model folder once loaded).
        self.name = f"negkit resolver ({self.settings.encoder}, {self.settings.scope_variant} scope)"

    def fit(
        self,
        train: Sequence[ResolutionSentence],
        dev: Sequence[ResolutionSentence],
        log: Callable[[str], None] = lambda message: None,
        corpus: str = "",
    ) -> NegationResolver:
        """Train the cue tagger on every sentence and the scope resolver on the negated ones."""
        started = time.monotonic()
        self.cue_tagger.fit(train, dev, log)
        negated_train = [s for s in train if s.instances]
        negated_dev = [s for s in dev if s.instances]
        self.scope_resolver.fit(negated_train, negated_dev, log)
        self.metadata = {
            "corpus": corpus,
            "train_sentences": len(train),
            "dev_sentences": len(dev),
            "training_seconds": round(time.monotonic() - started, 1),
            "cue_report": asdict(self.cue_tagger.report) if self.cue_tagger.report else None,
            "scope_report": asdict(self.scope_resolver.report) if self.scope_resolver.report else None,
        }
        return self

    def predict(self, sentences: Sequence[ResolutionSentence], *, gold_cues: bool = False) -> list[ResolutionSentence]:
        """Copies of ``sentences`` with predicted cues and scopes (no events, no speculation).

        ``gold_cues=True`` skips the cue tagger: the cues annotated in ``sentences`` are kept and only their
        scopes are predicted (scope resolution from gold cues, the setting of NegBERT's scope results).
        """
        if gold_cues:
            with_cues = [
                replace(s, instances=[NegationInstance(cue=i.cue) for i in s.instances], speculation=[])
                for s in sentences
            ]
        else:
            cues = self.cue_tagger.predict(sentences)
            with_cues = [replace(s, instances=found, speculation=[]) for s, found in zip(sentences, cues)]
        return self.scope_resolver.predict(with_cues)

    def save(self, folder: str | Path) -> None:
        """Write the model folder atomically: into a temporary sibling first, which then takes the folder's place
        (a model already there is replaced whole, never half overwritten; a kill in the instant between the two
        renames leaves the old model in a ``.tmp-negkit-`` sibling). The folder's run lock file
        (:mod:`negkit.io.locks`), held by ``negkit resolution train`` for the whole training, comes along as the
        same file (a hard link), so the lock stays held across the swap."""
        folder = Path(folder)
        folder.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{folder.name}.", dir=folder.parent))
        try:
            self._write(staging)
            _keep_lock_file(folder, staging)
            if folder.exists():
                retired = Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{folder.name}.old.", dir=folder.parent))
                os.replace(folder, retired / folder.name)
                os.replace(staging, folder)
                shutil.rmtree(retired, ignore_errors=True)
            else:
                os.replace(staging, folder)
        finally:
            shutil.rmtree(staging, ignore_errors=True)

    def _write(self, folder: Path) -> None:
        self.cue_tagger.save(folder / "cue")
        self.scope_resolver.save(folder / "scope")
        config = {
            "negkit_version": __version__,
            "settings": asdict(self.settings),
            "resolved_encoder": resolve_encoder(self.settings.encoder),
            **self.metadata,
        }
        atomic_write_json(folder / CONFIG_FILE, config)  # last: a folder without it is not a model

    @classmethod
    def load(cls, folder: str | Path) -> NegationResolver:
        """Read a model folder written by :meth:`save`; anything missing or damaged is an
        :class:`~negkit.errors.InputFormatError` naming the file."""
        folder = Path(folder)
        if not folder.is_dir():
            problem = "no such model folder" if not folder.exists() else "a file, not a model folder"
            raise InputFormatError(
                folder,
                None,
                f"{problem} (a negkit resolution model is the folder written by `negkit resolution train`)",
            )
        if not (folder / CONFIG_FILE).exists():
            raise InputFormatError(
                folder,
                None,
                f"not a trained negkit resolution model (no {CONFIG_FILE}); train one with "
                "`negkit resolution train --corpus cd-sco --out DIR`",
            )
        config = read_json_object(folder / CONFIG_FILE, "negkit resolution model configuration")
        try:
            settings = dict(config["settings"])
            settings["cue"] = TrainingSettings(**settings["cue"])
            settings["scope"] = TrainingSettings(**settings["scope"])
            resolver = cls(ResolverSettings(**settings))
        except (KeyError, TypeError, ValueError) as error:
            raise InputFormatError(
                folder / CONFIG_FILE,
                None,
                f"not a negkit resolution model configuration ({type(error).__name__}: {quoted(str(error), 120)})",
            ) from None
        resolver.cue_tagger = CueTagger.load(folder / "cue")
        resolver.scope_resolver = ScopeResolver.load(folder / "scope")
        resolver.metadata = {k: v for k, v in config.items() if k not in ("settings", "negkit_version")}
        resolver.name = str(folder)
        return resolver


def _keep_lock_file(folder: Path, staging: Path) -> None:
    """Hard-link ``folder``'s run lock file into ``staging``: the same file (and so the same held ``flock``) is at
    the folder's path once ``staging`` takes its place, and releasing the lock removes it there. Nothing to do
    without a lock file, or on a file system without hard links (the new folder then starts without one)."""
    try:
        os.link(folder / LOCK_FILE, staging / LOCK_FILE)
    except OSError:
        pass
