"""Generation ends at its stop string inside the decoding loop (CondaQA's 16-token answers stop at the newline),
with the answers a run to the token limit, cut afterwards, gives."""

from __future__ import annotations

import pytest
from test_prefix_tree import _prompts
from tiny_models import tiny_causal_lm
from tiny_models import tiny_seq2seq_lm as tiny_seq2seq

from negkit.models.hf_common import cut_at_stop

LIMIT = 24


def _counting(model):
    """A list that grows by one at each forward pass of ``model`` (the prompt pass, then one per new token)."""
    calls = []
    model.register_forward_pre_hook(lambda *_: calls.append(1))
    return calls


@pytest.mark.parametrize("batch_size", [1, None])
def test_causal_generation_stops_at_the_stop_string_with_the_same_answers(batch_size):
    lm = tiny_causal_lm(chat_template=False, batch_size=batch_size)
    texts = _prompts(lm)[:8]
    uncut = lm.generate(texts, LIMIT)
    stop = ("e", "@")  # both occur early in most of the tiny model's outputs
    assert sum(any(marker in text[:6] for marker in stop) for text in uncut) >= 4
    calls = _counting(lm.model)
    answers = lm.generate(texts, LIMIT, stop)
    assert answers == [cut_at_stop(text, stop) for text in uncut]  # the same answers as before
    assert any(answer != text for answer, text in zip(answers, uncut))
    if batch_size == 1:  # every generation ends at its own stop string: far fewer steps than the token limit
        full = sum(1 + LIMIT - 1 for _text in texts)
        assert len(calls) < full * 0.75
    else:  # one batch: it ends when every row has met a stop string, or at the limit
        assert len(calls) <= LIMIT
    assert lm.generate(texts[:2], LIMIT, ()) == uncut[:2]  # no stop string: the full length


def test_seq2seq_generation_stops_at_the_stop_string_with_the_same_answers():
    lm = tiny_seq2seq()
    texts = ["A dog is", "The sun is hot", "Birds can fly"]
    uncut = lm.generate(texts, LIMIT)
    stop = tuple({text[2] for text in uncut if len(text) > 3})  # a character each output has early
    answers = lm.generate(texts, LIMIT, stop)
    assert answers == [cut_at_stop(text, stop) for text in uncut]
