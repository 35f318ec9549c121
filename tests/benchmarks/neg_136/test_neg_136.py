"""NEG-136 / NEG-1500-SIMP: the reader on the real data, malformed files, the random baseline on hand-made data
(numbers worked out by hand from its definition), and the one path."""

from __future__ import annotations

import pytest
from conftest import shared_data_path
from one_path import assert_compares_with_itself, assert_score_is_eval, evaluate
from probe_fixtures import random_logprob, random_next, run, write

from negkit.benchmarks.neg_136 import article, read_ettinger, read_neg_136, read_shivagunde
from negkit.errors import InputFormatError, NegkitError

APPROX = pytest.approx
HEADER = "item\tcontext_aff\tcontext_neg\ttarget_aff\ttarget_neg"


def test_reader_on_the_real_data():
    probes = read_neg_136(shared_data_path("neg-136"))
    counts = {}
    for probe in probes:
        counts[probe.family] = counts.get(probe.family, 0) + 1
    assert counts == {"NEG-136-SIMP": 18, "NEG-136-NAT": 16, "NEG-1500-SIMP-TEMP": 770, "NEG-1500-SIMP-GEN": 750}
    trout = probes[0]
    assert trout.forms["affirmative"].context == "A trout is a" and trout.forms["negated"].context == "A trout is not a"
    assert trout.forms["affirmative"].contrast == ("A trout is", " a fish", " a tool")
    assert trout.forms["negated"].contrast == ("A trout is not", " a tool", " a fish")
    ant = probes[2]
    assert ant.forms["affirmative"].context == "An ant is an" and ant.forms["negated"].contrast == (
        "An ant is not",
        " a vegetable",
        " an insect",
    )
    nat = [probe for probe in probes if probe.family == "NEG-136-NAT"]
    assert {probe.group for probe in nat} == {"NEG-136-NAT-licensed", "NEG-136-NAT-unlicensed"}
    assert nat[0].forms["negated"].contrast == ("With proper equipment, scuba-diving isn't very", " dangerous", " safe")
    cat = [probe for probe in probes if probe.family == "NEG-1500-SIMP-GEN"][0]
    assert cat.forms["affirmative"].context == "A cat is an" and cat.forms["negated"].context == "A cat is not a"
    assert article("apple") == "an" and article("pear") == "a"


def test_malformed_files(tmp_path):
    path = write(tmp_path / "NEG-136-SIMP.tsv", f"{HEADER}\n0\tA x is (a|an)\tA x is not (a|an)\tfish\n")
    with pytest.raises(InputFormatError, match=r"NEG-136-SIMP.tsv:2: expected 5 columns, found 4"):
        read_ettinger(path, "NEG-136-SIMP")
    write(path, f"{HEADER}\n0\tA x is (a|an)\tA x is not (a|an)\tbig fish\ttool\n")
    with pytest.raises(InputFormatError, match=r"NEG-136-SIMP.tsv:2: column 'target_aff'"):
        read_ettinger(path, "NEG-136-SIMP")
    nat = write(tmp_path / "NEG-136-NAT.tsv", f"{HEADER}\tlicensing\n0\tIt is\tIt isn't\tgood\tbad\tmaybe\n")
    with pytest.raises(InputFormatError, match=r"NEG-136-NAT.tsv:2: column 'licensing'"):
        read_ettinger(nat, "NEG-136-NAT")
    text = write(tmp_path / "NEG-1500-SIMP-GEN.txt", "A cat is an animal,\nA cat is not a machine\n")
    with pytest.raises(InputFormatError, match=r"NEG-1500-SIMP-GEN.txt:2: expected a sentence ending"):
        read_shivagunde(text, "NEG-1500-SIMP-GEN")
    write(text, "A cat is an animal,\nA cat is a machine,\n")
    with pytest.raises(InputFormatError, match=r"NEG-1500-SIMP-GEN.txt:2: expected an affirmative line"):
        read_shivagunde(text, "NEG-1500-SIMP-GEN")


def _data(root):
    folder = root / "neg-136"
    write(
        folder / "ettinger-2020" / "NEG-136-SIMP.tsv",
        f"{HEADER}\n0\tA robin is (a|an)\tA robin is not (a|an)\tbird\ttree\n1\tAn oak is (a|an)\tAn oak is not (a|an)\ttree\tbird\n",
    )
    write(
        folder / "ettinger-2020" / "NEG-136-NAT.tsv",
        f"{HEADER}\tlicensing\n0\tIce is very\tIce isn't very\tcold\thot\tY\n1\tFire is very\tFire isn't very\thot\tcold\tN\n",
    )
    write(folder / "shivagunde-2023" / "NEG-1500-SIMP-TEMP.txt", "A cat is an animal,\nA cat is not a tool,\n")
    write(folder / "shivagunde-2023" / "NEG-1500-SIMP-GEN.txt", "A saw is a tool,\nA saw is not an animal,\n")
    return root


def test_random_by_hand(tmp_path):
    result = run("random", "neg-136", _data(tmp_path / "data"), tmp_path / "r")
    cases = [  # (context aff, context neg, vocabulary, aff target, contrast stems and continuations)
        (
            "A robin is a",
            "A robin is not a",
            ("bird", "tree"),
            "bird",
            ("A robin is", " a bird", " a tree"),
            ("A robin is not", " a tree", " a bird"),
        ),
        (
            "An oak is a",
            "An oak is not a",
            ("bird", "tree"),
            "tree",
            ("An oak is", " a tree", " a bird"),
            ("An oak is not", " a bird", " a tree"),
        ),
        (
            "Ice is very",
            "Ice isn't very",
            ("cold", "hot"),
            "cold",
            ("Ice is very", " cold", " hot"),
            ("Ice isn't very", " hot", " cold"),
        ),
        (
            "Fire is very",
            "Fire isn't very",
            ("cold", "hot"),
            "hot",
            ("Fire is very", " hot", " cold"),
            ("Fire isn't very", " cold", " hot"),
        ),
        (
            "A cat is an",
            "A cat is not a",
            ("animal", "tool"),
            "animal",
            ("A cat is", " an animal", " a tool"),
            ("A cat is not", " a tool", " an animal"),
        ),
        (
            "A saw is a",
            "A saw is not an",
            ("animal", "tool"),
            "tool",
            ("A saw is", " a tool", " an animal"),
            ("A saw is not", " an animal", " a tool"),
        ),
    ]

    def best(context, vocabulary):
        scores = {word: random_next(0, context, " " + word) for word in vocabulary}
        return max(vocabulary, key=lambda word: (scores[word], -vocabulary.index(word)))

    def prefers(stem, true, false):
        return random_logprob(0, stem, true) > random_logprob(0, stem, false)

    hits = flips = affirmative_true = negated_true = 0
    for affirmative, negated, vocabulary, target, aff_contrast, neg_contrast in cases:
        hits += best(affirmative, vocabulary) == target
        flips += best(affirmative, vocabulary) != best(negated, vocabulary)
        affirmative_true += prefers(*aff_contrast)
        negated_true += prefers(*neg_contrast)
    overall = result["metrics"]["overall"]  # pooled over the six pairs
    assert overall["affirmative"]["p_at_1"] == APPROX(hits / 6) and overall["affirmative"]["p_at_5"] == 1.0
    assert overall["flip_at_1"] == APPROX(flips / 6) and overall["overlap_at_1"] == APPROX(1 - flips / 6)
    assert overall["affirmative"]["prefers_true"] == APPROX(affirmative_true / 6)
    assert overall["negated"]["prefers_true"] == APPROX(negated_true / 6)
    assert set(result["metrics"]["datasets"]) == {
        "NEG-136-SIMP",
        "NEG-136-NAT-licensed",
        "NEG-136-NAT-unlicensed",
        "NEG-1500-SIMP-TEMP",
        "NEG-1500-SIMP-GEN",
    }
    with pytest.raises(NegkitError, match="fixed set of answers"):  # each data set its own vocabulary
        run("constant:tree", "neg-136", tmp_path / "data", tmp_path / "c")


def test_score_of_the_samples_is_the_eval(tmp_path, capsys):
    data = shared_data_path()
    shared_data_path("neg-136")
    out = evaluate(tmp_path / "run", "random", "neg-136", data, ["--limit", "60"])
    metrics = assert_score_is_eval(out, "neg-136", "neg-136", data, capsys, score_only=("data_count", "source"))
    assert "overall.negated.prefers_true" in metrics["intervals"]
    assert len(assert_compares_with_itself(out, "neg-136", capsys, metrics)["metrics"]) == 4
