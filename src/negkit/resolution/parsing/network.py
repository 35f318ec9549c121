"""The parser network: encoder -> scalar mix -> [BiLSTM] -> deep biaffine edge and label scorers.

Words are represented by their first subword; the artificial root node 0 by the encoder's first token (``[CLS]``,
``<s>``). :class:`DeepBiaffine` (Dozat & Manning 2017, 2018) reduces each node with a ReLU MLP in a dependent role
and in a head role and scores every (dependent, head) pair with a biaffine form, one score per output.
:class:`ParserNetwork` has two: an edge scorer (1 output: does the edge exist?) and a label scorer (one output per
label), both over the same word vectors; the UD stage of the ``-synt`` systems uses the same network with a tree
loss over heads.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import torch
from torch import nn

if TYPE_CHECKING:
    from transformers import PreTrainedModel

from negkit.resolution.layers import ScalarMix


@dataclass
class ParserConfig:
    """What is needed to rebuild a :class:`ParserNetwork` around a saved encoder."""

    labels: list[str] = field(default_factory=list)
    #: Affix cues seen in training (:class:`~negkit.resolution.cue_lexicon.AffixLexicon` as JSON): the labels say
    #: only where an affix sits ("cue:pre"), this says which affixes there are.
    affixes: dict[str, dict[str, int]] = field(default_factory=dict)
    layer_mix: bool = True
    layer_dropout: float = 0.1
    #: Dropout on the word vectors and inside the biaffine MLPs.
    dropout: float = 0.33
    lstm_layers: int = 0
    lstm_hidden: int = 200
    edge_hidden: int = 256
    label_hidden: int = 128
    max_length: int = 256
    train_word_embeddings: bool = False


class Biaffine(nn.Module):
    """``score[b, i, j, o] = [x_i; 1]^T W_o [y_j; 1]`` (zero-initialised, as Dozat & Manning)."""

    def __init__(self, in1: int, in2: int, out: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(out, in1 + 1, in2 + 1))

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        x = torch.cat([x, x.new_ones(*x.shape[:-1], 1)], dim=-1)
        y = torch.cat([y, y.new_ones(*y.shape[:-1], 1)], dim=-1)
        return torch.einsum("bip,opq,bjq->bijo", x, self.weight, y)


class DeepBiaffine(nn.Module):
    """ReLU MLPs for the dependent and head roles, then a :class:`Biaffine` with ``out`` outputs."""

    def __init__(self, width: int, hidden: int, out: int, dropout: float) -> None:
        super().__init__()
        self.dependent = nn.Sequential(nn.Linear(width, hidden), nn.ReLU(), nn.Dropout(dropout))
        self.head = nn.Sequential(nn.Linear(width, hidden), nn.ReLU(), nn.Dropout(dropout))
        self.biaffine = Biaffine(hidden, hidden, out)

    def forward(self, states: torch.Tensor) -> torch.Tensor:
        """``[batch, dependent, head, out]`` scores."""
        return self.biaffine(self.dependent(states), self.head(states))


class ParserNetwork(nn.Module):
    """Scores every (dependent, head) pair of nodes (root + words) for edge existence and for each label."""

    def __init__(self, encoder: PreTrainedModel, config: ParserConfig) -> None:
        super().__init__()
        self.encoder = encoder
        self.config = config
        encoder.get_input_embeddings().weight.requires_grad_(config.train_word_embeddings)
        hidden = int(encoder.config.hidden_size)
        layers = int(encoder.config.num_hidden_layers) + 1
        self.mix = ScalarMix(layers, config.layer_dropout) if config.layer_mix else None
        self.dropout = nn.Dropout(config.dropout)
        self.lstm = (
            nn.LSTM(
                hidden,
                config.lstm_hidden,
                num_layers=config.lstm_layers,
                batch_first=True,
                bidirectional=True,
                dropout=config.dropout if config.lstm_layers > 1 else 0.0,
            )
            if config.lstm_layers
            else None
        )
        width = 2 * config.lstm_hidden if self.lstm is not None else hidden
        self.edges = DeepBiaffine(width, config.edge_hidden, 1, config.dropout)
        self.labels = DeepBiaffine(width, config.label_hidden, max(1, len(config.labels)), config.dropout)

    def node_states(
        self, input_ids: torch.Tensor, attention_mask: torch.Tensor, node_index: torch.Tensor, node_mask: torch.Tensor
    ) -> torch.Tensor:
        """``[batch, nodes, width]``: the subword vector at ``node_index`` (root first), mixed and contextualised."""
        output = self.encoder(
            input_ids=input_ids, attention_mask=attention_mask, output_hidden_states=self.mix is not None
        )
        subwords = self.mix(output.hidden_states) if self.mix is not None else output.last_hidden_state
        gathered = subwords.gather(1, node_index.clamp(min=0).unsqueeze(-1).expand(-1, -1, subwords.shape[-1]))
        states = self.dropout(gathered * node_mask.unsqueeze(-1))
        if self.lstm is not None:
            lengths = node_mask.sum(dim=1).clamp(min=1).cpu()
            packed = nn.utils.rnn.pack_padded_sequence(states, lengths, batch_first=True, enforce_sorted=False)
            output_states, _ = self.lstm(packed)
            states, _ = nn.utils.rnn.pad_packed_sequence(
                output_states, batch_first=True, total_length=node_index.shape[1]
            )
            states = self.dropout(states)
        return states

    def forward(
        self, input_ids: torch.Tensor, attention_mask: torch.Tensor, node_index: torch.Tensor, node_mask: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Edge scores ``[batch, dependent, head]`` and label scores ``[batch, dependent, head, labels]``."""
        states = self.node_states(input_ids, attention_mask, node_index, node_mask)
        return self.edges(states).squeeze(-1), self.labels(states)


def encode_words(tokenizer, sentences: Sequence[Sequence[str]], max_length: int) -> dict[str, torch.Tensor]:
    """Subword tensors and, per sentence, the subword of each node: the root (subword 0) then each word's first
    subword; ``node_mask`` is 0 for padding and for words cut off by ``max_length``."""
    encoded = tokenizer(
        [list(words) for words in sentences],
        is_split_into_words=True,
        truncation=True,
        max_length=max_length,
        padding=True,
        return_tensors="pt",
    )
    nodes = 1 + max((len(words) for words in sentences), default=0)
    node_index = torch.zeros((len(sentences), nodes), dtype=torch.long)
    node_mask = torch.zeros((len(sentences), nodes), dtype=torch.bool)
    for row in range(len(sentences)):
        node_mask[row, 0] = True
        previous = None
        for column, word in enumerate(encoded.word_ids(row)):
            if word is not None and word != previous:
                node_index[row, word + 1] = column
                node_mask[row, word + 1] = True
            previous = word
    return {
        "input_ids": encoded["input_ids"],
        "attention_mask": encoded["attention_mask"],
        "node_index": node_index,
        "node_mask": node_mask,
    }


def pair_mask(node_mask: torch.Tensor) -> torch.Tensor:
    """``[batch, dependent, head]``: True where both nodes exist, the dependent is a word and not its own head."""
    mask = node_mask.unsqueeze(2) & node_mask.unsqueeze(1)
    mask[:, 0, :] = False
    eye = torch.eye(node_mask.shape[1], dtype=torch.bool, device=node_mask.device)
    return mask & ~eye
