"""Losses beyond cross-entropy for a training mix (each optional, each weighted into the loss of a batch).

All three read the model's next-token distribution at the position that predicts the token where an example's
closed answers first differ (their first token, unless they share it), where the evaluation's comparison of the
answers is decided (:func:`answer_log_probs`):

- **Unlikelihood** (BERTNOT, Hosseini et al. 2021, for a causal LM): on the negated side only (examples marked
  ``negated``), ``-log(1 - p(a))`` for every wrong answer ``a``, so that negation pushes probability off the
  answer a model would give to the affirmative.
- **Consistency** on minimal pairs (two examples of one ``pair`` key with different gold answers, in one batch):
  with ``q = p(own gold) / (p(own gold) + p(partner's gold))`` in each, ``(q_1 - q_2)^2``: zero when the model is
  as sure of the right answer on both sides, large when it gives both sides the same answer (a prior).
- **KL to the base model** (against forgetting; the adapter switched off for the reference pass):
  ``KL(base || tuned)`` over the whole vocabulary at every weighted position, averaged; replay rows (plain text)
  count only here, at every token.
"""

from __future__ import annotations

from typing import Any

import torch


def answer_log_probs(logits: torch.Tensor, answer_offsets: torch.Tensor) -> torch.Tensor:
    """Log-softmax at each row's position predicting its answers' deciding token (rows x vocabulary), that token
    being ``answer_offsets`` from the row's end. ``logits`` are the last ``K`` positions of left-padded rows
    (``K`` > every offset)."""
    keep = logits.shape[1]
    position = (keep - answer_offsets - 1).clamp(min=0)
    rows = torch.arange(logits.shape[0], device=logits.device)
    return torch.log_softmax(logits[rows, position.to(logits.device)].float(), dim=-1)


def choice_log_probs(log_probs: torch.Tensor, choice_ids: torch.Tensor) -> torch.Tensor:
    """The log-probabilities of each row's answers' first tokens (-inf where a row has fewer answers)."""
    gathered = log_probs.gather(1, choice_ids.clamp(min=0).to(log_probs.device))
    return gathered.masked_fill(choice_ids.to(log_probs.device) < 0, float("-inf"))


def unlikelihood_loss(choice_lp: torch.Tensor, gold: torch.Tensor, negated: torch.Tensor) -> torch.Tensor:
    """Mean over negated rows with answers of ``sum over wrong answers of -log(1 - p)``; 0 without such rows."""
    rows = negated.to(choice_lp.device) & (gold.to(choice_lp.device) >= 0)
    if not bool(rows.any()):
        return choice_lp.new_zeros(())
    chosen = choice_lp[rows]
    wrong = torch.ones_like(chosen, dtype=torch.bool)
    wrong[torch.arange(len(chosen)), gold.to(choice_lp.device)[rows]] = False
    wrong &= torch.isfinite(chosen)
    probability = chosen.exp().clamp(max=1 - 1e-6)
    penalty = -torch.log1p(-probability) * wrong
    return penalty.sum(dim=1).mean()


def consistency_loss(choice_lp: torch.Tensor, gold: torch.Tensor, partner: torch.Tensor) -> torch.Tensor:
    """Mean over minimal pairs in the batch of ``(q_1 - q_2)^2`` (see the module); 0 without pairs."""
    device = choice_lp.device
    gold, partner = gold.to(device), partner.to(device)
    first = torch.nonzero((partner >= 0) & (partner > torch.arange(len(partner), device=device))).flatten()
    if len(first) == 0:
        return choice_lp.new_zeros(())
    second = partner[first]

    def confidence(row: torch.Tensor, own: torch.Tensor, other: torch.Tensor) -> torch.Tensor:
        both = torch.stack([choice_lp[row, own], choice_lp[row, other]], dim=1)
        return torch.softmax(both, dim=1)[:, 0]

    left = confidence(first, gold[first], gold[second])
    right = confidence(second, gold[second], gold[first])
    return ((left - right) ** 2).mean()


def kl_to_base(logits: torch.Tensor, base_logits: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
    """``KL(base || tuned)`` per weighted position (logits at ``t`` predict token ``t + 1``), weight-averaged."""
    current = torch.log_softmax(logits[:, :-1].float(), dim=-1)
    base = torch.log_softmax(base_logits[:, :-1].float(), dim=-1)
    per_position = (base.exp() * (base - current)).sum(dim=-1)
    token_weights = (weights[:, 1:] > 0).float().to(per_position.device)
    total = token_weights.sum()
    if total <= 0:
        return per_position.sum() * 0.0
    return (per_position * token_weights).sum() / total


def mix_objectives(
    model: Any,
    logits: torch.Tensor,
    batch: dict[str, torch.Tensor],
    model_inputs: dict[str, Any],
    weights: torch.Tensor,
    options: Any,
) -> dict[str, torch.Tensor]:
    """The weighted extra losses of ``options`` for one batch (names: ``unlikelihood``, ``consistency``, ``kl``)."""
    terms: dict[str, torch.Tensor] = {}
    if options.unlikelihood_weight or options.consistency_weight:
        choice_lp = choice_log_probs(answer_log_probs(logits, batch["answer_offsets"]), batch["choice_ids"])
        if options.unlikelihood_weight:
            terms["unlikelihood"] = options.unlikelihood_weight * unlikelihood_loss(
                choice_lp, batch["gold_choice"], batch["negated_rows"]
            )
        if options.consistency_weight:
            terms["consistency"] = options.consistency_weight * consistency_loss(
                choice_lp, batch["gold_choice"], batch["partner"]
            )
    if options.kl_weight:
        with torch.no_grad(), model.disable_adapter():
            base_logits = model(**model_inputs).logits
        terms["kl"] = options.kl_weight * kl_to_base(logits, base_logits, weights)
    return terms
