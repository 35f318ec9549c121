"""The fine-tuning loss: prompt weights as the TIND authors compute them, completion-only masking, left padding
that changes nothing, and logits asked only where they are needed."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")

from negkit.train.batches import PaddingCollator, Tokenized, _weights, weighted_loss  # noqa: E402
from negkit.train.trainer import logits_needed  # noqa: E402


def test_prompt_weights_follow_the_authors_formula():
    # 4 prompt tokens, 2 completion tokens, w = 0.05: each prompt token weighs 0.05 * 2 / (0.95 * 4)
    weights = _weights(4, 2, 0.05)
    assert weights[0] == 0.0 and weights[4:] == (1.0, 1.0)
    assert all(math.isclose(value, 0.1 / 3.8) for value in weights[1:4])
    assert _weights(4, 2, 0.0) == (0.0, 0.0, 0.0, 0.0, 1.0, 1.0)


def test_weighted_loss_by_hand():
    # vocabulary of 2; logits at position t predict token t + 1
    logits = torch.tensor([[[0.0, 0.0], [math.log(3), 0.0], [0.0, math.log(3)]]])
    labels = torch.tensor([[0, 0, 1]])
    weights = torch.tensor([[0.0, 1.0, 3.0]])
    # token 1 (label 0 after logits [0, 0]): -log(1/2); token 2 (label 1 after logits [log 3, 0]): -log(1/4)
    expected = (1.0 * math.log(2) + 3.0 * math.log(4)) / 4.0
    assert math.isclose(float(weighted_loss(logits, labels, weights)), expected, rel_tol=1e-6)


def test_left_padding_and_kept_logits_change_nothing():
    from tiny_models import tiny_llama

    model = tiny_llama(400)
    rows = [Tokenized((1, 10, 11, 12, 13, 20, 2), _weights(5, 2, 0.0), 5),
            Tokenized((1, 30, 31, 21, 2), _weights(3, 2, 0.0), 3)]
    batch = PaddingCollator(pad_id=0)([{"input_ids": r.ids, "loss_weights": r.weights} for r in rows])
    assert batch["input_ids"][1].tolist() == [0, 0, 1, 30, 31, 21, 2] and batch["position_ids"][1].tolist()[2:] == [0, 1, 2, 3, 4]
    assert batch["labels"][1].tolist() == [-100] * 5 + [21, 2]
    keep = logits_needed(batch["loss_weights"])
    assert keep == 3
    with torch.no_grad():
        inputs = {key: batch[key] for key in ("input_ids", "attention_mask", "position_ids")}
        kept = weighted_loss(model(**inputs, logits_to_keep=keep).logits, batch["labels"][:, -keep:],
                             batch["loss_weights"][:, -keep:])
        full = weighted_loss(model(**inputs).logits, batch["labels"], batch["loss_weights"])
        # each row alone, unpadded: the batch loss is the weight-averaged mean of the rows' token losses
        singles = [weighted_loss(model(input_ids=torch.tensor([r.ids])).logits, torch.tensor([r.ids]),
                                 torch.tensor([r.weights])) for r in rows]
    assert abs(float(kept) - float(full)) < 1e-5
    assert abs(float(full) - float(sum(singles) / 2)) < 1e-5  # both rows have 2 weighted tokens
