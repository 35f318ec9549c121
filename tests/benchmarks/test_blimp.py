"""BLiMP negation (declared minimal pairs) through the one path: ``negkit score`` of an eval's samples gives its
metrics and intervals, and ``negkit compare`` rebuilds the mean over paradigms from the samples."""

from __future__ import annotations

from conftest import shared_data_path
from one_path import assert_compares_with_itself, assert_score_is_eval, evaluate


def test_score_of_the_samples_is_the_eval(tmp_path, capsys):
    data = shared_data_path()
    shared_data_path("blimp-negation")
    out = evaluate(tmp_path / "run", "random", "blimp-negation", data, ["--limit", "70"])
    metrics = assert_score_is_eval(
        out, "blimp-negation", "blimp-negation", data, capsys, score_only=("data_count", "source")
    )
    assert metrics["overall"]["total"] == 70 and metrics["intervals"]["overall.accuracy"]["headline"] is True
    assert_compares_with_itself(out, "blimp-negation", capsys, metrics)


def test_the_non_negation_guard_reads_50_pairs_of_each_paradigm_and_is_asked_by_name_only(tmp_path, capsys):
    import gzip

    import pytest

    from negkit.benchmarks.blimp import read_guard
    from negkit.commands.status import default_tasks
    from negkit.errors import InputFormatError

    data = shared_data_path()
    pairs = read_guard(shared_data_path("training", "blimp-all"))
    paradigms = {pair.group for pair in pairs}
    assert len(paradigms) == 60 and len(pairs) == 3000
    assert not paradigms & {"npi_present_1", "sentential_negation_npi_scope", "only_npi_scope"}
    assert "blimp-guard" not in default_tasks(data) and "blimp-negation" in default_tasks(data)
    out = evaluate(tmp_path / "run", "random", "blimp-guard", data, ["--limit", "120"])
    metrics = assert_score_is_eval(out, "blimp-guard", "blimp-guard", data, capsys, score_only=("data_count", "source"))
    assert metrics["overall"]["total"] == 120
    # a damaged paradigm file: the file and line are named
    folder = tmp_path / "blimp-all"
    folder.mkdir()
    with gzip.open(folder / "broken.jsonl.gz", "wt") as handle:
        handle.write('{"sentence_good": "A dog runs.", "sentence_bad": "A dog run.", "pairID": 0}\n{"pairID": 1}\n')
    with pytest.raises(InputFormatError, match=r"broken\.jsonl\.gz:2: missing field"):
        read_guard(folder)


def test_a_nan_log_probability_in_a_predictions_file_is_refused(tmp_path):
    """NaN compares as neither larger nor smaller, so it would count as the good sentence chosen."""
    import pytest

    from negkit.benchmarks.blimp import BLIMP
    from negkit.errors import InputFormatError
    from negkit.kit.tasks.pairs import SentencePair

    items = [SentencePair("blimp-npi_present_1-0", "npi_present_1", "Even Tom ever left.", "Tom ever left.")]
    path = tmp_path / "predictions.jsonl"
    path.write_text('{"item_id": "blimp-npi_present_1-0", "logprob_good": NaN, "logprob_bad": -3.5}\n')
    with pytest.raises(InputFormatError, match=r"predictions\.jsonl:1: .*must be numbers \(not NaN\)"):
        BLIMP.task().predictions(path, items)
