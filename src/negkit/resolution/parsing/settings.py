"""The settings of the DP systems (every one is recorded in the model folder)."""

from __future__ import annotations

from dataclasses import dataclass, field

from negkit.resolution.parsing.loop import LoopSettings
from negkit.resolution.parsing.network import ParserConfig

SYSTEMS = ("dp-direct", "dp-nested", "dp-direct-synt", "dp-nested-synt")


@dataclass
class UdSettings:
    """The UD stage: epochs, training sentences drawn per epoch (``None``: all 12,544), dev sentences scored."""

    epochs: int = 1
    sentences_per_epoch: int | None = None
    dev_sentences: int = 500


@dataclass
class ParserSettings:
    """Every setting of a DP system (all recorded in the model folder)."""

    system: str = "dp-nested"
    encoder: str = "all-MiniLM-L6-v2"
    loop: LoopSettings = field(default_factory=LoopSettings)
    network: ParserConfig = field(default_factory=ParserConfig)
    #: The encoder's own dropouts (``None``: as its configuration has them).
    hidden_dropout: float | None = 0.2
    attention_dropout: float | None = 0.2
    #: Sentences without negation per negated one in each epoch, resampled every epoch (``None``: all).
    negatives_per_negated: float | None = 1.0
    threshold: float = 0.5
    threads: int | None = 1
    device: str = "cpu"
    #: The syntactic stage of the -synt systems.
    ud: UdSettings = field(default_factory=UdSettings)

    @property
    def encoding(self) -> str:
        return "nested" if self.system.startswith("dp-nested") else "direct"

    @property
    def synt(self) -> bool:
        return self.system.endswith("-synt")

    @classmethod
    def from_json(cls, data: dict) -> ParserSettings:
        values = dict(data)
        values["loop"] = LoopSettings(**values.get("loop", {}))
        values["network"] = ParserConfig(**values.get("network", {}))
        values["ud"] = UdSettings(**values.get("ud", {}))
        return cls(**values)
