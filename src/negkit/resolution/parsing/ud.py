"""The syntactic stage of the -synt systems: fine-tune the encoder on UD English EWT dependency parsing first.

The stage trains a :class:`~negkit.resolution.parsing.network.ParserNetwork` on the basic trees of UD English EWT
(``../shared/data/training/ud-english-ewt/en_ewt-ud-train.conllu.gz``; gzip or plain CoNLL-U; multiword token
ranges and empty nodes are skipped; labels are the universal relations, subtypes cut off): each word's head is
chosen by a softmax over all nodes (cross-entropy), its relation by the label scorer at the gold head. Only the
fine-tuned encoder is kept. It is cached, keyed by the encoder and every setting that shapes it
(``~/.cache/negkit/ud-stage/NAME-HASH/``: ``encoder/``, ``ud.json`` with dev UAS/LAS; a run stopped by its time
budget leaves ``checkpoint/`` there and the next run continues it), so the -synt systems of one encoder share it.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import torch
from torch import nn

from negkit.errors import InputFormatError
from negkit.io.atomic import atomic_write_json
from negkit.kit.data.locate import locate_dataset
from negkit.resolution.layers import encoder_config_overrides, resolve_device
from negkit.resolution.neural import _quiet_transformers, seed_everything
from negkit.resolution.parsing.loop import run_loop
from negkit.resolution.parsing.network import ParserNetwork, encode_words, pair_mask
from negkit.resolution.parsing.settings import ParserSettings

UD_FOLDER = "training/ud-english-ewt"
UD_FILES = {"train": "en_ewt-ud-train.conllu.gz", "dev": "en_ewt-ud-dev.conllu.gz"}
DEFAULT_CACHE = Path("~/.cache/negkit/ud-stage")


@dataclass
class UdSentence:
    words: list[str]
    heads: list[int]
    relations: list[str]


@dataclass
class UdStage:
    """The result of :func:`prepare_ud_encoder`: the fine-tuned encoder folder (``None`` while unfinished)."""

    encoder: Path | None
    record: dict = field(default_factory=dict)


def read_conllu(path: str | Path) -> list[UdSentence]:
    """Sentences of a CoNLL-U file (``.gz`` read as gzip): words, heads (0 = root) and universal relations."""
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    sentences: list[UdSentence] = []
    current = UdSentence([], [], [])
    try:
        with opener(path, "rt", encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                line = line.rstrip("\n")
                if not line.strip():
                    if current.words:
                        _check_heads(current, path, number)
                        sentences.append(current)
                    current = UdSentence([], [], [])
                    continue
                if line.startswith("#"):
                    continue
                fields = line.split("\t")
                if len(fields) != 10:
                    raise InputFormatError(path, number, f"expected 10 tab-separated fields, found {len(fields)}")
                if "-" in fields[0] or "." in fields[0]:
                    continue
                if not fields[6].isdigit():
                    raise InputFormatError(path, number, f"head {fields[6][:20]!r} is not a number")
                current.words.append(fields[1])
                current.heads.append(int(fields[6]))
                current.relations.append(fields[7].split(":")[0])
    except (OSError, EOFError, UnicodeDecodeError, gzip.BadGzipFile) as error:
        raise InputFormatError(path, None, f"cannot read CoNLL-U: {error}") from None
    if current.words:
        sentences.append(current)
    if not sentences:
        raise InputFormatError(path, None, "no sentences")
    return sentences


def _check_heads(sentence: UdSentence, path: Path, line: int) -> None:
    if any(head > len(sentence.words) for head in sentence.heads):
        raise InputFormatError(path, line - 1, "a head points past the end of its sentence")


def cache_folder(encoder_path: str, settings: ParserSettings, cache: Path | None = None) -> Path:
    """The cache folder of the UD stage for this encoder and these settings."""
    shaping = {
        "encoder": encoder_path,
        "ud": asdict(settings.ud),
        # the UD stage runs its own epochs and patience, and its labels are UD relations: the negation corpus's
        # epochs, patience, labels and affix lexicon do not shape it (keying on them retrained it per corpus)
        "loop": asdict(replace(settings.loop, epochs=0, patience=0)),
        "network": {k: v for k, v in asdict(settings.network).items() if k not in ("labels", "affixes")},
        "hidden_dropout": settings.hidden_dropout,
        "attention_dropout": settings.attention_dropout,
    }
    digest = hashlib.sha256(json.dumps(shaping, sort_keys=True).encode()).hexdigest()[:12]
    root = (cache or DEFAULT_CACHE).expanduser()
    return root / f"{Path(encoder_path).name or 'encoder'}-{digest}"


def prepare_ud_encoder(
    encoder_path: str,
    settings: ParserSettings,
    *,
    data: str | Path | None = None,
    cache: Path | None = None,
    time_limit_s: float | None = None,
    log: Callable[[str], None] = lambda message: None,
) -> UdStage:
    """The encoder fine-tuned on UD EWT: from the cache, or trained (resumably) within ``time_limit_s``."""
    from transformers import AutoConfig, AutoModel, AutoTokenizer  # heavy: off the start-up path

    folder = cache_folder(encoder_path, settings, cache)
    if (folder / "ud.json").exists() and (folder / "encoder").is_dir():
        log(f"UD stage: cached encoder {folder}")
        return UdStage(folder / "encoder", json.loads((folder / "ud.json").read_text()))
    started = time.monotonic()
    ud_data = locate_dataset(UD_FOLDER, data)
    train = read_conllu(ud_data / UD_FILES["train"])
    dev = read_conllu(ud_data / UD_FILES["dev"])[: settings.ud.dev_sentences]
    relations = sorted({relation for sentence in train for relation in sentence.relations})
    _quiet_transformers()
    tokenizer = AutoTokenizer.from_pretrained(encoder_path)
    overrides = encoder_config_overrides(
        AutoConfig.from_pretrained(encoder_path), settings.hidden_dropout, settings.attention_dropout
    )
    seed_everything(settings.loop.seed)
    network_config = replace(settings.network, labels=relations, lstm_layers=0)
    network = ParserNetwork(AutoModel.from_pretrained(encoder_path, **overrides), network_config)
    network.to(resolve_device(settings.device))
    index = {relation: i for i, relation in enumerate(relations)}

    def tensors(words: list[list[str]]) -> dict[str, torch.Tensor]:
        device = next(network.parameters()).device
        return {k: v.to(device) for k, v in encode_words(tokenizer, words, network_config.max_length).items()}

    def loss(batch: list[UdSentence]) -> torch.Tensor:
        inputs = tensors([s.words for s in batch])
        edge_scores, label_scores = network(**inputs)
        mask = pair_mask(inputs["node_mask"])
        heads = torch.full(mask.shape[:2], -100, dtype=torch.long, device=mask.device)
        labels = torch.zeros(mask.shape[:2], dtype=torch.long, device=mask.device)
        for row, sentence in enumerate(batch):
            for word, (head, relation) in enumerate(zip(sentence.heads, sentence.relations), start=1):
                if word < mask.shape[1] and mask[row, word, head]:
                    heads[row, word], labels[row, word] = head, index[relation]
        scores = edge_scores.masked_fill(~mask, -1e9)
        total = nn.functional.cross_entropy(scores.flatten(0, 1), heads.flatten(), ignore_index=-100)
        known = heads >= 0
        at_head = label_scores[known.nonzero(as_tuple=True) + (heads[known],)]
        return total + nn.functional.cross_entropy(at_head, labels[known])

    @torch.no_grad()
    def attachment() -> tuple[float, float]:
        network.eval()
        right_heads = right_labelled = count = 0
        for start in range(0, len(dev), 32):
            batch = dev[start : start + 32]
            inputs = tensors([s.words for s in batch])
            edge_scores, label_scores = network(**inputs)
            mask = pair_mask(inputs["node_mask"])
            predicted = edge_scores.masked_fill(~mask, -1e9).argmax(-1)
            for row, sentence in enumerate(batch):
                for word, (head, relation) in enumerate(zip(sentence.heads, sentence.relations), start=1):
                    if word >= mask.shape[1]:
                        continue
                    guess = int(predicted[row, word])
                    count += 1
                    right_heads += guess == head
                    right_labelled += (
                        guess == head and relations[int(label_scores[row, word, guess].argmax())] == relation
                    )
        return right_heads / max(1, count), right_labelled / max(1, count)

    ud_loop = replace(settings.loop, epochs=settings.ud.epochs, patience=settings.ud.epochs + 1)

    def epoch_examples(epoch: int) -> list[UdSentence]:
        wanted = settings.ud.sentences_per_epoch
        if wanted is None or wanted >= len(train):
            return train
        return random.Random(settings.loop.seed * 104729 + epoch).sample(train, wanted)

    report = run_loop(
        network,
        epoch_examples,
        loss,
        lambda: attachment()[1],
        ud_loop,
        checkpoint=folder / "checkpoint",
        time_limit_s=time_limit_s,
        length=lambda sentence: len(sentence.words),
        log=lambda message: log(f"UD stage {message}"),
    )
    record = {
        "folder": str(folder),
        "train_sentences": len(train),
        "relations": len(relations),
        "settings": asdict(settings.ud),
        "report": asdict(report),
    }
    if not report.finished:
        return UdStage(None, record)
    uas, las = attachment()
    record.update(
        {
            "dev_uas": round(100 * uas, 2),
            "dev_las": round(100 * las, 2),
            "seconds_this_run": round(time.monotonic() - started, 1),
        }
    )
    network.encoder.save_pretrained(folder / "encoder")
    tokenizer.save_pretrained(folder / "encoder")
    atomic_write_json(folder / "ud.json", record)
    log(f"UD stage done: dev UAS {record['dev_uas']}, LAS {record['dev_las']} ({folder})")
    return UdStage(folder / "encoder", record)
