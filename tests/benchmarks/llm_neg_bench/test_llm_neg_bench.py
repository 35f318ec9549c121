"""LMs are not naysayers (llm-neg-bench): the readers on the real data, malformed files, the baselines on hand-made
items (numbers worked out by hand), and the one path of MKR-NQ and SAR."""

from __future__ import annotations

import pytest
from conftest import shared_data_path
from one_path import assert_compares_with_itself, assert_score_is_eval, evaluate
from probe_fixtures import random_logprob, run, write

from negkit.benchmarks.llm_neg_bench import read_mkrnq, read_mwr, read_sar
from negkit.errors import InputFormatError

APPROX = pytest.approx


def test_readers_on_the_real_data():
    folder = shared_data_path("llm-neg-bench")
    mkrnq = read_mkrnq(folder)
    assert len(mkrnq) == 2200 and mkrnq[0].forms["query"].prompt == "Air doesn't have"
    assert mkrnq[0].forms["opposite"].prompt == "Air has" and mkrnq[0].forms["query"].words == ("molecules",)
    relations = {}
    for item in mkrnq:
        relations[item.group] = relations.get(item.group, 0) + 1
    assert relations == {
        "IsA": 947,
        "UsedFor": 405,
        "HasA": 352,
        "PartOf": 232,
        "CapableOf": 159,
        "NotDesires": 87,
        "MadeOf": 18,
    }
    mwr = read_mwr(folder)
    assert len(mwr) == 9182 and sum(item.group == "antonym query" for item in mwr) == 7086
    assert mwr[0].forms["opposite"].prompt == "greed is a synonym of"
    sar = read_sar(folder)
    assert len(sar) == 2000 and sar[0].choices == (" antonym", " synonym") and sum(q.gold for q in sar) == 1000
    assert len(read_sar(folder, "validation")) == 1000


def test_malformed_files(tmp_path):
    write(tmp_path / "mkrnq_prompt.csv", "prompt,opposite_sent,completion\n X does not have, X has,molecules\n")
    write(
        tmp_path / "mkrnq_pos_prompt.csv",
        "word,prompt,opposite_sent,relation,completion\nx,X has m. X does not have, X has, IsA,molecules\n",
    )
    with pytest.raises(
        InputFormatError, match=r"mkrnq_prompt.csv:2: column 'completion': 'molecules' is not a list literal"
    ):
        read_mkrnq(tmp_path)
    write(tmp_path / "mkrnq_prompt.csv", "prompt,opposite_sent,completion\n X does not have, X has,\"['m']\"\n")
    with pytest.raises(InputFormatError, match=r"mkrnq_pos_prompt.csv:2: row does not match"):
        read_mkrnq(tmp_path)
    write(tmp_path / "sar_test_prompt.csv", "prompt,classes,answer_index\nQ?,\"[' antonym', ' synonym']\",2\n")
    with pytest.raises(
        InputFormatError,
        match=r"sar_test_prompt.csv:2: column .answer_index.: .2. is not the index of one of the 2 classes",
    ):
        read_sar(tmp_path)
    write(tmp_path / "mwr_test_prompt.csv", "prompt,completion\n x is an antonym of,\"['y']\"\n")
    with pytest.raises(InputFormatError, match=r"mwr_test_prompt.csv:1: missing column\(s\): opposite_sent"):
        read_mwr(tmp_path)


SAR_ROWS = [
    ("Choose: hot and cold are antonym or synonym?\nAnswer:", 0),
    ("Choose: big and large?\nAnswer:", 1),
    ("Choose: up and down?\nAnswer:", 0),
]


def _data(root):
    folder = root / "llm-neg-bench"
    write(
        folder / "mkrnq_prompt.csv",
        "prompt,opposite_sent,completion\n"
        " Birds don't have, Birds have,\"['wings', 'feathers']\"\n Fish don't have, Fish have,\"['gills']\"\n",
    )
    write(
        folder / "mkrnq_pos_prompt.csv",
        "word,prompt,opposite_sent,relation,completion\n"
        " bird, Birds have wings. Birds don't have, Birds have, HasA,\"['wings', 'feathers']\"\n"
        " fish, Fish have gills. Fish don't have, Fish have, HasA,\"['gills']\"\n",
    )
    write(
        folder / "mwr_test_prompt.csv",
        "prompt,completion,opposite_sent\n hot is an antonym of,\"['warm']\", hot is a synonym of\n",
    )
    write(
        folder / "sar_test_prompt.csv",
        "prompt,classes,answer_index\n"
        + "".join(f"\"{prompt}\",\"[' antonym', ' synonym']\",{answer}\n" for prompt, answer in SAR_ROWS),
    )
    return root


def test_baselines_by_hand(tmp_path):
    root = _data(tmp_path / "data")
    words = run("random", "llm-neg-bench-mkrnq", root, tmp_path / "w")
    # the random baseline generates no text for a task without fixed answers: no word, no hit, no shared word
    assert words["metrics"]["overall"]["query"]["hit_at_1"] == 0.0 and words["metrics"]["overall"]["same_word"] is None
    assert words.records[0]["query"]["output"] == "" and words["metrics"]["relations"]["HasA"]["count"] == 2
    antonym = run("constant:antonym", "llm-neg-bench-sar", root, tmp_path / "a")["metrics"]
    assert antonym["acc"] == APPROX(2 / 3) and antonym["choice_share"] == {"antonym": 1.0, "synonym": 0.0}
    majority = run("majority", "llm-neg-bench-sar", root, tmp_path / "m")
    assert majority["model"]["extra"] == {"answer": "antonym"}
    random = run("random", "llm-neg-bench-sar", root, tmp_path / "r")["metrics"]
    right = sum(
        (0 if random_logprob(0, prompt, " antonym") >= random_logprob(0, prompt, " synonym") else 1) == answer
        for prompt, answer in SAR_ROWS
    )
    assert random["acc"] == APPROX(right / 3)


def test_score_of_the_samples_is_the_eval(tmp_path, capsys):
    data = shared_data_path()
    shared_data_path("llm-neg-bench")
    out = evaluate(tmp_path / "run", "random", "llm-neg-bench-mkrnq", data, ["--limit", "30"])
    metrics = assert_score_is_eval(
        out, "llm-neg-bench-mkrnq", "llm-neg-bench", data, capsys, score_only=("data_count", "source")
    )
    assert "overall.query.hit_at_1" in metrics["intervals"]
    assert len(assert_compares_with_itself(out, "llm-neg-bench-mkrnq", capsys)["metrics"]) >= 2
    out = evaluate(tmp_path / "sar", "constant:synonym", "llm-neg-bench-sar", data, ["--limit", "40"])
    assert_compares_with_itself(out, "llm-neg-bench-sar", capsys)
