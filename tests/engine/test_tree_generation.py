"""Greedy generation along the prompts' token trie (negkit.engine.greedy_tree) gives exactly the answers of a plain
greedy decode of each prompt alone: several questions per shared prefix, prompts that are prefixes of others or
repeat, chunks and waves cut anywhere, rows that finish at different steps, an empty answer."""

from __future__ import annotations

import pytest
import torch
from tiny_models import tiny_causal_lm, tiny_llama

from negkit.engine.greedy_tree import (
    CHUNK_TOKENS,
    CHUNK_TOKENS_ONE_THREAD,
    TreeGenerator,
    default_chunk_tokens,
    plan_trie_waves,
)

VOCAB = 64
EOS = 2


def _plain_greedy(model, ids, max_new_tokens, stop_after, eos_ids):
    """The reference: full forward passes over the prompt and what it generated so far (no cache, no batch)."""
    generated: list[int] = []
    while True:
        with torch.no_grad():
            logits = model(input_ids=torch.tensor([list(ids) + generated])).logits[0, -1]
        generated.append(int(logits.argmax()))
        if generated[-1] in eos_ids or len(generated) >= max_new_tokens or len(generated) >= stop_after:
            return generated


def _prompts() -> list[list[int]]:
    passage = [5 + (7 * k) % 50 for k in range(23)]
    edit = passage[:11] + [60, 61] + passage[13:]
    questions = [[40, 41, 9], [40, 42], [43, 44, 45, 46, 9], [47]]
    prompts = [p + q for p in (passage, edit) for q in questions]
    prompts += [passage[:7], passage[:7] + [33], [3], [3], [12, 13, 14, 15, 16, 17, 18, 19, 20]]
    return prompts


def test_trie_waves_follow_shared_starts():
    prompts = [[1, 2, 3], [1, 2, 4, 5], [1, 2], [9], [1, 2, 4, 5]]
    [wave] = plan_trie_waves(prompts, max_rows=8)
    # token order: [1, 2], [1, 2, 3], [1, 2, 4, 5] (twice), [9]
    assert wave.prompts == [2, 0, 1, 4, 3]
    assert wave.tokens == [1, 2, 3, 4, 5, 9]
    assert wave.depth == [0, 1, 2, 2, 3, 0]
    assert wave.parent == [-1, 0, 1, 1, 3, -1]
    assert wave.end == [5, 5, 3, 5, 5, 6]
    assert wave.last == [1, 2, 4, 4, 5]
    assert wave.ancestors(4) == [0, 1, 3] and wave.ancestors(5) == []
    two = plan_trie_waves(prompts, max_rows=2)
    assert [wave.prompts for wave in two] == [[2, 0], [1, 4], [3]]
    assert [len(wave.tokens) for wave in two] == [3, 4, 1]  # a wave starts its trie afresh
    small = plan_trie_waves(prompts, max_rows=8, wave_tokens=4)
    assert [wave.prompts for wave in small] == [[2, 0], [1, 4], [3]]
    with pytest.raises(ValueError, match="prompt 1 has no tokens"):
        plan_trie_waves([[1], []], max_rows=2)


@pytest.mark.parametrize(("max_rows", "chunk_tokens", "wave_tokens"), [(32, 256, 4096), (3, 5, 4096), (32, 4, 30)])
@pytest.mark.parametrize("max_new_tokens", [1, 7])
def test_tree_generation_equals_plain_greedy(max_rows, chunk_tokens, wave_tokens, max_new_tokens):
    model = tiny_llama(VOCAB)
    prompts = _prompts()
    stop_after = [1 + (index * 3) % 6 for index in range(len(prompts))]  # rows finish at different steps
    generator = TreeGenerator(model, [EOS], max_rows=max_rows, chunk_tokens=chunk_tokens, wave_tokens=wave_tokens)
    answers = generator.generate(prompts, max_new_tokens, lambda index, ids: len(ids) >= stop_after[index])
    expected = [_plain_greedy(model, ids, max_new_tokens, stop_after[i], {EOS}) for i, ids in enumerate(prompts)]
    assert answers == expected
    assert answers[10] == answers[11][: len(answers[10])]  # the same prompt twice (stopped at other lengths)
    stats = generator.stats
    assert stats.prompts == len(prompts) and stats.tokens_padded == 0
    if max_rows == 32 and wave_tokens == 4096:
        # each prompt token that several prompts share runs once
        distinct = {tuple(ids[: k + 1]) for ids in prompts for k in range(len(ids))}
        assert stats.prompt_tokens - stats.tokens_skipped == len(distinct)


def test_an_end_of_sequence_token_ends_a_row_and_counts_as_generated():
    model = tiny_llama(VOCAB)
    prompts = _prompts()
    first = [_plain_greedy(model, ids, 1, 1, set())[0] for ids in prompts]
    eos = first[0]  # the first prompt's first token ends it at once: it gives an empty answer
    generator = TreeGenerator(model, [eos], chunk_tokens=7)
    answers = generator.generate(prompts, 6, lambda _index, _ids: False)
    assert answers == [_plain_greedy(model, ids, 6, 6, {eos}) for ids in prompts]
    assert answers[0] == [eos] and len({len(answer) for answer in answers}) > 1
    assert generator.generate(prompts, 0, lambda _index, _ids: False) == [[] for _ in prompts]


def test_stop_strings_through_the_model_equal_transformers_generate_one_by_one():
    from test_shared_generation import CONTEXTS, QUESTIONS, _one_by_one

    lm = tiny_causal_lm(chat_template=False, batch_size=None)
    contexts = [*CONTEXTS, *(f"Iron is a metal.\n{question}" for question in QUESTIONS)]
    whole = lm.generate(contexts, max_new_tokens=5)
    first = next(answer[0] for answer in whole if answer)  # a stop string at the start: an empty answer
    for stop in [(), ("\n",), (" ", "a"), (first,)]:
        answers = lm.generate(contexts, max_new_tokens=5, stop=stop)
        assert lm.load_info["generation"] == "shared prefixes"
        assert answers == _one_by_one(lm, contexts, 5, stop)
    assert "" in answers
    assert isinstance(lm.generator, TreeGenerator)


def test_a_model_that_ignores_position_ids_fails_the_check_and_generates_plainly():
    from test_shared_generation import CONTEXTS, _one_by_one

    lm = tiny_causal_lm(chat_template=False, batch_size=None)
    forward = lm.model.forward

    def ignoring_positions(input_ids=None, position_ids=None, **kwargs):  # positions from the columns instead
        return forward(input_ids=input_ids, **kwargs)

    lm.model.forward = ignoring_positions
    answers = lm.generate(CONTEXTS, max_new_tokens=4, stop=("\n",))
    assert lm.load_info["generation"].startswith("transformers generate (the trie's next-token distribution differs")
    assert lm.generator.unsupported() == lm.generator.disabled and not lm.generator.verified
    lm.model.forward = forward
    assert answers == _one_by_one(lm, CONTEXTS, 4, ("\n",))
    lm.generate(CONTEXTS[:2], max_new_tokens=2)  # the trie stays off for this model
    assert lm.load_info["generation"].startswith("transformers generate (the trie's")


def test_the_first_wave_is_checked_once():
    lm = tiny_causal_lm(chat_template=False, batch_size=2)
    lm.generate(["A dog is an animal.\nQ: Is it?", "A dog is an animal.\nQ: Why?", "Iron"], max_new_tokens=2)
    assert lm.generator.verified and lm.generator.disabled is None
    assert lm.load_info["generation"] == "shared prefixes"


def test_a_sliding_window_makes_waves_narrower_than_it():
    from test_shared_generation import CONTEXTS, _one_by_one

    lm = tiny_causal_lm(chat_template=False, batch_size=None)
    lm.model.config.sliding_window = 128  # waves of at most 63 trie tokens (tests/engine/test_shared_generation.py
    answers = lm.generate(CONTEXTS, max_new_tokens=4)  # has prompts longer than a window: they fall back)
    assert answers == _one_by_one(lm, CONTEXTS, 4, ())
    stats = lm.generator.stats
    assert stats.waves > 2 and stats.fallback_prompts == 0 and stats.nodes <= 63 * stats.waves
    assert stats.tokens_skipped > 0  # a passage's questions still share it within a wave


def test_default_chunk_follows_the_device_and_threads():
    """One CPU thread takes the small chunk (measured fastest there); more threads and other devices the large."""
    assert default_chunk_tokens("cpu", 1) == CHUNK_TOKENS_ONE_THREAD < CHUNK_TOKENS
    assert default_chunk_tokens(torch.device("cpu"), 2) == CHUNK_TOKENS
    assert default_chunk_tokens("cuda:0", 1) == CHUNK_TOKENS
