"""Exact mode: batched scoring with shared-prefix reuse equals a plain per-prompt forward pass."""

from __future__ import annotations

import pytest
import torch
from tiny_models import model_device, plain_next_token_logprobs, synthetic_truth_items, tiny_causal_lm

from negkit.benchmarks.tind.task import TruthTask, true_probability
from negkit.engine.batching import LengthSortedBatcher
from negkit.engine.prefix import PrefixChecker, common_prefix_length
from negkit.models.base import LoglikelihoodRequest

TOLERANCE = 1e-4


def _p_true(answer):
    return true_probability(answer["True"], answer["False"])


@pytest.mark.parametrize("chat_template", [True, False])
@pytest.mark.parametrize("prefix_reuse", [True, False])
def test_exact_mode_matches_plain_forward_pass(chat_template, prefix_reuse):
    lm = tiny_causal_lm(chat_template=chat_template, prefix_reuse=prefix_reuse, batch_size=5)
    task = TruthTask()
    items = synthetic_truth_items(groups_per_pattern=2)
    contexts = [task.prompt(item.sentence, lm) for item in items]
    assert contexts[0].startswith(
        "<|im_start|>user\n" if chat_template else "Is the following statement True or False? "
    )
    answers = lm.next_token_logprobs(contexts, ["True", "False"])
    for context, answer in zip(contexts, answers):
        reference = plain_next_token_logprobs(lm, context, ["True", "False"])
        assert abs(_p_true(answer) - _p_true(reference)) < TOLERANCE
        assert abs(answer["True"] - reference["True"]) < TOLERANCE
    if prefix_reuse:  # along the prefix tree: the shared prefixes run once
        assert lm.scorer.stats.prefix_tree == "on"
        assert lm.scorer.stats.tokens_skipped > lm.scorer.stats.tokens_total / 2
    else:
        assert lm.scorer.stats.tokens_skipped == 0
    # the probabilities vary by sentence: the test is not comparing constants
    assert len({round(_p_true(answer), 6) for answer in answers}) > 5


def test_loglikelihood_matches_plain_forward_pass():
    lm = tiny_causal_lm(batch_size=3)
    requests = [
        LoglikelihoodRequest(f"Is the following statement True or False? A {noun} is an animal.", ending)
        for noun in ("dog", "cat", "rose")
        for ending in (" True", " False", " not a plant")
    ]
    results = lm.loglikelihood(requests)
    for request, result in zip(requests, results):
        context = lm.rules.encode(request.context, special=True)
        continuation = lm.rules.encode(request.continuation, special=False)
        with torch.no_grad():
            logits = lm.model(input_ids=torch.tensor([context + continuation], device=model_device(lm.model))).logits[0]
        logprobs = torch.log_softmax(logits, dim=-1).cpu()
        expected = sum(float(logprobs[len(context) - 1 + k, token]) for k, token in enumerate(continuation))
        greedy = all(int(logprobs[len(context) - 1 + k].argmax()) == token for k, token in enumerate(continuation))
        assert abs(result.logprob - expected) < TOLERANCE
        assert result.n_tokens == len(continuation) and result.is_greedy == greedy


def test_batching_order_does_not_change_answers():
    lm = tiny_causal_lm(batch_size=3)
    task = TruthTask()
    contexts = [task.prompt(item.sentence, lm) for item in synthetic_truth_items(groups_per_pattern=1)]
    forward = lm.next_token_logprobs(contexts, ["True", "False"])
    backward = lm.next_token_logprobs(contexts[::-1], ["True", "False"])[::-1]
    one_by_one = tiny_causal_lm(batch_size=1).next_token_logprobs(contexts, ["True", "False"])
    for a, b, c in zip(forward, backward, one_by_one):
        assert abs(a["True"] - b["True"]) < TOLERANCE and abs(a["True"] - c["True"]) < TOLERANCE


def test_common_prefix_length():
    assert common_prefix_length([[1, 2, 3, 4], [1, 2, 5], [1, 2, 3]]) == 2
    assert common_prefix_length([[1, 2, 3], [1, 2, 3]], limit=2) == 2
    assert common_prefix_length([[7], [8]]) == 0
    assert common_prefix_length([]) == 0


def _char_encoder(dummy_prefix: bool):
    """Characters as tokens; a context starts with BOS (0); with ``dummy_prefix`` a plain encoding starts
    with a space marker (9), as SentencePiece tokenizers do, so a separately encoded suffix differs."""
    vocabulary = {"a": 1, "b": 2, "c": 3}

    def encode(text, special):
        ids = [vocabulary[character] for character in text]
        if special:
            return [0, *ids]
        return [9, *ids] if dummy_prefix and text else ids

    return encode


def test_prefix_check_accepts_clean_split():
    checker = PrefixChecker(_char_encoder(dummy_prefix=False))
    texts, ids, ends = ["abc", "abb"], [[0, 1, 2, 3], [0, 1, 2, 2]], [[0, 1, 2, 3], [0, 1, 2, 3]]
    assert checker.split_is_exact("abc", ids[0], ends[0], 3)
    assert checker.usable_prefix_length(texts, ids, ends, 3) == 3


def test_prefix_check_falls_back_when_split_tokenization_differs():
    checker = PrefixChecker(_char_encoder(dummy_prefix=True))
    texts, ids, ends = ["abc", "abb"], [[0, 1, 2, 3], [0, 1, 2, 2]], [[0, 1, 2, 3], [0, 1, 2, 3]]
    assert not checker.split_is_exact("abc", ids[0], ends[0], 3)
    assert checker.usable_prefix_length(texts, ids, ends, 3) == 0


def test_prefix_check_rejects_offsets_that_cut_inside_the_prompt_wrongly():
    checker = PrefixChecker(_char_encoder(dummy_prefix=False))
    # token 2 claims to end at character 1: the cut gives different ids, so no prefix is used
    assert checker.usable_prefix_length(["abc"], [[0, 1, 2, 3]], [[0, 1, 1, 3]], 3) == 2


def test_scorer_uses_no_prefix_when_check_fails(monkeypatch):
    lm = tiny_causal_lm(batch_size=4)
    monkeypatch.setattr(lm.scorer.prefix_checker.__class__, "split_is_exact", lambda *args: False)
    contexts = [TruthTask().prompt(item.sentence, lm) for item in synthetic_truth_items(groups_per_pattern=1)[:8]]
    answers = lm.next_token_logprobs(contexts, ["True", "False"])
    assert lm.scorer.stats.batches_with_prefix == 0
    for context, answer in zip(contexts, answers):
        assert abs(answer["True"] - plain_next_token_logprobs(lm, context, ["True"])["True"]) < TOLERANCE


def test_out_of_memory_halves_the_batch_and_keeps_order():
    sizes = []

    def process(indices):
        sizes.append(len(indices))
        if len(indices) > 2:
            raise torch.OutOfMemoryError("CUDA out of memory (simulated)")
        return [index * 10 for index in indices]

    batcher = LengthSortedBatcher(max_batch_size=8)
    lengths = [3, 9, 1, 7, 5, 2, 8]
    assert batcher.run(lengths, process) == [index * 10 for index in range(len(lengths))]
    assert sizes[:3] == [7, 3, 1] and batcher.bucket_limits == {16: 1}  # 7 -> 3 -> 1, remembered for the bucket


def test_other_errors_are_not_swallowed():
    def process(indices):
        raise ValueError("a bug")

    with pytest.raises(ValueError):
        LengthSortedBatcher(4).run([1, 2], process)


@pytest.mark.parametrize("prefix_tree", [True, False])
def test_scores_do_not_depend_on_the_batch_size(prefix_tree):
    """Batch 1, 7 and auto (token budget) give the same exact-mode answers to 1e-4 (fp32), along the prefix
    tree (small rows, so that there are many) and with per-batch prefixes."""
    task = TruthTask()
    models = {size: tiny_causal_lm(batch_size=size, prefix_tree=prefix_tree) for size in (1, 7, None)}
    for lm in models.values():
        if lm.scorer.tree:
            lm.scorer.tree.row_tokens = 16
    contexts = [task.prompt(item.sentence, models[1]) for item in synthetic_truth_items(groups_per_pattern=2)]
    requests = [
        LoglikelihoodRequest(context, ending) for context in contexts[:9] for ending in (" True", " False", " no")
    ]
    answers = {size: lm.next_token_logprobs(contexts, ["True", "False"]) for size, lm in models.items()}
    scores = {size: lm.loglikelihood(requests) for size, lm in models.items()}
    for size in (7, None):
        for a, b in zip(answers[1], answers[size]):
            assert abs(a["True"] - b["True"]) < TOLERANCE and abs(a["False"] - b["False"]) < TOLERANCE
        for a, b in zip(scores[1], scores[size]):
            assert abs(a.logprob - b.logprob) < TOLERANCE and a.is_greedy == b.is_greedy
    assert max(models[7].batcher.sizes_used.values()) == 7
    assert max(models[None].batcher.sizes_used.values()) > 7  # auto: as many as the token budget allows
    assert models[None].batcher.report()["max_batch_size"] == "auto"


def test_out_of_memory_halves_the_batch_and_remembers_it_per_length_bucket():
    """A fake memory limit of 600 padded tokens: the longest bucket learns a smaller size, shorter buckets
    keep larger ones, nothing is lost or reordered, and every batch that ran fitted."""
    lengths = [100] * 10 + [40] * 20 + [10] * 40
    ran: list[int] = []

    def process(indices):
        tokens = len(indices) * max(lengths[i] for i in indices)
        if tokens > 600:
            raise torch.OutOfMemoryError("CUDA out of memory (fake)")
        ran.append(len(indices))
        return [f"answer {i}" for i in indices]

    batcher = LengthSortedBatcher(max_batch_size=None, token_budget=4000)
    assert batcher.run(lengths, process) == [f"answer {i}" for i in range(len(lengths))]
    assert batcher.sizes_used == {128: 5, 64: 15, 16: 30}  # 60 -> 30 -> 15 for the 40s (and the 10s after them)
    assert batcher.bucket_limits[128] == 5 and batcher.halvings >= 3
    # remembered: a second run of long prompts starts at the learnt size (no more halvings)
    halvings = batcher.halvings
    batcher.run([100] * 6, process)
    assert batcher.halvings == halvings
    lengths[:] = [700]
    with pytest.raises(torch.OutOfMemoryError):  # one sequence that does not fit is not hidden
        LengthSortedBatcher(None, 4000).run(lengths, process)
