"""The BOS policy of log-likelihood requests (Thunder-NUBench's --bos): tokenizer default, none, always."""

from __future__ import annotations

import pytest
import torch
from conftest import NUBENCH_FIXTURE
from tiny_models import tiny_causal_lm, tiny_tokenizer

from negkit.engine.requests import LoglikelihoodRequest, request_payload
from negkit.errors import NegkitError
from negkit.kit.suites import get_task
from negkit.models.hf_common import HFTokenizerRules

FIXTURE = NUBENCH_FIXTURE


def test_encode_context_policies():
    with_bos = HFTokenizerRules(tiny_tokenizer(chat_template=False, add_bos=True))
    bos = with_bos.tokenizer.bos_token_id
    plain = with_bos.encode_context("A dog is an animal.")[0]
    assert plain[0] == bos
    assert with_bos.encode_context("A dog is an animal.", None)[0] == plain
    assert with_bos.encode_context("A dog is an animal.", True)[0] == plain
    assert with_bos.encode_context("A dog is an animal.", False)[0] == plain[1:]
    without = HFTokenizerRules(tiny_tokenizer(chat_template=False, add_bos=False))
    ids = without.encode_context("A dog is an animal.")[0]
    assert ids[0] != bos
    assert without.encode_context("A dog is an animal.", False)[0] == ids
    assert without.encode_context("A dog is an animal.", True)[0] == [bos, *ids]
    # a context that itself starts with the BOS text keeps it under "none" (the text asked for it)
    assert with_bos.encode_context("<s>A dog", False)[0][0] == bos


def test_default_requests_keep_their_store_keys():
    assert request_payload(LoglikelihoodRequest("c", " x")) == {
        "kind": "LoglikelihoodRequest",
        "context": "c",
        "continuation": " x",
    }
    assert request_payload(LoglikelihoodRequest("c", " x", False))["add_bos"] is False


def _plain_logprob(lm, context_ids, continuation):
    continuation_ids = lm.rules.encode(continuation, special=False)
    ids = torch.tensor([context_ids + continuation_ids])
    with torch.no_grad():
        logprobs = torch.log_softmax(lm.model(input_ids=ids).logits[0].float(), dim=-1)
    return sum(float(logprobs[len(context_ids) - 1 + k, token]) for k, token in enumerate(continuation_ids))


@pytest.mark.parametrize("prefix_reuse", [True, False])
def test_nubench_bos_none_drops_the_bos(prefix_reuse):
    lm = tiny_causal_lm(chat_template=False, prefix_reuse=prefix_reuse, batch_size=8)  # the tokenizer adds <s>
    bos = lm.rules.tokenizer.bos_token_id
    default, none = get_task("nubench"), get_task("nubench", bos="none")
    assert default.config()["bos"] == "tokenizer" and none.config()["bos"] == "none"
    items = default.load(FIXTURE, "test", 2, 0).items
    none.load(FIXTURE, "test", 2, 0)
    default_requests = [r for item in default.requests(items) for r in item]
    none_requests = [r for item in none.requests(items) for r in item]
    assert all(r.add_bos is None for r in default_requests) and all(r.add_bos is False for r in none_requests)
    with_bos, without_bos = lm.loglikelihood(default_requests), lm.loglikelihood(none_requests)
    for request, a, b in zip(default_requests, with_bos, without_bos):
        ids = lm.rules.encode_context(request.context)[0]
        assert ids[0] == bos
        assert a.logprob == pytest.approx(_plain_logprob(lm, ids, request.continuation), abs=1e-4)
        assert b.logprob == pytest.approx(_plain_logprob(lm, ids[1:], request.continuation), abs=1e-4)
    assert [a.logprob for a in with_bos] != [b.logprob for b in without_bos]


def test_bos_policy_errors():
    with pytest.raises(NegkitError, match="unknown BOS policy"):
        get_task("nubench", bos="sometimes")
    from tiny_models import tiny_t5

    from negkit.models.hf_common import fingerprint_for
    from negkit.models.hf_seq2seq import HFSeq2SeqLM

    tokenizer = tiny_tokenizer(chat_template=False, add_bos=False, append_eos=True)
    model = tiny_t5(len(tokenizer))
    t5 = HFSeq2SeqLM(model, tokenizer, fingerprint_for("hf", model, "tiny-t5", "float32"), batch_size=3)
    with pytest.raises(NegkitError, match="BOS policy"):
        t5.loglikelihood([LoglikelihoodRequest("A dog", " is", False)])


def test_negkit_eval_bos_flag(tmp_path):
    import json

    from tiny_models import save_tiny_causal

    from negkit.cli import main

    model = save_tiny_causal(tmp_path / "model", chat_template=False)
    out = tmp_path / "run"
    argv = [
        "eval",
        "--model",
        f"hf:{model}",
        "--tasks",
        "nubench",
        "--data",
        str(FIXTURE),
        "--limit",
        "2",
        "--no-progress",
        "--out",
        str(out),
        "--bos",
        "none",
    ]
    assert main(argv) == 0
    result = json.loads((out / "nubench.results.json").read_text())
    assert result["task"]["bos"] == "none" and "--bos none" in json.dumps(result)
    assert (
        main(
            [
                "eval",
                "--model",
                f"hf:{model}",
                "--tasks",
                "tind",
                "--bos",
                "none",
                "--no-progress",
                "--out",
                str(tmp_path / "other"),
            ]
        )
        == 2
    )  # the flag does not apply to TIND
