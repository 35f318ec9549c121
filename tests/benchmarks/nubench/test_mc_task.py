"""Thunder-NUBench multiple-choice task: prompts as printed, requests, few-shot, records, and exact scoring."""

from __future__ import annotations

import random

import pytest
from conftest import NUBENCH_FIXTURE

from negkit.benchmarks.nubench.data import ChoiceItem, load_choice_items
from negkit.benchmarks.nubench.task import (
    FEWSHOT_DELIMITER,
    fewshot_prefix,
    instruction_block,
    prompt_ids,
    render_prompt,
    sample_fewshot,
)
from negkit.kit.suites import get_task
from negkit.models.base import LoglikelihoodResult

FIXTURE = NUBENCH_FIXTURE
PROMPT_7 = (
    "Logically negate the sentence below. If the sentence includes 'A and B', use 'not A or not B'. If it includes "
    "'A or B', use 'not A and not B'. Also apply 'not' or use complementary antonyms on the main verb(s) of the entire "
    "sentence.\nSentence: {s}\nNegation:"
)


def test_prompts_are_the_papers():
    assert prompt_ids() == [str(n) for n in range(1, 13)] + [f"7-{n}" for n in range(1, 6)]
    assert render_prompt("7", "{s}") == PROMPT_7
    assert render_prompt("3", "X") == "Reverse the truth value of the statement. Sentence: XAnswer:"  # glued as printed
    assert render_prompt("10", "X") == (
        "You are a logic expert. Provide the logically correct standard negation of the following sentence: 'X'"
    )
    block = instruction_block()
    assert render_prompt("7-4", "X") == f"{block}\nOriginal: X\nRewritten with negation:"
    assert render_prompt("7-5", "X") == f"{block}\nInput: X\nOutput:"
    assert "'alive' → 'dead'" in render_prompt("8", "X")


def _fake_responses(requests, seed=0):
    generator = random.Random(seed)
    return [tuple(LoglikelihoodResult(-generator.uniform(1, 60), False, 1) for _ in item) for item in requests]


def test_zero_shot_requests_and_records():
    task = get_task("nubench")
    data = task.load(FIXTURE, "test", None, 0)
    requests = task.requests(data.items)
    first = data.items[0]
    assert [r.continuation for r in requests[0]] == [" " + choice for choice in first.candidates]
    assert {r.context for r in requests[0]} == {PROMPT_7.replace("{s}", first.sentence)}
    lonely = next(i for i, item in enumerate(data.items) if item.choice2_type == "non-applicable")
    assert len(requests[lonely]) == 3
    records = task.records(data.items, _fake_responses(requests))
    metrics = task.metrics(data.items, records)
    assert metrics["count"] == 24
    correct = sum(r["runs"]["zero-shot"]["prediction"] == "choice1" for r in records)
    assert metrics["summary"]["acc"] == {"mean": pytest.approx(correct / 24), "sd": 0.0}
    assert "Thunder-NUBench" in task.tables(metrics)


def test_records_pick_acc_and_acc_norm_by_hand():
    task = get_task("nubench")
    item = ChoiceItem("nubench-test-9", 9, None, "S.", ("aaaaaaaaaa", "bb", "cccc", "dddddddd"), "pp_part", "e")
    # raw: choice2 best (-3 > -4 > -5 > -9); per character: -0.4, -1.5, -1.0, -1.125 -> choice1
    scores = (-4.0, -3.0, -4.0 - 1.0, -9.0)
    (record,) = task.records([item], [tuple(LoglikelihoodResult(v, False, 1) for v in scores)])
    assert record["runs"]["zero-shot"]["prediction"] == "choice2"
    assert record["runs"]["zero-shot"]["prediction_norm"] == "choice1"
    metrics = task.metrics([item], [record])
    assert metrics["summary"]["acc"]["mean"] == 0.0 and metrics["summary"]["acc_norm"]["mean"] == 1.0
    assert metrics["runs"]["zero-shot"]["error_analysis"]["confusion_rate"] == {"pp_part": 1.0}


def test_few_shot_follows_lm_eval_format_and_seeds():
    pool = load_choice_items("validation", FIXTURE)
    drawn = sample_fewshot(pool, 5, 42, 3)
    generator = random.Random(42)
    assert drawn == [generator.sample(pool, 5) for _ in range(3)]  # one generator, sampled per item in order
    prefix = fewshot_prefix(drawn[0], "7")
    shots = prefix.split(FEWSHOT_DELIMITER)
    assert shots[-1] == "" and len(shots) == 6
    assert shots[0] == render_prompt("7", drawn[0][0].sentence) + " " + drawn[0][0].choices[0]
    task = get_task("nubench", num_fewshot=5)
    data = task.load(FIXTURE, "test", 4, 0)
    assert task.runs == ["seed-42", "seed-1234", "seed-3000", "seed-5000", "seed-7000"]
    requests = task.requests(data.items)
    assert len(requests[0]) == 5 * 4
    assert requests[0][0].context == prefix + render_prompt("7", data.items[0].sentence)
    assert requests == task.requests(data.items)  # deterministic
    records = task.records(data.items, _fake_responses(requests))
    metrics = task.metrics(data.items, records)
    accs = [metrics["runs"][run]["acc"] for run in task.runs]
    mean = sum(accs) / 5
    assert metrics["summary"]["acc"]["mean"] == pytest.approx(mean)
    assert metrics["summary"]["acc"]["sd"] == pytest.approx((sum((a - mean) ** 2 for a in accs) / 4) ** 0.5)


def test_few_shot_on_the_validation_split_never_shows_the_item_itself():
    pool = load_choice_items("validation", FIXTURE)
    drawn = sample_fewshot(pool, 5, 42, pool, exclude_item=True)
    generator = random.Random(42)
    for item, examples in zip(pool, drawn):
        # the Harness: draw k + 1, remove the item being asked, keep the first k
        expected = [example for example in generator.sample(pool, 6) if example != item][:5]
        assert examples == expected and item not in examples and len(examples) == 5
    task = get_task("nubench", num_fewshot=5)
    data = task.load(FIXTURE, "validation", None, 0)
    assert task.config()["fewshot_excludes_item"] is True
    for item, requests in zip(data.items, task.requests(data.items)):
        shots = requests[0].context.split(FEWSHOT_DELIMITER)[:-1]
        assert render_prompt("7", item.sentence) + " " + item.choices[0] not in shots
    test_task = get_task("nubench", num_fewshot=5)
    test_task.load(FIXTURE, "test", None, 0)
    assert test_task.config()["fewshot_excludes_item"] is False  # a test item cannot be in the validation pool


def test_too_few_validation_items_is_an_error():
    from negkit.errors import NegkitError

    pool = load_choice_items("validation", FIXTURE)
    with pytest.raises(NegkitError, match="few-shot"):
        sample_fewshot(pool, len(pool) + 1, 42, 1)
    with pytest.raises(NegkitError, match="unknown Thunder-NUBench prompt"):
        get_task("nubench", prompt="13")


def test_loglikelihoods_equal_a_plain_forward_pass():
    torch = pytest.importorskip("torch")
    from tiny_models import tiny_causal_lm

    lm = tiny_causal_lm(chat_template=False, prefix_reuse=True, batch_size=8)
    task = get_task("nubench", num_fewshot=1, seeds=(42,))
    data = task.load(FIXTURE, "test", 3, 0)
    requests = [request for item in task.requests(data.items) for request in item]
    answers = lm.loglikelihood(requests)
    for request, answer in zip(requests, answers):
        context_ids, _ends = lm.rules.encode_context(request.context)
        continuation_ids = lm.rules.encode(request.continuation, special=False)
        ids = torch.tensor([context_ids + continuation_ids])
        with torch.no_grad():
            logprobs = torch.log_softmax(lm.model(input_ids=ids).logits[0].float(), dim=-1)
        expected = sum(float(logprobs[len(context_ids) - 1 + k, token]) for k, token in enumerate(continuation_ids))
        assert answer.logprob == pytest.approx(expected, abs=1e-4)
        assert answer.n_tokens == len(continuation_ids)


@pytest.mark.parametrize("prefix_tree", [False, True])
def test_shared_context_runs_once_and_one_token_answers_match(prefix_tree):
    pytest.importorskip("torch")
    from tiny_models import tiny_causal_lm

    from negkit.models.base import LoglikelihoodRequest

    lm = tiny_causal_lm(chat_template=False, prefix_reuse=True, batch_size=8, prefix_tree=prefix_tree)
    contexts = [
        "A dog is an animal.\nAnswer:",
        "Birds can fly, fish cannot walk.\nIs it true?\nAnswer:",
        "Iron is a metal.",
    ]
    requests = [LoglikelihoodRequest(c, answer) for c in contexts for answer in (" True", " False", " true or false")]
    calls = []
    handle = lm.model.register_forward_hook(lambda module, args, output: calls.append(1))
    try:
        grouped = lm.loglikelihood(requests)
    finally:
        handle.remove()
    # context groups: one pass over the three contexts, one over all continuations; the prefix tree: one pass
    # over one packed row (each context once), and the one-time check's plain pass
    assert len(calls) == 2
    if prefix_tree:
        assert lm.scorer.stats.prefix_tree == "on" and lm.scorer.stats.batches == 1
    plain = tiny_causal_lm(chat_template=False, prefix_reuse=False, batch_size=1).loglikelihood(requests)
    for mine, reference in zip(grouped, plain):
        assert mine.logprob == pytest.approx(reference.logprob, abs=1e-4)
        assert (mine.is_greedy, mine.n_tokens) == (reference.is_greedy, reference.n_tokens)


def test_context_group_statistics_count_reused_context_tokens():
    pytest.importorskip("torch")
    from tiny_models import tiny_causal_lm

    from negkit.models.base import LoglikelihoodRequest

    lm = tiny_causal_lm(chat_template=False, prefix_reuse=True, batch_size=8, prefix_tree=False)
    context = "A dog is an animal."
    context_tokens = len(lm.rules.encode_context(context)[0])
    lm.loglikelihood([LoglikelihoodRequest(context, " True"), LoglikelihoodRequest(context, " False")])
    # two continuations of one context: the context runs once, so its tokens are reused once
    assert lm.scorer.stats.tokens_skipped == context_tokens
    assert lm.scorer.stats.batches == 1
