"""The prefix tree: the trie and row plan (pure logic), and exact scoring along it against plain passes."""

from __future__ import annotations

import random

import pytest
import torch
from tiny_models import model_device, plain_next_token_logprobs, tiny_causal_lm

from negkit.engine.prefix_tree import Row, build_trie, plan_rows
from negkit.models.base import LoglikelihoodRequest

TOLERANCE = 1e-4


def _next_token_plan(sequences, row_tokens):
    ends = [len(sequence) - 1 for sequence in sequences]
    plan = plan_rows(sequences, ends, ends, row_tokens)
    plan.check(sequences, ends, ends)
    return plan


def _distinct_prefixes(sequences):
    return len({tuple(sequence[:length]) for sequence in sequences for length in range(1, len(sequence) + 1)})


def _random_tree_sequences(rng, count):
    """Sequences that share prefixes at several depths (and some that are prefixes of others, or equal)."""
    sequences = [[rng.randrange(3)]]
    while len(sequences) < count:
        base = rng.choice(sequences)
        cut = rng.randrange(len(base) + 1)
        sequences.append(base[:cut] + [rng.randrange(4) for _ in range(rng.randrange(0 if cut else 1, 6))])
    return sequences


def test_trie_splits_runs_where_prompts_part():
    sequences = [[1, 2, 3], [1, 2, 4], [1, 5], [1, 2, 3], [1, 2]]
    root, order = build_trie(sequences)
    assert order == [4, 0, 3, 1, 2]
    (top,) = root.children
    assert (top.start, top.end) == (0, 1)
    two, five = top.children
    assert (two.start, two.end, two.prompts) == (1, 2, [4])  # [1, 2] ends where [1, 2, 3] and [1, 2, 4] part
    assert [(child.start, child.end, child.prompts) for child in two.children] == [(2, 3, [0, 3]), (2, 3, [1])]
    assert (five.start, five.end, five.prompts) == (1, 2, [2])


def test_one_row_runs_every_distinct_prefix_once():
    sequences = [[9, 1, 2, 3], [9, 1, 2, 4, 5], [9, 1, 6], [9, 7]]
    plan = _next_token_plan(sequences, row_tokens=100)
    assert not plan.anchors and len(plan.rows) == 1
    assert plan.tokens_run == _distinct_prefixes(sequences) == 8
    (row,) = plan.rows
    assert row.tokens == [9, 1, 2, 3, 4, 5, 6, 7] and row.positions == [0, 1, 2, 3, 3, 4, 2, 1]
    assert row.ancestor_ends() == [8, 7, 6, 4, 6, 6, 7, 8]
    assert dict(row.scored) == {0: [3], 1: [5], 2: [6], 3: [7]}


def test_subtrees_larger_than_a_row_get_anchors_that_end_before_every_scored_position():
    template = [50, 51, 52, 53, 54, 55]
    sequences = [template + [subject, 60, 61, ending] for subject in (1, 2, 3) for ending in (70, 71, 72, 73)]
    plan = _next_token_plan(sequences, row_tokens=6)
    # the template runs once (its last token too: no prompt is scored inside it); each subject's shared
    # words run once beneath it
    assert plan.anchors[0].parent == -1 and (plan.anchors[0].start, plan.anchors[0].end) == (0, 6)
    assert [(anchor.parent, anchor.start, anchor.end) for anchor in plan.anchors[1:]] == [(0, 6, 9)] * 3
    assert plan.tokens_run == _distinct_prefixes(sequences) == 6 + 3 * 3 + 12
    producers = [row.produces for row in plan.rows]
    for number, row in enumerate(plan.rows):  # an anchor's row comes before the rows that need it
        assert row.anchor < 0 or producers.index(row.anchor) < number
    # a prompt that ends inside a long shared run: the anchor stops before its scored position
    short = plan_rows([template + [1], template], [6, 5], [6, 5], row_tokens=3)
    short.check([template + [1], template], [6, 5], [6, 5])
    assert all(anchor.end <= 5 for anchor in short.anchors)


@pytest.mark.parametrize("seed", range(12))
def test_random_tries_plan_every_prompt_with_its_own_ids(seed):
    rng = random.Random(seed)
    sequences = _random_tree_sequences(rng, rng.randrange(1, 60))
    row_tokens = rng.choice([1, 2, 3, 5, 8, 16, 1000])
    # next-token prompts, and continuation-style prompts scored over a range
    firsts = [rng.randrange(len(sequence)) for sequence in sequences]
    lasts = [rng.randrange(first, len(sequence)) for first, sequence in zip(firsts, sequences)]
    for first, last in (([len(s) - 1 for s in sequences], [len(s) - 1 for s in sequences]), (firsts, lasts)):
        plan = plan_rows(sequences, first, last, row_tokens)
        plan.check(sequences, first, last)
        scored = sorted(prompt for row in plan.rows for prompt, _columns in row.scored)
        assert scored == list(range(len(sequences)))  # every prompt scored exactly once
        for row in plan.rows:  # a row holds at most row_tokens tokens, unless one prompt alone needs more
            assert len(row.tokens) <= row_tokens or len(row.scored) <= 1
        needed = {tuple(s[: k + 1]) for s, end in zip(sequences, last) for k in range(end + 1)}
        assert plan.tokens_run >= len(needed)
        if row_tokens == 1000:
            assert plan.tokens_run == len(needed)


def test_the_check_catches_a_plan_that_would_run_other_ids():
    from negkit.engine.prefix_tree import PlanError

    sequences = [[9, 1, 2, 3], [9, 1, 2, 4, 5], [9, 1, 6], [9, 7]]
    for damage in ("token", "position", "column"):
        plan = _next_token_plan(sequences, row_tokens=100)
        row = plan.rows[0]
        if damage == "token":
            row.tokens[2] = 8
        elif damage == "position":
            row.positions[4] = 5
        else:
            row.scored[0] = (0, [2])
        with pytest.raises(PlanError):
            plan.check(sequences, [3, 4, 2, 1], [3, 4, 2, 1])


def test_a_cached_prefix_is_anchor_zero_and_no_row_runs_it():
    sequences = [[9, 1, 2, 3], [9, 1, 2, 4, 5], [9, 1, 6]]
    ends = [3, 4, 2]
    plan = plan_rows(sequences, ends, ends, row_tokens=100, cached=2)
    plan.check(sequences, ends, ends)
    assert plan.cached == 2 and (plan.anchors[0].start, plan.anchors[0].end) == (0, 2)
    assert all(row.produces != 0 and row.anchor == 0 for row in plan.rows)
    assert plan.tokens_run == _distinct_prefixes(sequences) - 2
    with pytest.raises(ValueError, match="cached prefix"):  # past a scored position
        plan_rows(sequences, ends, ends, cached=3)
    with pytest.raises(ValueError, match="cached prefix"):  # not shared: [9] and [8]
        plan_rows([[8, 1, 2, 3], *sequences[1:]], ends, ends, cached=1)


def test_lanes_take_short_rows_beside_long_ones_and_each_anchor_once():
    from negkit.engine.prefix_tree import Anchor, TreePlan, pack_lanes

    sizes_and_anchors = [(6, -1), (2, -1), (5, 0), (3, 0), (4, 1), (7, -1), (1, 1)]
    rows = [Row(anchor=anchor, tokens=[1] * size, positions=list(range(size))) for size, anchor in sizes_and_anchors]
    plan = TreePlan([Anchor(-1, 0, 3), Anchor(-1, 0, 2)], rows)
    lanes = pack_lanes(plan, range(len(rows)), width=8, lanes=2, lookahead=10)
    assert [lane.rows for lane in lanes] == [[0, 1], [2, 3]]  # rows 4, 5 and 6 do not fit anywhere
    assert [lane.starts for lane in lanes] == [[0, 6], [0, 5]] and [lane.fill for lane in lanes] == [8, 8]
    assert [lane.anchors for lane in lanes] == [[], [0]]
    lanes = pack_lanes(plan, [4, 6, 2, 3], width=8, lanes=2, lookahead=10)
    assert [(lane.rows, lane.anchors) for lane in lanes] == [([4, 6, 3], [1, 0]), ([2], [0])]
    # a row longer than the width runs alone when it comes first; it is passed over otherwise
    assert [lane.rows for lane in pack_lanes(plan, [5, 0, 1], width=4, lanes=2, lookahead=1)] == [[5], [1]]
    assert [lane.rows for lane in pack_lanes(plan, [1, 5, 0, 3], width=4, lanes=1, lookahead=1)] == [[1]]


def test_plan_refuses_scored_positions_outside_the_prompt():
    with pytest.raises(ValueError):
        plan_rows([[1, 2]], [2], [2])
    with pytest.raises(ValueError):
        plan_rows([[1, 2, 3]], [2], [1])


def test_row_ancestors_follow_depth_first_order():
    row = Row(anchor=-1, tokens=[1, 2, 3, 4, 5], positions=[0, 1, 2, 1, 2])
    assert row.ancestor_ends() == [5, 3, 3, 5, 5]


def _prompts(lm):
    """Prompts with shared prefixes at several depths, of different lengths, one a prefix of another."""
    subjects = ["A dog", "A dog and a cat", "The sun", "Birds", "A rose"]
    tails = [" is an animal.", " is not an animal.", " is never hot.", " can fly.", " is", " is a flower, and hot."]
    texts = [f"Is the following statement True or False? {s}{t}" for s in subjects for t in tails]
    texts += ["Is the following statement True or False?", "Here are some examples: water is wet."]
    return texts


@pytest.mark.parametrize("attention", ["sdpa", "eager"])
@pytest.mark.parametrize("row_tokens", [12, 48, 256])
def test_tree_matches_plain_forward_passes_at_every_batch_size(attention, row_tokens):
    texts = _prompts(None)
    answers = {}
    for batch_size in (1, 7, None):
        lm = tiny_causal_lm(chat_template=False, batch_size=batch_size)
        lm.model.set_attn_implementation(attention)
        lm.scorer.tree.row_tokens = row_tokens
        answers[batch_size] = lm.next_token_logprobs(texts, ["True", "False"])
        assert lm.scorer.stats.prefix_tree == "on" and lm.scorer.tree.verified
        assert lm.scorer.stats.tokens_skipped > lm.scorer.stats.tokens_total / 3
        if row_tokens == 12:  # small rows: anchors carry the shared prefixes, and are freed as they finish
            assert lm.scorer.stats.batches_with_prefix > 0
            assert lm.scorer.tree.peak_anchors >= 1
    for text, *per_size in zip(texts, *answers.values()):
        reference = plain_next_token_logprobs(lm, text, ["True", "False"])
        for answer in per_size:
            assert abs(answer["True"] - reference["True"]) < TOLERANCE
            assert abs(answer["False"] - reference["False"]) < TOLERANCE
    assert len({round(answer["True"], 5) for answer in answers[None]}) > 10


def test_continuations_along_the_tree_match_plain_passes():
    lm = tiny_causal_lm(chat_template=False, batch_size=None)
    lm.scorer.tree.row_tokens = 16
    texts = _prompts(lm)
    requests = [
        LoglikelihoodRequest(text, ending) for text, ending in zip(texts, [" True", " False is it", " no"] * 20)
    ]
    results = lm.loglikelihood(requests)
    assert lm.scorer.stats.prefix_tree == "on"
    for request, result in zip(requests, results):
        context = lm.rules.encode(request.context, special=True)
        continuation = lm.rules.encode(request.continuation, special=False)
        with torch.no_grad():
            ids = torch.tensor([context + continuation], device=model_device(lm.model))
            logprobs = torch.log_softmax(lm.model(input_ids=ids).logits[0], dim=-1).cpu()
        expected = sum(float(logprobs[len(context) - 1 + k, token]) for k, token in enumerate(continuation))
        greedy = all(int(logprobs[len(context) - 1 + k].argmax()) == token for k, token in enumerate(continuation))
        assert abs(result.logprob - expected) < TOLERANCE
        assert (result.is_greedy, result.n_tokens) == (greedy, len(continuation))


def test_only_scored_positions_reach_the_lm_head_and_progress_counts_each_prompt_once(monkeypatch):
    import negkit.engine.tree_scorer as tree_scorer

    checks = []
    distance = tree_scorer.tree_distance
    monkeypatch.setattr(tree_scorer, "tree_distance", lambda *args: checks.append(1) or distance(*args))
    lm = tiny_causal_lm(chat_template=False, batch_size=None)
    lm.scorer.tree.row_tokens = 16
    texts = _prompts(lm)
    head_rows = []
    handle = lm.model.lm_head.register_forward_hook(lambda module, args, output: head_rows.append(output.shape[-2]))
    done = []
    lm.progress = done.append
    try:
        lm.next_token_logprobs(texts, ["True"])
    finally:
        handle.remove()
    # one row per prompt, and one per plain pass of the checks (one per feature at most, several here)
    assert sum(head_rows) == len(texts) + len(checks) and 1 < len(checks) <= 5
    assert sum(done) == len(texts)


def test_a_template_anchor_is_kept_for_the_next_call():
    texts = _prompts(None)[:24]
    fresh = tiny_causal_lm(chat_template=False, batch_size=None)
    fresh.scorer.tree.row_tokens = 16
    fresh.next_token_logprobs(texts[12:], ["True"])
    warm = tiny_causal_lm(chat_template=False, batch_size=None)
    warm.scorer.tree.row_tokens = 16
    warm.next_token_logprobs(texts[:12], ["True"])
    before = warm.scorer.stats.tokens_total - warm.scorer.stats.tokens_skipped
    warm.next_token_logprobs(texts[12:], ["True"])
    ran_warm = warm.scorer.stats.tokens_total - warm.scorer.stats.tokens_skipped - before
    ran_fresh = fresh.scorer.stats.tokens_total - fresh.scorer.stats.tokens_skipped
    template = len(warm.rules.encode_context("Is the following statement True or False?")[0])
    assert ran_fresh - ran_warm >= template - 1


#: How far 16-bit answers may be from a plain pass in the same dtype (bfloat16 noise is about 0.03 here; a model
#: that ignores position ids is 0.5 off).
HALF_TOLERANCE = {torch.float32: TOLERANCE, torch.bfloat16: 0.05, torch.float16: 0.01}


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
def test_a_model_that_fails_the_check_falls_back_to_batch_prefixes(monkeypatch, dtype):
    from negkit.engine.tree_scorer import TreeScorer

    lm = tiny_causal_lm(chat_template=False, batch_size=4)
    lm.model.to(dtype)
    texts = _prompts(lm)
    original = TreeScorer._run

    def wrong_positions(self, lanes, plan, caches, prompts):  # as a model that ignores position ids would compute
        for lane in lanes:
            for index in lane.rows:
                plan.rows[index].positions = list(range(len(plan.rows[index].positions)))
        return original(self, lanes, plan, caches, prompts)

    monkeypatch.setattr(TreeScorer, "_run", wrong_positions)
    done = []
    lm.progress = done.append
    answers = lm.next_token_logprobs(texts, ["True"])
    assert lm.scorer.stats.prefix_tree.startswith("off: the prefix tree differs from a plain forward pass")
    assert lm.scorer.tree.disabled and sum(done) == len(texts)  # nothing was reported twice
    if dtype != torch.float32:  # the 16-bit tolerance comes from the noise measured against a float32 pass
        assert "noise measured" in lm.scorer.tree.disabled and lm.model.dtype == dtype
    for text, answer in zip(texts, answers):
        assert abs(answer["True"] - plain_next_token_logprobs(lm, text, ["True"])["True"]) < HALF_TOLERANCE[dtype]
    lm.next_token_logprobs(texts[:3], ["True"])  # stays off for this model
    assert lm.scorer.stats.prefix_tree.startswith("off")


def test_models_without_custom_masks_or_with_short_sliding_windows_use_batch_prefixes():
    lm = tiny_causal_lm(chat_template=False, batch_size=4)
    lm.model.config.sliding_window = 16
    texts = _prompts(lm)
    answers = lm.next_token_logprobs(texts, ["True"])
    assert lm.scorer.stats.prefix_tree == "off: prompts reach the sliding window (16 tokens)"
    assert lm.scorer.stats.batches_with_prefix > 0
    for text, answer in zip(texts, answers):
        assert abs(answer["True"] - plain_next_token_logprobs(lm, text, ["True"])["True"]) < TOLERANCE
    lm.model.config.sliding_window = None
    lm.model.config._attn_implementation = "flash_attention_2"
    assert "takes no custom masks" in lm.scorer.tree.unsupported(10)
    off = tiny_causal_lm(chat_template=False, batch_size=4, prefix_tree=False)
    assert off.scorer.tree is None and off.load_info["prefix_tree"] is False


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_fast_mode_16_bit_runs_along_the_tree(dtype):
    lm = tiny_causal_lm(chat_template=False, batch_size=None)
    lm.model.to(dtype)
    lm.scorer.tree.row_tokens = 16
    texts = _prompts(lm)
    answers = lm.next_token_logprobs(texts, ["True", "False"])
    assert lm.scorer.stats.prefix_tree == "on"  # ordinary 16-bit noise stays within the measured tolerance
    checks = lm.scorer.tree.tolerances
    assert checks and all(check["from"].startswith("8 x the") and "measured" in check["from"] for check in checks)
    for text, answer in zip(texts, answers):
        reference = plain_next_token_logprobs(lm, text, ["True", "False"])
        assert abs(answer["True"] - reference["True"]) < HALF_TOLERANCE[dtype]


def test_16_bit_tolerance_is_a_multiple_of_the_measured_noise_and_leaves_the_model_as_it_was():
    from negkit.engine.causal import EncodedPrompt
    from negkit.engine.tree_check import CHECK_TOLERANCE, NOISE_FACTOR, measured_noise, tolerance_for

    lm = tiny_causal_lm(chat_template=False, batch_size=None)
    ids = tuple(lm.rules.encode_context(_prompts(lm)[0])[0])
    prompt = EncodedPrompt("", ids, (), len(ids), len(ids) - 1, len(ids) - 1)
    assert tolerance_for(lm.model, prompt) == (CHECK_TOLERANCE[torch.float32], "float32")
    lm.model.to(torch.bfloat16)
    rotary = lm.model.model.rotary_emb
    rotary.inv_freq = rotary.inv_freq.float()  # a tensor kept in float32
    weights = {name: tensor.clone() for name, tensor in [*lm.model.named_parameters(), *lm.model.named_buffers()]}
    noise, how = measured_noise(lm.model, prompt)
    assert how == "measured" and 1e-4 < noise[0] < 0.02 and 1e-3 < noise[1] < 0.2
    (variation, logprob), source = tolerance_for(lm.model, prompt)
    assert (variation, logprob) == pytest.approx((NOISE_FACTOR * noise[0], NOISE_FACTOR * noise[1]))
    assert "bfloat16 noise measured" in source
    # every tensor back in its own dtype, bit for bit
    for name, tensor in [*lm.model.named_parameters(), *lm.model.named_buffers()]:
        assert tensor.dtype == weights[name].dtype and torch.equal(tensor, weights[name])
    lm.model.is_quantized = True  # weights that cannot be cast: the noise is estimated from the dtype's epsilon
    noise, how = measured_noise(lm.model, prompt)
    assert noise == (torch.finfo(torch.bfloat16).eps / 2, 4 * torch.finfo(torch.bfloat16).eps) and "estimated" in how


def _tiny_model_of(kind: str, lm):
    """A tiny model of another family (random weights) in ``lm``'s place; ``kind``: its config class."""
    import transformers

    common = dict(vocab_size=len(lm.rules.tokenizer), bos_token_id=1, eos_token_id=2, pad_token_id=0)
    small = dict(
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=64,
        max_position_embeddings=512,
        **common,
    )
    grouped = dict(small, num_key_value_heads=2)
    configs = {
        "gpt2": lambda: transformers.GPT2Config(n_embd=32, n_layer=2, n_head=4, n_positions=512, **common),
        "opt": lambda: transformers.OPTConfig(
            hidden_size=32,
            num_hidden_layers=2,
            ffn_dim=64,
            num_attention_heads=4,
            word_embed_proj_dim=32,
            max_position_embeddings=512,
            **common,
        ),
        "gpt_neox": lambda: transformers.GPTNeoXConfig(**small),
        "falcon": lambda: transformers.FalconConfig(
            hidden_size=32, num_hidden_layers=2, num_attention_heads=4, **common
        ),
        "phi3": lambda: transformers.Phi3Config(**grouped),
        "qwen2": lambda: transformers.Qwen2Config(**grouped),
        "gemma2": lambda: transformers.Gemma2Config(**grouped, head_dim=8, sliding_window=4096),
        "gemma3": lambda: transformers.Gemma3TextConfig(**grouped, head_dim=8, sliding_window=4096),
        "gptj": lambda: transformers.GPTJConfig(
            n_embd=32, n_layer=2, n_head=4, rotary_dim=4, n_positions=512, **common
        ),
        "bloom": lambda: transformers.BloomConfig(hidden_size=32, n_layer=2, n_head=4, **common),
        "falcon-alibi": lambda: transformers.FalconConfig(
            hidden_size=32, num_hidden_layers=2, num_attention_heads=4, alibi=True, **common
        ),
        "mpt": lambda: transformers.MptConfig(d_model=32, n_layers=2, n_heads=4, max_seq_len=512, **common),
    }
    torch.manual_seed(0)
    model = transformers.AutoModelForCausalLM.from_config(configs[kind](), attn_implementation="eager").eval()
    with torch.no_grad():
        model.get_output_embeddings().weight.mul_(20)
    return model.to(model_device(lm.model))  # beside the model it replaces (the tests' device)


@pytest.mark.parametrize("kind", ["gpt2", "opt", "gpt_neox", "falcon", "phi3", "qwen2", "gemma2", "gemma3", "gptj"])
def test_other_model_families_run_along_the_tree_with_plain_answers(kind):
    from negkit.engine.causal import CausalScorer

    lm = tiny_causal_lm(chat_template=False, batch_size=None)
    lm.model = model = _tiny_model_of(kind, lm)
    lm.scorer = CausalScorer(model, lm.scorer.batcher, lm.scorer.prefix_checker, pad_id=lm.rules.pad_id, row_tokens=16)
    texts = _prompts(lm)
    answers = lm.next_token_logprobs(texts, ["True", "False"])
    assert lm.scorer.stats.prefix_tree == "on" and lm.scorer.stats.tokens_skipped > 0
    for text, answer in zip(texts, answers):
        assert abs(answer["True"] - plain_next_token_logprobs(lm, text, ["True"])["True"]) < TOLERANCE


@pytest.mark.parametrize("kind", ["bloom", "falcon-alibi", "mpt-with-position-ids"])
def test_alibi_models_fall_back_to_batch_prefixes_with_plain_answers(kind):
    """ALiBi models: Bloom and MPT take no position ids (the tree is off from the start); Falcon with ALiBi
    fails on a 4D mask (the tree turns itself off); an MPT that accepts position ids and ignores them (its
    biases follow the columns) is caught by the check against a plain pass."""
    from negkit.engine.causal import CausalScorer

    lm = tiny_causal_lm(chat_template=False, batch_size=None)
    model = _tiny_model_of(kind.replace("-with-position-ids", ""), lm)
    if kind == "mpt-with-position-ids":
        forward = model.forward

        def accepting(input_ids=None, position_ids=None, **kwargs):
            return forward(input_ids=input_ids, **kwargs)

        model.forward = accepting
    lm.model = model
    lm.scorer = CausalScorer(model, lm.scorer.batcher, lm.scorer.prefix_checker, pad_id=lm.rules.pad_id, row_tokens=16)
    texts = _prompts(lm)
    done = []
    lm.progress = done.append
    answers = lm.next_token_logprobs(texts, ["True", "False"])
    expected = {
        "bloom": "off: the model takes no position ids",
        "falcon-alibi": "off: the model fails on the prefix tree's",
        "mpt-with-position-ids": "off: the prefix tree differs from a plain forward pass",
    }[kind]
    assert lm.scorer.stats.prefix_tree.startswith(expected) and sum(done) == len(texts)
    for text, answer in zip(texts, answers):
        assert abs(answer["True"] - plain_next_token_logprobs(lm, text, ["True"])["True"]) < TOLERANCE


def test_a_mismatch_after_some_batches_keeps_them_and_computes_only_the_rest(monkeypatch):
    from negkit.engine.tree_scorer import TreeMismatch

    lm = tiny_causal_lm(chat_template=False, batch_size=4)
    texts = _prompts(lm)
    reference = [plain_next_token_logprobs(lm, text, ["True"]) for text in texts]

    def partly(prompts, reduce, on_batch_done):  # the tree answered three prompts, then found a mismatch
        on_batch_done([0, 1, 2], [reference[0], reference[1], reference[2]])
        raise TreeMismatch("differs", {0: reference[0], 1: reference[1], 2: reference[2]})

    monkeypatch.setattr(lm.scorer.tree, "score", partly)
    done = []
    lm.progress = done.append
    answers = lm.next_token_logprobs(texts, ["True"])
    assert sum(done) == len(texts) and lm.scorer.stats.tokens_total == sum(
        len(lm.rules.encode_context(text)[0]) for text in texts[3:]
    )
    assert all(abs(answer["True"] - expected["True"]) < TOLERANCE for answer, expected in zip(answers, reference))


def test_tree_distance_of_a_flat_distribution_is_not_an_error():
    """A random model's next-token distribution can be flat: no token is likely, and the log-probability
    difference over the likely tokens is 0 (it was a max over nothing)."""
    from types import SimpleNamespace

    import torch

    from negkit.engine.tree_check import tree_distance

    class Flat(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.weight = torch.nn.Parameter(torch.zeros(1))

        def forward(self, input_ids, use_cache=False):
            return SimpleNamespace(logits=torch.zeros(1, input_ids.shape[1], 1000))

    prompt = SimpleNamespace(ids=(5, 6, 7, 8), first_scored=2, last_scored=3)
    uniform = torch.full((2, 1000), -torch.log(torch.tensor(1000.0)))
    assert tree_distance(Flat(), prompt, uniform) == (pytest.approx(0.0, abs=1e-6), 0.0)
