"""Greedy generation with shared prompt prefixes (negkit.engine.greedy) answers exactly as transformers' generate
does on each prompt, with stop strings, small waves and prompts that share nothing."""

from __future__ import annotations

import pytest
import torch
from tiny_models import tiny_causal_lm

PASSAGES = [
    "A dog is an animal and a cat is not a plant.",
    "The sun is hot and the snow is cold; a car is a vehicle.",
    "Birds can fly, fish cannot walk, and a triangle is not a circle.",
]
QUESTIONS = ["Question: Is a dog a plant?\nAnswer:", "Question: Is it cold?\nAnswer:", "Question: Can it fly?\nAnswer:"]
CONTEXTS = [f"{passage}\n{question}" for passage in PASSAGES for question in QUESTIONS] + [
    "Here are some examples: water is wet.",
    "Iron",
    "",
]


def _one_by_one(lm, contexts, max_new_tokens, stop):
    """The reference: each prompt alone through transformers' generate (no padding, no sharing)."""
    from negkit.models.hf_common import cut_at_stop, stop_criteria

    answers = []
    for text in contexts:
        ids = lm.rules.encode_context(text)[0]
        with torch.no_grad():
            output = lm.model.generate(
                input_ids=torch.tensor([ids]),
                attention_mask=torch.ones((1, len(ids)), dtype=torch.long),
                max_new_tokens=max_new_tokens,
                do_sample=False,
                pad_token_id=lm.rules.pad_id,
                stopping_criteria=stop_criteria(lm.tokenizer, stop, len(ids)),
            )
        answers.append(cut_at_stop(lm.tokenizer.decode(output[0, len(ids) :], skip_special_tokens=True), stop))
    return answers


@pytest.mark.parametrize("batch_size", [None, 2])
@pytest.mark.parametrize("stop", [(), (".", "\n")])
def test_shared_prefix_generation_equals_plain_greedy_decoding(batch_size, stop):
    lm = tiny_causal_lm(chat_template=False, batch_size=batch_size)
    answers = lm.generate(CONTEXTS, max_new_tokens=6, stop=stop)
    assert lm.load_info["generation"] == "shared prefixes"
    assert answers == _one_by_one(lm, CONTEXTS, 6, stop)
    assert answers == lm._generate_plain([lm.rules.encode_context(text)[0] for text in CONTEXTS], 6, stop)
    stats = lm.generator.stats
    assert stats.prompts == len(CONTEXTS) and stats.passes >= 2
    # a passage's three questions share it (a wave of two rows runs it once per part of its group)
    assert stats.tokens_skipped > (stats.prompt_tokens / 3 if batch_size is None else 0)
    assert len(set(answers)) > 3


def test_progress_counts_every_prompt_once_and_waves_respect_the_row_limit():
    lm = tiny_causal_lm(chat_template=False, batch_size=4)
    seen: list[int] = []
    lm.progress = seen.append
    lm.generate(CONTEXTS, max_new_tokens=3)
    assert sum(seen) == len(CONTEXTS) and max(seen) <= 4 and lm.generator.stats.waves >= 3


def test_models_it_cannot_serve_use_transformers_generate():
    lm = tiny_causal_lm(chat_template=False)
    lm.model.config.sliding_window = 16  # a window shorter than the prompts: their waves go to transformers' generate
    answers = lm.generate(CONTEXTS[:3], max_new_tokens=4)
    assert lm.generator.stats.fallback_prompts == 3 and lm.generator.stats.waves == 0
    assert answers == _one_by_one(lm, CONTEXTS[:3], 4, ())
    off = tiny_causal_lm(chat_template=False, prefix_reuse=False)
    assert off.generate(CONTEXTS[:3], max_new_tokens=4) == _one_by_one(off, CONTEXTS[:3], 4, ())
    assert off.load_info["generation"] == "transformers generate (prefix_reuse is off)"


def test_groups_and_families_follow_shared_starts():
    from negkit.engine.greedy import plan_groups, plan_tree, plan_waves

    base = list(range(100, 130))
    prompts = [base + [1, 2], base + [3], base[:5] + [9, 9, 9], base + [1, 4, 5], [7]]
    groups = plan_groups(prompts)
    assert sorted(sorted(group.members) for group in groups) == [[0, 1, 3], [2], [4]]
    shared = {tuple(sorted(group.members)): group.shared for group in groups}
    assert shared[(0, 1, 3)] == 30 and shared[(2,)] == 7 and shared[(4,)] == 0
    # two passages that share their first 30 tokens, each asked two questions: one family, two groups
    edits = [base + [1] * 20 + [5, 6], base + [1] * 20 + [7], base + [2] * 20 + [5], base + [2] * 20 + [8, 8]]
    [[head, *family]] = plan_tree(edits)
    assert head.shared == 30 and [(group.shared, sorted(group.members)) for group in family] == [
        (50, [0, 1]),
        (50, [2, 3]),
    ]
    [nodes] = plan_waves(edits, max_rows=8)
    assert [(node.level, node.start, node.end) for node in nodes if node.prompt < 0] == [
        (0, 0, 30),
        (1, 30, 50),
        (1, 30, 50),
    ]
    assert sorted((node.prompt, node.start) for node in nodes if node.prompt >= 0) == [
        (0, 50),
        (1, 50),
        (2, 50),
        (3, 50),
    ]
    assert [len([node for node in wave if node.prompt >= 0]) for wave in plan_waves(edits, max_rows=3)] == [3, 1]


def test_families_are_shared_in_generation():
    lm = tiny_causal_lm(chat_template=False, batch_size=None)
    passage = "Here are some examples: water is wet. Iron is a metal. Glass is not a liquid."
    contexts = [
        f"{passage} {edit}\n{question}" for edit in ("A dog is an animal.", "The sun is hot.") for question in QUESTIONS
    ]
    answers = lm.generate(contexts, max_new_tokens=5, stop=("\n",))
    assert answers == _one_by_one(lm, contexts, 5, ("\n",))
    stats = lm.generator.stats  # the trie generator: the passage's tokens and each edit's run once
    assert stats.tokens_skipped > stats.prompt_tokens / 2 and stats.tokens_padded == 0
