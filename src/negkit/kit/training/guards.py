"""Guards against collapse while training a mix: per format, the development accuracy and the largest answer
share, and the answer prior on a content-free prompt (Zhao et al. 2021), before and after.

A format collapses when the model answers every prompt of it the same way (the largest share of its answers near
1): the mean over formats can still rise while one format collapses, so a mix's checkpoint is chosen on the
*worst* format's development accuracy (:func:`negkit.kit.training.callbacks.best_guard_step`). Accuracy compares the answers' deciding tokens (the first where they differ) at
the answer position, as the evaluation of a closed answer does.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

import torch

from negkit.kit.training.batches import PaddingCollator, Tokenized
from negkit.kit.training.callbacks import WORST
from negkit.kit.training.objectives import answer_log_probs, choice_log_probs


def predicted_answers(model: Any, rows: Sequence[Tokenized], pad_id: int, batch_size: int) -> list[list[float]]:
    """Each row's answer probabilities (normalised over its answers' deciding tokens), without gradients."""
    collator = PaddingCollator(pad_id)
    device = next(model.parameters()).device
    out: list[list[float]] = []
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            for start in range(0, len(rows), batch_size):
                chunk = list(rows[start : start + batch_size])
                batch = collator([{"input_ids": row.ids, "loss_weights": row.weights, "mix": row} for row in chunk])
                keep = int(batch["answer_offsets"].max()) + 1
                inputs: dict[str, Any] = {
                    name: batch[name].to(device) for name in ("input_ids", "attention_mask", "position_ids")
                }
                if keeps_logits(model):  # the head only where the answers are compared
                    inputs["logits_to_keep"] = keep
                logits = model(**inputs, use_cache=False).logits[:, -keep:]
                choice_lp = choice_log_probs(answer_log_probs(logits, batch["answer_offsets"]), batch["choice_ids"])
                for row, values in zip(chunk, torch.softmax(choice_lp, dim=1).tolist()):
                    out.append(values[: len(row.choice_ids)])
    finally:
        model.train(was_training)
    return out


def keeps_logits(model: Any) -> bool:
    """Whether the (base) model's forward takes ``logits_to_keep``."""
    forward = getattr(model, "get_base_model", lambda: model)().forward
    return "logits_to_keep" in inspect.signature(forward).parameters


def format_guards(model: Any, rows: Sequence[Tokenized], pad_id: int, batch_size: int) -> dict[str, Any]:
    """Per format: development accuracy and the largest share of one answer; and the worst format's accuracy."""
    scored = [row for row in rows if row.choice_ids and not row.replay]
    probabilities = predicted_answers(model, scored, pad_id, batch_size)
    by_format: dict[str, list[tuple[int, int]]] = {}
    for row, values in zip(scored, probabilities):
        by_format.setdefault(row.format, []).append((max(range(len(values)), key=values.__getitem__), row.gold))
    metrics: dict[str, Any] = {}
    worst: tuple[float, str] | None = None
    for name in sorted(by_format):
        pairs = by_format[name]
        accuracy = sum(predicted == gold for predicted, gold in pairs) / len(pairs)
        shares: dict[int, int] = {}
        for predicted, _ in pairs:
            shares[predicted] = shares.get(predicted, 0) + 1
        metrics[f"eval_guard_accuracy/{name}"] = round(accuracy, 6)
        metrics[f"eval_guard_largest_share/{name}"] = round(max(shares.values()) / len(pairs), 6)
        if worst is None or accuracy < worst[0]:
            worst = (accuracy, name)
    if worst is not None:
        metrics[WORST] = round(worst[0], 6)
        metrics["eval_guard_worst_format"] = worst[1]
    return metrics


def answer_priors(
    model: Any, rows: Sequence[Tokenized], choices: Sequence[Sequence[str]], pad_id: int
) -> dict[str, dict[str, float]]:
    """Per format, the probability of each answer on its content-free prompt (``choices``: the answers' texts)."""
    usable = [(row, names) for row, names in zip(rows, choices) if row.choice_ids]
    probabilities = predicted_answers(model, [row for row, _ in usable], pad_id, 8)
    return {
        row.format: {name.strip(): round(value, 6) for name, value in zip(names, values)}
        for (row, names), values in zip(usable, probabilities)
    }
