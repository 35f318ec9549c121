"""Encoder-decoder backend: one decoder step from the start token, final EOS dropped."""

from __future__ import annotations

import torch
from tiny_models import synthetic_truth_items, tiny_seq2seq_lm

from negkit.benchmarks.tind.task import TruthTask
from negkit.models.base import LoglikelihoodRequest


def test_one_decoder_step_matches_plain_pass_and_drops_eos():
    lm = tiny_seq2seq_lm()
    eos = lm.tokenizer.eos_token_id
    contexts = [TruthTask().prompt(item.sentence, lm) for item in synthetic_truth_items(groups_per_pattern=1)[:10]]
    assert lm.tokenizer(contexts[0])["input_ids"][-1] == eos
    answers = lm.next_token_logprobs(contexts, ["True", "False"])
    for context, answer in zip(contexts, answers):
        ids = lm.tokenizer(context)["input_ids"][:-1]  # the protocol drops the final EOS
        with torch.no_grad():
            logits = lm.model(input_ids=torch.tensor([ids]), decoder_input_ids=torch.tensor([[0]])).logits[0, 0]
        logprobs = torch.log_softmax(logits, dim=-1)
        for candidate in ("True", "False"):
            token = lm.tokenizer(candidate, add_special_tokens=False)["input_ids"][0]
            assert abs(answer[candidate] - float(logprobs[token])) < 1e-4


def test_fewshot_prompt_has_no_trailing_space_for_encoder_decoder():
    lm = tiny_seq2seq_lm()
    task = TruthTask(fewshot=True)
    task.examples = synthetic_truth_items(groups_per_pattern=1)[:4]
    assert not task.prompt("A dog is an animal.", lm).endswith(" ")


def test_loglikelihood_teacher_forced_over_the_continuation():
    lm = tiny_seq2seq_lm()
    result = lm.loglikelihood([LoglikelihoodRequest("A dog is an animal.", "True False")])[0]
    context = lm.tokenizer("A dog is an animal.")["input_ids"][:-1]
    target = lm.tokenizer("True False", add_special_tokens=False)["input_ids"]
    with torch.no_grad():
        logits = lm.model(
            input_ids=torch.tensor([context]), decoder_input_ids=torch.tensor([[0, *target[:-1]]])
        ).logits[0]
    expected = sum(float(torch.log_softmax(logits[k], -1)[t]) for k, t in enumerate(target))
    assert result.n_tokens == len(target) and abs(result.logprob - expected) < 1e-4
    assert len(lm.generate(["A dog is"], max_new_tokens=3)) == 1
