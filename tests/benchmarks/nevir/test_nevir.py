"""NevIR: the reader on the real data and on malformed lines, the pairwise accuracy of a fixed hand-made ranker
(a word-overlap bi-encoder) against a count by hand, the random baseline, the other model kinds' requests, and the
one path (negkit score of a run's samples gives the run's metrics)."""

from __future__ import annotations

import pytest
from conftest import shared_data_path
from one_path import assert_compares_with_itself, assert_score_is_eval, evaluate
from probe_fixtures import random_logprob, run, samples, write_jsonl

from negkit.benchmarks.nevir import NEVIR, OVERLAP, read_nevir
from negkit.engine.requests import ModelFingerprint
from negkit.errors import InputFormatError, NegkitError
from negkit.kit.tasks.ranking_pairs import RankingPair, pair_outcomes
from negkit.models.base import ClassifyRequest, LoglikelihoodRequest

APPROX = pytest.approx


def test_reader_on_the_real_data():
    pairs = read_nevir(shared_data_path("nevir"))
    assert len(pairs) == 1383 and len({pair.item_id for pair in pairs}) == 1383
    assert pairs[0].item_id == "nevir-578-2" and pairs[0].fields["passage"] == "578"
    assert len({pair.fields["passage"] for pair in pairs}) == 700
    assert all(pair.documents[0] != pair.documents[1] for pair in pairs)


def test_malformed_lines(tmp_path):
    good = {"id": "1-1", "WorkerId": 0, "q1": "a?", "doc1": "It is.", "q2": "b?", "doc2": "It is not."}
    write_jsonl(tmp_path / "NevIR_test.jsonl", [good, {**good, "id": "1-2", "q2": ""}])
    with pytest.raises(InputFormatError, match=r"NevIR_test.jsonl:2: field 'q2'"):
        read_nevir(tmp_path)
    write_jsonl(tmp_path / "NevIR_test.jsonl", [{**good, "doc2": "It is."}])
    with pytest.raises(InputFormatError, match=r"NevIR_test.jsonl:1: doc1 and doc2 are the same"):
        read_nevir(tmp_path)


#: Hand-made pairs. The ranker below scores a (query, document) by the number of the query's words the document
#: holds; counted by hand, query: doc1 | doc2 (the query's own document must score strictly higher):
PAIRS = [
    # "who won": won 1 | won 1, tie (wrong); "who lost": 0 | 0, tie (wrong) -> pair wrong, 0 queries right
    ("1-1", "who won", "Ann won the race.", "who lost", "Ann did not win; Bob won."),
    # "cats purr": 2 | 2, tie (wrong); "cats never": 1 | 2 (right) -> pair wrong, 1 query right
    ("2-1", "cats purr", "The cats purr loudly.", "cats never", "The cats never purr."),
    # "rain fell": 2 | 1 (right); "no rain": 1 | 2 (right) -> pair right, 2 queries right
    ("3-1", "rain fell", "The rain fell.", "no rain", "There was no rain."),
    # "he ate happily": 3 | 2 (right); "he never ate": 2 | 3 (right) -> pair right, 2 queries right
    ("4-1", "he ate happily", "He ate happily.", "he never ate", "He never ate."),
    # "sun shone": 2 | 1 (right); "shone sun": 2 | 1 (wrong: doc1 first for both) -> pair wrong, 1 query right,
    # both queries put the same document first
    ("5-1", "sun shone", "The sun shone.", "shone sun", "The sun did not shine."),
]
#: So: 2 of 5 pairs right, 6 of 10 queries right, 1 of 5 pairs with the same document first for both queries.


def overlap(query: str, document: str) -> float:
    words = {word.strip(".;,").lower() for word in document.split()}
    return float(sum(word in words for word in query.lower().split()))


class WordOverlapRanker:
    """A fixed bi-encoder stand-in: the number of query words found in the document."""

    fingerprint = ModelFingerprint(backend="test", name="word-overlap", dtype="none")
    load_info: dict = {}

    def similarity(self, pairs):
        return [overlap(query, document) for query, document in pairs]


def write_pairs(root, pairs=PAIRS):
    rows = [{"id": i, "WorkerId": 0, "q1": q1, "doc1": d1, "q2": q2, "doc2": d2} for i, q1, d1, q2, d2 in pairs]
    return write_jsonl(root / "nevir" / "NevIR_test.jsonl", rows)


def test_hand_made_ranker_equals_a_hand_count(tmp_path):
    write_pairs(tmp_path / "data")
    result = run(WordOverlapRanker(), "nevir", tmp_path / "data", tmp_path / "r")
    metrics = result["metrics"]
    assert metrics["scorer"] == "cosine" and metrics["count"] == 5
    assert metrics["pairwise_accuracy"] == APPROX(2 / 5)  # counted by hand above
    cosine = metrics["scorers"]["cosine"]
    assert cosine["correct_pairs"] == 2 and cosine["query_accuracy"] == APPROX(6 / 10)
    assert cosine["same_document"] == APPROX(1 / 5)
    assert metrics["note"] == OVERLAP and metrics["intervals"]["pairwise_accuracy"]["units"] == 5
    rows = samples(result)
    assert [row["correct"] for row in rows] == [False, False, True, True, False]
    assert rows[2]["scores"]["cosine"] == [[2.0, 1.0], [1.0, 2.0]]


def test_outcomes_by_hand():
    assert pair_outcomes([[1, 0], [0, 1]]) == {"q1": True, "q2": True, "pair": True, "same_document": False}
    assert pair_outcomes([[1, 0], [1, 0]]) == {"q1": True, "q2": False, "pair": False, "same_document": True}
    assert pair_outcomes([[0, 1], [0, 1]])["same_document"] is True
    assert pair_outcomes([[0, 0], [0, 1]])["pair"] is False  # a tie is wrong


def test_random_by_hand_and_no_majority(tmp_path):
    write_pairs(tmp_path / "data")
    result = run("random", "nevir", tmp_path / "data", tmp_path / "r")
    right = 0
    for _id, q1, d1, q2, d2 in PAIRS:
        prompt = NEVIR.relevance_prompt
        s = [[random_logprob(0, prompt.format(document=d, query=q), " Yes") for d in (d1, d2)] for q in (q1, q2)]
        right += pair_outcomes(s)["pair"]
    assert result["metrics"]["pairwise_accuracy"] == APPROX(right / len(PAIRS))
    assert set(result["metrics"]["scorers"]) == {"yes", "query_likelihood"}
    with pytest.raises(NegkitError, match="fixed set of answers"):
        run("majority", "nevir", tmp_path / "data", tmp_path / "m")


def test_requests_of_each_model_kind():
    pair = RankingPair("x", ("q1", "q2"), ("d1", "d2"))
    language = NEVIR.task().requests([pair])[0]
    assert len(language) == 8 and all(isinstance(r, LoglikelihoodRequest) for r in language)
    assert language[4] == LoglikelihoodRequest("Document: d1\nQuery:", " q1")
    classifier = NEVIR.task("classifier").requests([pair])[0]
    assert classifier[1] == ClassifyRequest("d2", "q1")
    assert [r.second for r in NEVIR.task("embedding").requests([pair])[0]] == ["d1", "d2", "d1", "d2"]


def test_score_of_the_samples_is_the_eval(tmp_path, capsys):
    data = shared_data_path()
    shared_data_path("nevir")
    out = evaluate(tmp_path / "run", "random", "nevir", data, ["--limit", "40"])
    metrics = assert_score_is_eval(out, "nevir", "nevir", data, capsys, score_only=("data_count", "source"))
    assert {"pairwise_accuracy", "scorers.query_likelihood.pairwise_accuracy"} <= set(metrics["intervals"])
    assert_compares_with_itself(out, "nevir", capsys, metrics)


class OverlapClassifier:
    """A fixed NLI cross-encoder stand-in: P(entailment) grows with the query words found in the document."""

    fingerprint = ModelFingerprint(backend="test", name="overlap-nli", dtype="none")
    labels = ("entailment", "neutral", "contradiction")
    load_info: dict = {}

    def classify(self, pairs):
        answers = []
        for document, query in pairs:
            entailed = overlap(query, document) / 10
            answers.append({"ENTAILMENT": entailed, "neutral": 1 - entailed, "contradiction": 0.0})
        return answers


def test_an_nli_cross_encoder_ranks_by_entailment(tmp_path):
    write_pairs(tmp_path / "data")
    result = run(OverlapClassifier(), "nevir", tmp_path / "data", tmp_path / "r")
    assert result["metrics"]["scorer"] == "entailment"
    assert result["metrics"]["pairwise_accuracy"] == APPROX(2 / 5)  # the same order as the word-overlap ranker
    assert samples(result)[2]["scores"]["entailment"] == [[0.2, 0.1], [0.1, 0.2]]
