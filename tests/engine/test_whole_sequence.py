"""Whole-sequence log-likelihoods: an empty context is the model's prefix token (BOS, else EOS), the BLiMP
decisions of the tiny model equal a plain transformers computation, and the prefix tree shares the common
beginning of a minimal pair and of a question's choices."""

from __future__ import annotations

import json

import pytest
import torch
from conftest import shared_data_path
from tiny_models import save_tiny_causal, tiny_causal_lm

from negkit.commands.eval.evaluate import evaluate
from negkit.commands.eval.options import EvalOptions
from negkit.models.base import LoglikelihoodRequest

TOLERANCE = 1e-4
SENTENCES = [" A dog is not a plant.", " A dog is ever a plant.", " Birds can fly.", " Birds can not fly."]


def plain_sequence_logprob(model, tokenizer, ids: list[int]) -> float:
    """log p(ids[1:] | ids[0]) from one plain forward pass of the whole sequence."""
    with torch.no_grad():
        logprobs = torch.log_softmax(model(input_ids=torch.tensor([ids])).logits[0].float(), dim=-1)
    return sum(float(logprobs[k, ids[k + 1]]) for k in range(len(ids) - 1))


@pytest.mark.parametrize("prefix_reuse, prefix_tree", [(True, True), (True, False), (False, False)])
def test_empty_context_is_the_prefix_token(prefix_reuse, prefix_tree):
    lm = tiny_causal_lm(prefix_reuse=prefix_reuse, prefix_tree=prefix_tree, batch_size=3)
    results = lm.loglikelihood([LoglikelihoodRequest("", sentence) for sentence in SENTENCES])
    bos = lm.tokenizer.bos_token_id
    for sentence, result in zip(SENTENCES, results):
        ids = [bos] + lm.tokenizer(sentence, add_special_tokens=False)["input_ids"]
        assert abs(result.logprob - plain_sequence_logprob(lm.model, lm.tokenizer, ids)) < TOLERANCE
        assert result.n_tokens == len(ids) - 1
    assert lm.load_info["prefix_token"] == {"id": bos, "token": "<s>", "from": "bos"}
    if prefix_tree:  # the sentences' common beginnings ("A dog is", "Birds can") ran once
        assert lm.scorer.stats.prefix_tree == "on" and lm.scorer.stats.tokens_skipped > 0


def test_prefix_token_falls_back_to_eos_and_follows_the_harness_rule():
    lm = tiny_causal_lm(batch_size=2)
    lm.tokenizer.bos_token = None  # a GPT-2-style tokenizer without BOS: the EOS token is the prefix
    eos = lm.tokenizer.eos_token_id
    assert lm.rules.prefix_token() == {"id": eos, "token": "</s>", "from": "eos"}
    assert lm.rules.encode_context("") == ([eos], [0])
    # a continuation that starts with the prefix token is its own context (LM Evaluation Harness 0.4.13)
    ids, _ends, continuation = lm.rules.encode_request("", "</s> Birds can fly.")
    assert ids == [eos] and continuation == lm.tokenizer(" Birds can fly.", add_special_tokens=False)["input_ids"]
    result = lm.loglikelihood([LoglikelihoodRequest("", " Birds can fly.")])[0]
    plain = plain_sequence_logprob(
        lm.model, lm.tokenizer, [eos] + lm.tokenizer(" Birds can fly.", add_special_tokens=False)["input_ids"]
    )
    assert abs(result.logprob - plain) < TOLERANCE


def test_question_choices_share_the_question():
    lm = tiny_causal_lm(batch_size=4)
    question = "Here are some examples: water is wet. Iron is a metal. Is glass not a liquid?\nA. yes\nB. no\nAnswer:"
    lm.loglikelihood([LoglikelihoodRequest(question, choice) for choice in (" A", " B")])
    stats = lm.scorer.stats
    assert stats.prefix_tree == "on" and stats.tokens_skipped >= len(lm.rules.encode_context(question)[0]) - 1


def test_blimp_decisions_equal_plain_transformers(tmp_path):
    """negkit eval on real BLiMP pairs with the tiny model: every log-probability and decision equals a plain
    transformers computation of each sentence (prefix token, then the tokens of ' ' + sentence)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    folder = save_tiny_causal(tmp_path / "model", chat_template=False)
    result = evaluate(
        f"hf:{folder}",
        ["blimp-negation"],
        EvalOptions(data=str(shared_data_path()), limit=21, out=tmp_path / "run", progress=False, bootstrap=50),
    )[0]
    model = AutoModelForCausalLM.from_pretrained(folder).eval()
    tokenizer = AutoTokenizer.from_pretrained(folder)
    prefix = tokenizer.bos_token_id
    assert result["model"]["load"]["prefix_token"]["id"] == prefix
    assert result["task"]["target_delimiter"] == " " and result["data"]["count"] == 21
    samples = [json.loads(line) for line in open(result["files"]["samples"], encoding="utf-8")]
    decisions = []
    for sample in samples:
        good, bad = (
            plain_sequence_logprob(
                model, tokenizer, [prefix] + tokenizer(" " + sample[key], add_special_tokens=False)["input_ids"]
            )
            for key in ("sentence_good", "sentence_bad")
        )
        assert abs(sample["logprob_good"] - good) < TOLERANCE and abs(sample["logprob_bad"] - bad) < TOLERANCE
        decisions.append(good >= bad)
    assert [sample["correct"] for sample in samples] == decisions
    assert result["metrics"]["overall"]["pooled_accuracy"] == pytest.approx(sum(decisions) / len(decisions))
    assert result["engine"]["prefix_tree"] == "on" and result["engine"]["prefix_tokens_reused"] > 0
