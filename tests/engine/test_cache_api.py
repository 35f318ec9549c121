"""The engine passes key/value caches through the API the installed transformers supports (negkit.engine.kv_cache):
every path that reuses a cache runs without a deprecation warning from transformers, and answers as before."""

from __future__ import annotations

import logging
import warnings

import pytest
from tiny_models import plain_next_token_logprobs, tiny_causal_lm

from negkit.models.base import LoglikelihoodRequest

TEXTS = [
    f"Is the following statement True or False? {subject}{tail}"
    for subject in ("A dog", "A dog and a cat", "The sun", "Birds")
    for tail in (" is an animal.", " is not an animal.", " can fly.", " is")
]


class _Deprecations(logging.Handler):
    """Keeps what transformers logs about deprecated arguments (it logs, rather than warns, some of them)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if "deprecat" in record.getMessage().lower():
            self.messages.append(record.getMessage())


@pytest.fixture
def no_deprecations():
    """Deprecation and future warnings raised as errors, and transformers' logged deprecations collected."""
    from transformers.utils import logging as hf_logging

    logger = hf_logging.get_logger()
    if hasattr(logging.Logger, "warning_once") and hasattr(logging.Logger.warning_once, "cache_clear"):
        logging.Logger.warning_once.cache_clear()  # logged once per process: make an earlier test's log count again
    handler = _Deprecations()
    logger.addHandler(handler)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", DeprecationWarning)
            warnings.simplefilter("error", FutureWarning)
            yield handler.messages
    finally:
        logger.removeHandler(handler)
    assert handler.messages == []


@pytest.mark.parametrize("prefix_tree", [True, False])
def test_every_cache_path_runs_without_deprecations(no_deprecations, prefix_tree):
    lm = tiny_causal_lm(chat_template=False, batch_size=None, prefix_tree=prefix_tree)
    if prefix_tree:
        lm.scorer.tree.row_tokens = 12  # small rows: anchors carry the shared prefixes (their caches are passed on)
    answers = lm.next_token_logprobs(TEXTS, ["True", "False"])  # tree, or batches sharing a prefix cache
    for text, answer in zip(TEXTS, answers):
        reference = plain_next_token_logprobs(lm, text, ["True", "False"])
        assert abs(answer["True"] - reference["True"]) < 1e-4
    if prefix_tree:
        assert lm.scorer.stats.prefix_tree == "on" and lm.scorer.tree.peak_anchors >= 1
    else:
        assert lm.scorer.stats.batches_with_prefix > 0
    # several continuations of one context: one context pass, its cache copied to the continuations
    requests = [LoglikelihoodRequest(text, ending) for text in TEXTS[:4] for ending in (" True", " False it is")]
    results = lm.loglikelihood(requests)
    assert all(result.logprob < 0 for result in results)
    assert lm.generate(TEXTS[:3], max_new_tokens=4, stop=["."]) is not None
    assert no_deprecations == []


def test_the_cache_argument_follows_the_model():
    from negkit.engine.kv_cache import cache_keyword

    lm = tiny_causal_lm(chat_template=False)

    class Old:
        def forward(self, input_ids=None, past_key_values=None, use_cache=None): ...

    assert cache_keyword(Old()) == "past_key_values"
    import inspect

    expected = "cache" if "cache" in inspect.signature(lm.model.forward).parameters else "past_key_values"
    assert cache_keyword(lm.model) == expected
