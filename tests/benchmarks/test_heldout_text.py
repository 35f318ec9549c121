"""Held-out text (a guard for negation training): the sentences read from BioScope and SFU Review, SFU's tokens
joined back into text, the log-probability per token and perplexity by hand, and the one path (``negkit score`` of
an eval's samples is the eval; ``negkit compare`` rebuilds the headline from the samples)."""

from __future__ import annotations

import math
from collections import Counter

import pytest
from conftest import shared_data_path
from one_path import assert_compares_with_itself, assert_score_is_eval, evaluate

from negkit.benchmarks.heldout_text import HELDOUT_TEXT, detokenize, read_heldout_text
from negkit.errors import InputFormatError
from negkit.kit.tasks.text_likelihood import TextItem
from negkit.models.base import LoglikelihoodResult


def test_sfu_tokens_become_text():
    assert detokenize(["I", "do", "n't", "like", "it", ",", "it", "'s", "(", "very", ")", "loud", "."]) == (
        "I don't like it, it's (very) loud."
    )
    assert detokenize(["Price", ":", "$", "20", "!"]) == "Price: $20!"


def test_each_corpus_gives_100_negated_and_100_affirmative_sentences():
    shared_data_path("sfu-review")
    items = read_heldout_text(shared_data_path("bioscope"))
    counts = Counter((item.group, item.negated) for item in items)
    assert counts == {(group, negated): 100 for group in HELDOUT_TEXT.groups for negated in (True, False)}
    assert len({item.item_id for item in items}) == 600
    assert all(4 <= len(item.text.split()) <= 60 and "  " not in item.text for item in items)
    sfu = [item.text for item in items if item.group == "sfu-reviews"]
    assert not any(" ," in text or " n't" in text or text.endswith(" .") for text in sfu)
    assert read_heldout_text(shared_data_path("bioscope")) == items  # the same sentences every time


def test_log_probability_per_token_and_perplexity_by_hand():
    task = HELDOUT_TEXT.task()
    items = [
        TextItem("a", "bioscope-abstracts", "No effect was seen.", True),
        TextItem("b", "bioscope-abstracts", "The cells grew.", False),
        TextItem("c", "sfu-reviews", "I like it.", False),
    ]
    responses = [
        (LoglikelihoodResult(-12.0, False, 4),),
        (LoglikelihoodResult(-6.0, False, 3),),
        (LoglikelihoodResult(-9.0, False, 3),),
    ]
    records = task.records(items, responses)
    assert [record["logprob_per_token"] for record in records] == [-3.0, -2.0, -3.0]
    metrics = task.metrics(items, records)
    assert metrics["overall"]["logprob_per_token"] == pytest.approx(-27 / 10)
    assert metrics["overall"]["perplexity"] == pytest.approx(math.exp(2.7))
    assert metrics["groups"]["bioscope-abstracts"]["logprob_per_token"] == pytest.approx(-18 / 7)
    assert metrics["polarity"]["negated"]["tokens"] == 4 and metrics["polarity"]["affirmative"]["sentences"] == 2
    estimands = {estimand.path: estimand for estimand in task.estimands(items, records)}
    assert estimands["overall.logprob_per_token"].headline
    assert set(estimands) >= {"groups.sfu-reviews.logprob_per_token", "polarity.negated.logprob_per_token"}
    table = task.tables(metrics)
    assert "| all | 3 | 10 | -2.7000 | 14.88 |" in table and "negated sentences" in table


def test_one_path_and_a_guard_asked_by_name_only(tmp_path, capsys):
    from negkit.commands.status import default_tasks

    data = shared_data_path()
    shared_data_path("bioscope")
    shared_data_path("sfu-review")
    out = evaluate(tmp_path / "run", "random", "heldout-text", data, ["--limit", "30"])
    metrics = assert_score_is_eval(
        out, "heldout-text", "heldout-text", data, capsys, score_only=("data_count", "source")
    )
    assert metrics["count"] == 30 and metrics["intervals"]["overall.logprob_per_token"]["headline"] is True
    assert_compares_with_itself(out, "heldout-text", capsys, metrics)
    assert "heldout-text" not in default_tasks(data)


def test_a_damaged_corpus_file_is_named_with_its_line(tmp_path):
    folder = tmp_path / "bioscope"
    folder.mkdir()
    (folder / "abstracts.xml").write_text('<Annotation>\n<sentence id="S1">No cells.</sentence>\n<broken>\n')
    (folder / "full_papers.xml").write_text("<Annotation></Annotation>")
    with pytest.raises(InputFormatError, match=r"abstracts\.xml:\d+: not well-formed XML"):
        read_heldout_text(folder)
    (folder / "abstracts.xml").write_text("<Annotation></Annotation>")
    with pytest.raises(InputFormatError, match=r"sfu-review: no SFU Review corpus files"):
        read_heldout_text(folder)


def test_a_row_without_interval_bounds_prints_the_values_alone():
    """Hand-computed: log-probability -2 per token is perplexity e**2; an interval of one resampling unit has no
    bounds and is left out, not formatted."""
    from negkit.kit.tasks.text_likelihood import _row

    values = {"sentences": 1, "tokens": 4, "logprob_per_token": -2.0, "perplexity": math.exp(2.0)}
    assert _row("all", values, {"all": {"ci": [None, None]}}, "all") == ["all", 1, 4, "-2.0000", "7.39"]
    bounded = _row("all", values, {"all": {"ci": [-3.0, -1.0]}}, "all")
    assert bounded[3] == "-2.0000 [-3.0000, -1.0000]" and bounded[4] == "7.39 [2.72, 20.09]"
