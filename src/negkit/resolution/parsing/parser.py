"""The DP systems: negation resolution as graph parsing (Sineva et al. 2021: DP-direct, DP-nested and -synt).

:class:`NegationParser` encodes each training sentence as a graph (:mod:`negkit.resolution.graphs`, ``direct`` or
``nested``), trains a :class:`~negkit.resolution.parsing.network.ParserNetwork` to score every (dependent, head)
pair for edge existence (binary cross-entropy, summed over heads and averaged over words) and label (cross-entropy
on the gold edges), and predicts by keeping the pairs scored above ``threshold``, each with its best label (root
edges only among cue labels, the others only among the rest), then decoding the graph. Cues and scopes come out
of one step. With ``gold_cues=True`` the annotated cues replace the predicted root and ``mwc`` edges and only the
scope, event and nest edges below them are predicted.

A model folder::

    MODEL_DIR/negkit_resolution.json   system, every setting, label set, training report (and the UD stage's)
    MODEL_DIR/parser/                  encoder/ (save_pretrained), head.pt, parser.json
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import torch
from torch import nn

from negkit import __version__
from negkit.errors import InputFormatError, NegkitError
from negkit.io.atomic import atomic_write_json, atomic_writer
from negkit.io.textfiles import read_json_object
from negkit.resolution.corpora.cdsco import format_cdsco, lines_from_text
from negkit.resolution.cue_lexicon import AffixLexicon
from negkit.resolution.graphs import (
    CUE,
    MULTIWORD,
    ROOT,
    Graph,
    Role,
    choose_anchors,
    decode,
    encode,
    join_label,
    parse_label,
)
from negkit.resolution.instances import NegationInstance, ResolutionSentence
from negkit.resolution.layers import encoder_config_overrides, resolve_device
from negkit.resolution.metrics.nis import score_nis
from negkit.resolution.neural import _quiet_transformers, load_head_weights, resolve_encoder, seed_everything
from negkit.resolution.parsing.loop import LoopReport, run_loop
from negkit.resolution.parsing.network import ParserConfig, ParserNetwork, encode_words, pair_mask
from negkit.resolution.parsing.settings import SYSTEMS, ParserSettings
from negkit.resolution.parsing.ud import prepare_ud_encoder

CONFIG_FILE = "negkit_resolution.json"
_PARSER_FOLDER = "parser"


@dataclass
class GraphExample:
    words: list[str]
    graph: Graph


class NegationParser:
    """A DP system with ``fit``/``predict``/``save``/``load`` (the interface of the two-stage resolver)."""

    def __init__(self, settings: ParserSettings | None = None) -> None:
        self.settings = settings or ParserSettings()
        if self.settings.system not in SYSTEMS:
            raise NegkitError(f"unknown parsing system {self.settings.system!r} (expected one of {', '.join(SYSTEMS)})")
        self.network: ParserNetwork | None = None
        self.tokenizer: Any = None  # the encoder's transformers tokenizer, once created or loaded
        self.metadata: dict[str, object] = {}
        self.name = f"negkit {self.settings.system} ({self.settings.encoder})"

    # --- training ---------------------------------------------------------------------------------------------

    def fit(
        self,
        train: Sequence[ResolutionSentence],
        dev: Sequence[ResolutionSentence],
        *,
        log: Callable[[str], None] = lambda message: None,
        corpus: str = "",
        checkpoint: Path | None = None,
        time_limit_s: float | None = None,
        data: str | Path | None = None,
        ud_cache: Path | None = None,
    ) -> LoopReport:
        """Train on ``train`` (dev: epoch selection by NIS_tok F1); ``report.finished`` is False when the time budget
        ran out first (the state is then in ``checkpoint`` and a later call with it continues)."""
        started = time.monotonic()
        settings = self.settings
        if settings.threads:
            torch.set_num_threads(settings.threads)
        device = resolve_device(settings.device)
        encoder_path = resolve_encoder(settings.encoder)
        if settings.synt:
            ud = prepare_ud_encoder(
                encoder_path, settings, data=data, cache=ud_cache, time_limit_s=time_limit_s, log=log
            )
            self.metadata["ud_stage"] = ud.record
            if ud.encoder is None:
                return LoopReport(stopped_by="time limit (UD stage)", seconds=time.monotonic() - started)
            encoder_path = str(ud.encoder)
            if time_limit_s is not None:
                time_limit_s -= time.monotonic() - started
        examples = [
            GraphExample(s.words, {edge: coarse_label(label) for edge, label in encode(s, settings.encoding).items()})
            for s in train
        ]
        labels = sorted({label for example in examples for label in example.graph.values()})
        settings.network = replace(settings.network, labels=labels, affixes=AffixLexicon.learn(train).to_json())
        seed_everything(settings.loop.seed)  # the new layers' initial weights
        self._create(encoder_path, device)
        negated = [e for e in examples if e.graph]
        plain = [e for e in examples if not e.graph]

        def epoch_examples(epoch: int) -> list[GraphExample]:
            if settings.negatives_per_negated is None or len(plain) <= settings.negatives_per_negated * len(negated):
                return negated + plain
            wanted = round(settings.negatives_per_negated * len(negated))
            return negated + random.Random(settings.loop.seed * 7919 + epoch).sample(plain, wanted)

        def dev_score() -> float:
            predicted = self.predict(dev)
            gold_lines = lines_from_text(format_cdsco(dev, final_newlines=2), "dev")
            system_lines = lines_from_text(format_cdsco(predicted, final_newlines=2), "system")
            return score_nis(gold_lines, system_lines, validate=False).scores.nis_tok.f1

        assert self.network is not None  # created above
        report = run_loop(
            self.network,
            epoch_examples,
            self._loss,
            dev_score,
            settings.loop,
            checkpoint=checkpoint,
            time_limit_s=time_limit_s,
            length=lambda example: len(example.words),
            log=lambda message: log(f"{settings.system} {message}"),
        )
        self.metadata.update(
            {
                "corpus": corpus,
                "train_sentences": len(train),
                "dev_sentences": len(dev),
                "training_seconds": round(report.seconds, 1),
                "report": asdict(report),
            }
        )
        return report

    def _create(self, encoder_path: str, device: torch.device) -> None:
        from transformers import AutoConfig, AutoModel, AutoTokenizer  # heavy: off the start-up path

        _quiet_transformers()
        settings = self.settings
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(encoder_path)
            overrides = encoder_config_overrides(
                AutoConfig.from_pretrained(encoder_path), settings.hidden_dropout, settings.attention_dropout
            )
            encoder = AutoModel.from_pretrained(encoder_path, **overrides)
        except (OSError, ValueError) as error:
            raise NegkitError(f"cannot load encoder {settings.encoder!r}: {str(error).splitlines()[0]}") from None
        self.network = ParserNetwork(encoder, settings.network).to(device)

    def _tensors(self, words: Sequence[Sequence[str]]) -> dict[str, torch.Tensor]:
        assert self.network is not None
        device = next(self.network.parameters()).device
        batch = encode_words(self.tokenizer, words, self.network.config.max_length)
        return {key: value.to(device) for key, value in batch.items()}

    def _loss(self, examples: list[GraphExample]) -> torch.Tensor:
        assert self.network is not None
        batch = self._tensors([example.words for example in examples])
        edge_scores, label_scores = self.network(**batch)
        mask = pair_mask(batch["node_mask"])
        gold = torch.zeros_like(mask)
        gold_labels = torch.zeros(mask.shape, dtype=torch.long, device=mask.device)
        index = {label: i for i, label in enumerate(self.network.config.labels)}
        for row, example in enumerate(examples):
            for (head, dependent), label in example.graph.items():
                if dependent < mask.shape[1] and mask[row, dependent, head] and label in index:
                    gold[row, dependent, head] = True
                    gold_labels[row, dependent, head] = index[label]
        words = max(1, int(batch["node_mask"][:, 1:].sum()))
        loss = (
            nn.functional.binary_cross_entropy_with_logits(edge_scores[mask], gold[mask].float(), reduction="sum")
            / words
        )
        if bool(gold.any()):
            loss = loss + nn.functional.cross_entropy(label_scores[gold], gold_labels[gold])
        return loss

    # --- prediction -------------------------------------------------------------------------------------------

    @torch.no_grad()
    def predict_graphs(self, sentences: Sequence[Sequence[str]], batch_size: int = 32) -> list[Graph]:
        """The predicted graph of each sentence (words)."""
        if self.network is None:
            raise RuntimeError("the parser must be fitted or loaded before predicting")
        self.network.eval()
        labels = self.network.config.labels
        affixes = AffixLexicon.from_json(self.network.config.affixes)
        order = sorted(range(len(sentences)), key=lambda i: len(sentences[i]))
        graphs: list[Graph] = [{} for _ in sentences]
        for start in range(0, len(order), batch_size):
            chunk = order[start : start + batch_size]
            batch = self._tensors([sentences[i] for i in chunk])
            edge_scores, label_scores = self.network(**batch)
            edges = (torch.sigmoid(edge_scores) > self.settings.threshold) & pair_mask(batch["node_mask"])
            best = _best_labels(label_scores.cpu(), labels)
            for row, dependent, head in edges.nonzero().tolist():
                word = sentences[chunk[row]][dependent - 1]
                graphs[chunk[row]][(head, dependent)] = fine_label(labels[best[row, dependent, head]], word, affixes)
        return graphs

    def predict(self, sentences: Sequence[ResolutionSentence], *, gold_cues: bool = False) -> list[ResolutionSentence]:
        """Copies of ``sentences`` with predicted instances (cues, scopes and events; ``gold_cues``: the annotated
        cues kept, their scopes and events predicted)."""
        words = [sentence.words for sentence in sentences]
        graphs = self.predict_graphs(words)
        if gold_cues:
            graphs = [_with_gold_cues(s, graph, self.settings.encoding) for s, graph in zip(sentences, graphs)]
        return [
            replace(sentence, instances=decode(sentence.words, graph, self.settings.encoding), speculation=[])
            for sentence, graph in zip(sentences, graphs)
        ]

    # --- saving -----------------------------------------------------------------------------------------------

    def save(self, folder: str | Path) -> None:
        if self.network is None:
            raise RuntimeError("nothing to save: the parser is not fitted")
        folder = Path(folder)
        part = folder / _PARSER_FOLDER
        part.mkdir(parents=True, exist_ok=True)
        self.network.encoder.save_pretrained(part / "encoder")
        self.tokenizer.save_pretrained(part / "encoder")
        head = {k: v.cpu() for k, v in self.network.state_dict().items() if not k.startswith("encoder.")}
        with atomic_writer(part / "head.pt", "wb") as handle:
            torch.save(head, handle)
        atomic_write_json(part / "parser.json", asdict(self.network.config))
        record = {
            "negkit_version": __version__,
            "system": self.settings.system,
            "settings": asdict(self.settings),
            "resolved_encoder": resolve_encoder(self.settings.encoder),
            **self.metadata,
        }
        atomic_write_json(folder / CONFIG_FILE, record)  # last: a folder without it is not a model

    @classmethod
    def load(cls, folder: str | Path, config: dict | None = None) -> NegationParser:
        from transformers import AutoModel, AutoTokenizer  # heavy: off the start-up path

        _quiet_transformers()
        folder = Path(folder)
        config = config if config is not None else read_json_object(folder / CONFIG_FILE, "negkit resolution model")
        part = folder / _PARSER_FOLDER
        try:
            parser = cls(ParserSettings.from_json(config["settings"]))
            network_config = ParserConfig(**read_json_object(part / "parser.json", "parser configuration"))
        except (KeyError, TypeError, ValueError) as error:
            raise InputFormatError(
                folder / CONFIG_FILE,
                None,
                f"not a DP system configuration ({type(error).__name__}: {str(error)[:120]})",
            ) from None
        try:
            parser.tokenizer = AutoTokenizer.from_pretrained(part / "encoder")
            network = ParserNetwork(AutoModel.from_pretrained(part / "encoder"), network_config)
        except (OSError, ValueError, KeyError, TypeError, RuntimeError) as error:
            raise InputFormatError(
                part / "encoder", None, f"cannot load the parser's encoder: {str(error).splitlines()[0][:200]}"
            ) from None
        result = network.load_state_dict(load_head_weights(part / "head.pt"), strict=False)
        missing = [key for key in result.missing_keys if not key.startswith("encoder.")]
        if missing or result.unexpected_keys:
            raise InputFormatError(
                part / "head.pt",
                None,
                f"does not fit parser.json: missing {missing[:5]}, unexpected {result.unexpected_keys[:5]}",
            )
        network.eval()
        parser.network = network
        parser.metadata = {k: v for k, v in config.items() if k not in ("settings", "negkit_version", "system")}
        parser.name = str(folder)
        return parser


def coarse_label(label: str) -> str:
    """The label the classifier learns: affix codes without the affix ("cue:pre=im|scope" -> "cue:pre|scope"), so
    that all prefix cues share one label, as all suffix and all inner ones do; :func:`fine_label` undoes it."""
    roles = [
        Role(role.name, role.code.partition("=")[0])
        if role.name in (CUE, MULTIWORD) and role.code[:4] in ("pre=", "suf=", "mid=")
        else role
        for role in parse_label(label)
    ]
    return join_label(roles)


def fine_label(label: str, word: str, affixes: AffixLexicon) -> str:
    """A predicted label with its affix codes filled in for ``word`` from the affixes seen in training (the longest
    that fits, then the most frequent); without one that fits, the whole word is the cue."""
    roles = []
    for role in parse_label(label):
        if role.name in (CUE, MULTIWORD) and role.code in ("pre", "suf", "mid"):
            lowered = word.lower()
            known = affixes.prefixes if role.code == "pre" else affixes.inner
            fits = [
                (len(a), known[a], a)
                for a in known
                if len(a) < len(word)
                and (
                    lowered.startswith(a)
                    if role.code == "pre"
                    else lowered.endswith(a)
                    if role.code == "suf"
                    else lowered.find(a, 1) > 0
                )
            ]
            role = Role(role.name, f"{role.code}={max(fits)[2]}" if fits else "")
        roles.append(role)
    return join_label(roles)


def _best_labels(label_scores: torch.Tensor, labels: Sequence[str]) -> torch.Tensor:
    """Best label per pair: below words, the best label without a cue role; below the root, the best cue label of
    the most probable cue part (probability summed over the labels sharing the cue role: "cue:pre=im|scope" and
    "cue:pre=im|scope|event" both vote for the affix "im"), so that a cue part split over several labels is not
    outvoted by one frequent label ("cue", the whole word)."""
    cue_roles = [next((str(role) for role in parse_label(label) if role.name == CUE), None) for label in labels]
    is_cue = torch.tensor([role is not None for role in cue_roles])
    if not bool(is_cue.any()) or not bool((~is_cue).any()):
        return label_scores.argmax(dim=-1)
    best = label_scores.masked_fill(is_cue, float("-inf")).argmax(dim=-1)
    groups = sorted({role for role in cue_roles if role is not None})
    membership = torch.zeros(len(labels), len(groups))
    for i, role in enumerate(cue_roles):
        if role is not None:
            membership[i, groups.index(role)] = 1.0
    root = torch.softmax(label_scores[:, :, 0, :].masked_fill(~is_cue, float("-inf")), dim=-1)
    chosen = (root @ membership).argmax(dim=-1)  # [batch, dependent]: the cue part
    in_group = membership.t()[chosen] > 0  # [batch, dependent, labels]
    best[:, :, 0] = root.masked_fill(~in_group, -1.0).argmax(dim=-1)
    return best


def _with_gold_cues(sentence: ResolutionSentence, predicted: Graph, encoding: str) -> Graph:
    """The gold cue edges (root, ``mwc``) with the predicted scope, event and nest roles below the gold anchors."""
    cues_only = replace(sentence, instances=[NegationInstance(cue=instance.cue) for instance in sentence.instances])
    graph = encode(cues_only, encoding)
    anchors = {anchor + 1 for anchor in choose_anchors(cues_only)}
    for (head, dependent), label in predicted.items():
        target = (ROOT, dependent) if head == ROOT else (head, dependent)
        if (head == ROOT and dependent not in anchors) or (head != ROOT and head not in anchors):
            continue
        roles = [role for role in parse_label(label) if role.name not in (CUE, MULTIWORD)]
        if roles:
            graph[target] = join_label(parse_label(graph.get(target, "")) + roles)
    return graph
