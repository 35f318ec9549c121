"""The fine-tuning loss: prompt weights as the TIND authors compute them, completion-only masking, left padding
that changes nothing, and logits asked only where they are needed."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")

from negkit.training.batches import PaddingCollator, Tokenized, _weights, weighted_loss  # noqa: E402
from negkit.training.trainer import logits_needed  # noqa: E402


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
    rows = [
        Tokenized((1, 10, 11, 12, 13, 20, 2), _weights(5, 2, 0.0), 5),
        Tokenized((1, 30, 31, 21, 2), _weights(3, 2, 0.0), 3),
    ]
    batch = PaddingCollator(pad_id=0)([{"input_ids": r.ids, "loss_weights": r.weights} for r in rows])
    assert batch["input_ids"][1].tolist() == [0, 0, 1, 30, 31, 21, 2] and batch["position_ids"][1].tolist()[2:] == [
        0,
        1,
        2,
        3,
        4,
    ]
    assert batch["labels"][1].tolist() == [-100] * 5 + [21, 2]
    keep = logits_needed(batch["loss_weights"])
    assert keep == 3
    with torch.no_grad():
        inputs = {key: batch[key] for key in ("input_ids", "attention_mask", "position_ids")}
        kept = weighted_loss(
            model(**inputs, logits_to_keep=keep).logits, batch["labels"][:, -keep:], batch["loss_weights"][:, -keep:]
        )
        full = weighted_loss(model(**inputs).logits, batch["labels"], batch["loss_weights"])
        # each row alone, unpadded: the batch loss is the weight-averaged mean of the rows' token losses
        singles = [
            weighted_loss(
                model(input_ids=torch.tensor([r.ids])).logits, torch.tensor([r.ids]), torch.tensor([r.weights])
            )
            for r in rows
        ]
    assert abs(float(kept) - float(full)) < 1e-5
    assert abs(float(full) - float(sum(singles) / 2)) < 1e-5  # both rows have 2 weighted tokens


def test_a_shared_prefix_gives_the_loss_and_gradients_of_whole_rows():
    from peft import LoraConfig, get_peft_model
    from tiny_models import tiny_llama

    from negkit.training.trainer import WeightedLossTrainer

    torch.manual_seed(0)
    model = get_peft_model(
        tiny_llama(400), LoraConfig(r=4, lora_alpha=8, lora_dropout=0.0, target_modules="all-linear")
    )
    for parameter in model.parameters():
        if parameter.requires_grad:
            torch.nn.init.normal_(parameter, std=0.05)  # LoRA B starts at zero; make the adapter matter
    prompt = (1, 7, 8, 9, 10, 11, 12)
    rows = [
        Tokenized((*prompt, 40, 41, 20, 2), _weights(9, 2, 0.0), 9),
        Tokenized((*prompt, 50, 21, 2), _weights(8, 2, 0.0), 8),
        Tokenized((*prompt, 60, 61, 62, 20, 2), _weights(10, 2, 0.0), 10),
    ]
    features = [{"input_ids": r.ids, "loss_weights": r.weights} for r in rows]
    shared = PaddingCollator(0, share_prefix=True)(features)
    assert shared["prefix_ids"].tolist() == [list(prompt)] and shared["attention_mask"].shape == (3, 7 + 5)
    assert shared["position_ids"][1].tolist() == [0, 0, 7, 8, 9]
    trainer = WeightedLossTrainer.__new__(WeightedLossTrainer)  # compute_loss only
    trainer._keeps_logits, trainer.computed_tokens = True, 0

    def loss_and_grads(batch):
        model.zero_grad()
        loss = trainer.compute_loss(model, dict(batch))
        loss.backward()
        return float(loss.detach()), {n: p.grad.clone() for n, p in model.named_parameters() if p.requires_grad}

    plain_loss, plain_grads = loss_and_grads(PaddingCollator(0)(features))
    shared_loss, shared_grads = loss_and_grads(shared)
    assert abs(plain_loss - shared_loss) < 1e-5
    assert max(float((plain_grads[n] - shared_grads[n]).abs().max()) for n in plain_grads) < 1e-5
    assert trainer.computed_tokens == sum(len(r.ids) for r in rows) + 7 + sum(len(r.ids) - 7 for r in rows)
