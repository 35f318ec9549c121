"""NaN-NLI's Table 4: how similar premise and hypothesis are, per class, as BERTScore F1 (Zhang et al., 2020).

:func:`bertscore_table` scores each premise-hypothesis pair (hypothesis as the candidate, premise as the reference;
F1 is symmetric) with :func:`negkit.kit.metrics.bertscore.bert_score` over the token embeddings of an encoder
(:class:`TokenEncoder`: a Hugging Face model's hidden states at one layer, special tokens left out) and averages
precision, recall and F1 per gold label and over all pairs, for each data set given (NaN-NLI's ``nan.csv``, NegNLI's
``MNLI.txt``, ``mnli_neg.jsonl``; :func:`read_pairs`). Importance weighting (idf over the data set's premises) is
off by default, as in the BERTScore package.

The default encoder is ``roberta-large`` at layer 17, the BERTScore package's default for English; where the hub is
out of reach, ``--model PATH`` names a local encoder (e.g. all-MiniLM-L6-v2). The encoder, its layer and whether
idf was used are part of the output, since the numbers depend on them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from negkit.benchmarks.nan_nli.data import read_nan_nli
from negkit.benchmarks.nan_nli.mnli_neg import read_mnli_neg
from negkit.errors import InputFormatError, NegkitError
from negkit.io.textfiles import read_bytes
from negkit.kit.data.nli import NLI_LABELS
from negkit.kit.metrics.bertscore import bert_score, idf_weights, token_weights

DEFAULT_MODEL = "roberta-large"
#: Layers the BERTScore package uses by default for a few models (other models: the last layer).
DEFAULT_LAYERS: dict[str, int] = {"roberta-large": 17, "roberta-base": 10, "bert-base-uncased": 9}
Pair = tuple[str, str, str]


class TokenEncoder:
    """Contextual token embeddings of a Hugging Face encoder (``name``: hub name or local folder) at ``layer``
    (hidden state index, 0 = embeddings; None: the last, or :data:`DEFAULT_LAYERS`' entry)."""

    def __init__(self, name: str, layer: int | None = None, device: str = "cpu") -> None:
        try:
            import torch
            from transformers import AutoModel, AutoTokenizer  # heavy: off the start-up path
        except ImportError:
            raise NegkitError("BERTScore needs torch and transformers (pip install 'negkit[models]')") from None
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(name)
            self.model = AutoModel.from_pretrained(name).to(device).eval()
        except (OSError, ValueError) as error:
            raise NegkitError(
                f"cannot load the encoder {name!r} ({str(error).splitlines()[0][:200]}); where the hub is out of "
                "reach, pass --model PATH of a local encoder (e.g. all-MiniLM-L6-v2)"
            ) from None
        layers = self.model.config.num_hidden_layers
        self.layer = DEFAULT_LAYERS.get(Path(name).name, layers) if layer is None else layer
        if not 0 <= self.layer <= layers:
            raise NegkitError(f"--layer {self.layer}: the encoder {name!r} has layers 0 to {layers}")
        self.name, self.device, self._torch = name, device, torch

    def embed(self, text: str) -> tuple[list[int], Any]:
        """The token ids and embeddings (rows) of ``text``, special tokens left out."""
        encoded = self.tokenizer(text, return_tensors="pt", return_special_tokens_mask=True, truncation=True)
        keep = encoded.pop("special_tokens_mask")[0] == 0
        with self._torch.no_grad():
            output = self.model(
                **{key: value.to(self.device) for key, value in encoded.items()}, output_hidden_states=True
            )
        states = output.hidden_states[self.layer][0].cpu()
        return encoded["input_ids"][0][keep].tolist(), states[keep].numpy()


def read_pairs(path: str | Path) -> list[Pair]:
    """(premise, hypothesis, label) of a data set file: NaN-NLI's ``nan.csv``, ``mnli_neg.jsonl``, or a
    tab-separated file with a header naming premise and hypothesis and label columns (``Text``, ``Hypothesis``,
    ``gold_label``: NegNLI's files; or ``premise``, ``hypothesis``, ``label``), UTF-8 or Windows-1252."""
    path = Path(path)
    if path.suffix == ".csv":
        return [(item.premise, item.hypothesis, item.label) for item in read_nan_nli(path)]
    if path.suffix == ".jsonl":
        return [(item.premise, item.hypothesis, item.label) for item in read_mnli_neg(path)]
    data = read_bytes(path, "NLI file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("cp1252", errors="replace")  # NegNLI's released files are Windows-1252
    lines = text.splitlines()
    header = [name.strip() for name in lines[0].split("\t")] if lines else []
    columns = next(
        (
            names
            for names in (("Text", "Hypothesis", "gold_label"), ("premise", "hypothesis", "label"))
            if set(names) <= set(header)
        ),
        None,
    )
    if columns is None:
        raise InputFormatError(
            path,
            1,
            "expected a tab-separated header naming Text, Hypothesis, gold_label (or premise, hypothesis, label)",
        )
    where = [header.index(name) for name in columns]
    pairs = []
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != len(header):
            raise InputFormatError(path, number, f"expected {len(header)} tab-separated fields, found {len(fields)}")
        premise, hypothesis, label = (fields[index].strip() for index in where)
        pairs.append((premise, hypothesis, label))
    if not pairs:
        raise InputFormatError(path, None, "no pairs")
    return pairs


def pair_scores(pairs: Sequence[Pair], encoder: Any, idf: bool = False) -> list[dict[str, float]]:
    """Each pair's BERTScore ``precision``, ``recall``, ``f1`` (hypothesis against premise)."""
    premises = {premise: encoder.embed(premise) for premise in dict.fromkeys(p for p, _h, _l in pairs)}
    weights = idf_weights([ids for ids, _rows in premises.values()]) if idf else None
    scores = []
    for premise, hypothesis, _label in pairs:
        ref_ids, ref_rows = premises[premise]
        cand_ids, cand_rows = encoder.embed(hypothesis)
        if weights is None:
            score = bert_score(cand_rows, ref_rows)
        else:
            score = bert_score(
                cand_rows,
                ref_rows,
                token_weights(cand_ids, weights, len(premises)),
                token_weights(ref_ids, weights, len(premises)),
            )
        scores.append({"precision": score.precision, "recall": score.recall, "f1": score.f1})
    return scores


def by_class(pairs: Sequence[Pair], scores: Sequence[dict[str, float]]) -> dict[str, dict[str, float]]:
    """Label (and ``all``) -> ``pairs`` and the mean ``precision``, ``recall``, ``f1``."""
    table: dict[str, dict[str, float]] = {}
    for label in (*NLI_LABELS, "all"):
        chosen = [score for (_p, _h, gold), score in zip(pairs, scores) if label in ("all", gold)]
        if chosen:
            table[label] = {"pairs": len(chosen)} | {
                name: sum(score[name] for score in chosen) / len(chosen) for name in ("precision", "recall", "f1")
            }
    return table


def bertscore_table(data_sets: Mapping[str, Sequence[Pair]], encoder: Any, idf: bool = False) -> dict[str, Any]:
    """Table 4's numbers: ``encoder`` (name, layer, idf) and, per data set, :func:`by_class` of its pairs."""
    return {
        "encoder": {"model": encoder.name, "layer": encoder.layer, "idf": idf},
        "data_sets": {name: by_class(pairs, pair_scores(pairs, encoder, idf)) for name, pairs in data_sets.items()},
    }


def bertscore_markdown(table: dict[str, Any]) -> str:
    """Table 4's layout: rows C, E, N, All; one column per data set (mean BERTScore F1, pairs)."""
    encoder = table["encoder"]
    names = list(table["data_sets"])
    rows = []
    for label, short in (("contradiction", "C"), ("entailment", "E"), ("neutral", "N"), ("all", "All")):
        cells = []
        for name in names:
            row = table["data_sets"][name].get(label)
            cells.append(f"{row['f1']:.3f} ({int(row['pairs'])})" if row else "–")
        rows.append(f"| {short} | " + " | ".join(cells) + " |")
    lines = [
        "### Premise-hypothesis similarity, BERTScore F1 (NaN-NLI Table 4)",
        "",
        "| class | " + " | ".join(names) + " |",
        "|---|" + "---|" * len(names),
        *rows,
        "",
        f"Encoder: {encoder['model']}, layer {encoder['layer']}, idf weighting {'on' if encoder['idf'] else 'off'}; "
        "the mean F1 of the class's pairs (pairs in brackets), hypothesis scored against premise, no baseline "
        "rescaling. Numbers from another encoder or layer are not comparable with the paper's.",
    ]
    return "\n".join(lines) + "\n"
