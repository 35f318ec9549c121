"""NIS metrics (spec section 8): hand-built cases for tables 8.5-8.7, reading, averaging, zero division."""

from __future__ import annotations

import pytest
from cdsco_helpers import S, conll, lines
from conftest import shared_data_path

from negkit.errors import InputFormatError
from negkit.resolution.corpora.cdsco import read_lines
from negkit.resolution.metrics.nis import PRF, NisScores, mean_scores, nis_instances, read_nis_sentences, score_nis

# tokens 0 a, 1 b, 2 c, 3 d, 4 not, 5 no, 6 never, 7 none, 8 nor
WORDS = ["a NN", "b NN", "c NN", "d NN", "not RB", "no DT", "never RB", "none NN", "nor CC"]


def sentence(instances: list[tuple[int, set[int]]]) -> str:
    """One sentence whose instance k has its cue on token ``cue`` and scope on the ``scope`` tokens."""
    tokens = []
    for index, word_pos in enumerate(WORDS):
        word = word_pos.split(" ")[0]
        cells = []
        for cue, scope in instances:
            cells += [word if index == cue else "_", word if index in scope else "_", "_"]
        tokens.append(" ".join([word_pos, *cells]))
    return conll(S(1, *tokens))


GOLD = sentence([(4, set()), (5, set()), (6, {0, 1}), (7, {0, 1, 2}), (8, {3})])
SYSTEM = sentence([(4, set()), (5, {0}), (6, set()), (7, {1, 2, 3}), (5, {2})])


def test_per_instance_table_and_aggregates():
    result = score_nis(lines(GOLD, "g"), lines(SYSTEM, "s"))
    c = result.counts
    # pairs: not (empty/empty: p 1, r 1), no (empty gold: p 0, r 1), never (empty system: p 1, r 0),
    # none (2 of 3 shared: p 2/3, r 2/3); gold "nor" unpaired; the second system "no" finds g1 used: unpaired
    assert (c.gold_instances, c.system_instances, c.pairs) == (5, 5, 4)
    assert c.precision_sum == pytest.approx(1 + 0 + 1 + 2 / 3)
    assert c.recall_sum == pytest.approx(1 + 1 + 0 + 2 / 3)
    s = result.scores
    assert (s.cue.precision, s.cue.recall, s.cue.f1) == pytest.approx((0.8, 0.8, 0.8))  # 4/5, 4/5
    assert (s.nis_tok.precision, s.nis_tok.recall) == pytest.approx((8 / 15, 8 / 15))  # (8/3) / 5
    assert s.nis_tok.f1 == pytest.approx(8 / 15)
    # -t: shared entries 0 + 0 + 0 + 2 = 2; system scope entries 0+1+0+3+1 = 5; gold 0+0+2+3+1 = 6
    assert (c.shared_scope_tokens, c.system_scope_tokens, c.gold_scope_tokens) == (2, 5, 6)
    assert (s.nis_tok_tokens.precision, s.nis_tok_tokens.recall) == pytest.approx((0.4, 1 / 3))
    assert s.nis_tok_tokens.f1 == pytest.approx(2 * 0.4 * (1 / 3) / (0.4 + 1 / 3))  # 0.3636
    # NIS_ex (instance-based reading): only the empty/empty pair is exact: 1/5, 1/5
    assert (s.nis_ex.precision, s.nis_ex.recall, s.nis_ex.f1) == pytest.approx((0.2, 0.2, 0.2))
    # NIS_ex, the paper's column (non-empty scopes only): no non-empty gold scope is matched exactly;
    # 3 system and 3 gold instances have a non-empty scope
    assert (c.exact_nonempty_scopes, c.system_nonempty_scopes, c.gold_nonempty_scopes) == (0, 3, 3)
    assert s.nis_ex_nonempty.f1 == 0
    assert s.format_script() == (
        "Cue precision: 80.0\nCue recall: 80.0\nCue F1: 80.0\n\n"
        "Scope precision: 53.3\nScope recall: 53.3\nScope F1: 53.3\n"
    )
    assert s.format_script(token_weighted=True).endswith("Scope precision: 40.0\nScope recall: 33.3\nScope F1: 36.4\n")


def test_identical_gold_cues_pair_twice_with_one_system_instance():
    # the script does not stop after a pair: one system "not" pairs with both gold instances with cue "not"
    gold = sentence([(4, {0}), (4, {1})])
    system = sentence([(4, {0})])
    result = score_nis(lines(gold, "g"), lines(system, "s"), strict=True)
    assert result.counts.pairs == 2
    assert result.scores.cue.precision == pytest.approx(2.0)  # 2 pairs / 1 system instance, as the script


def test_mean_over_several_systems_is_the_mean_of_each_number():
    gold = lines(GOLD, "g")
    perfect = score_nis(gold, gold).scores
    partial = score_nis(gold, lines(SYSTEM, "s")).scores
    mean = mean_scores([perfect, partial])
    assert mean.cue.precision == pytest.approx((1 + 0.8) / 2)
    assert mean.nis_tok_tokens.f1 == pytest.approx((1 + partial.nis_tok_tokens.f1) / 2)  # mean of F1s
    assert mean.nis_ex.recall == pytest.approx(0.6)
    with pytest.raises(ValueError):
        mean_scores([])


def test_no_system_instance_gives_zero_without_crash():
    gold = conll(S(1, "Not RB Not _ _", "now RB _ now _"))
    system = conll(S(1, "Not RB ***", "now RB ***"))
    scores = score_nis(lines(gold, "g"), lines(system, "s")).scores
    assert scores == NisScores(PRF(0, 0, 0), PRF(0, 0, 0), PRF(0, 0, 0), PRF(0, 0, 0), PRF(0, 0, 0))


def test_reading_is_the_scripts_own():
    text = (
        "c\t1\t0\tNot\tnot\tRB\t*\tNot\t_\t_\n"
        "# a comment line\n"
        "c\t1\t1\tnaïve\tnaive\tJJ\t*\t_\tnaïve\t_\n"
        "c\t1\t2\t—\t—\t:\t*\t_\t—\t_\n"
        "\n  \n\n"
        "c\t2\t0\tNo\tno\tDT\t*\tNo\t_\t_\r\n"
        "c\t2\t1\tend\tend\tNN\t*\t_\tend\t_"
    )
    sentences = read_nis_sentences(lines(text, "x"))
    # several empty lines make no empty sentence; the unterminated last sentence is read completely
    assert [len(s) for s in sentences] == [3, 2]
    first = nis_instances(sentences[0])
    # token ids are field 3; "naïve" has Unicode word characters, the dash has none
    assert first[0].cue == (("0", "Not"),) and first[0].scope == (("1", "naïve"),)
    assert nis_instances(sentences[1])[0].scope == (("1", "end"),)


def test_unreadable_field_count_is_an_error():
    with pytest.raises(InputFormatError, match="NIS script reads only"):
        read_nis_sentences(lines("c\t1\t0\tNo\tno\tDT\t*\tNo\t_\n", "x"))


def test_validation_comes_first():
    gold = lines(GOLD, "g")
    with pytest.raises(InputFormatError, match="mismatch"):
        score_nis(gold, lines(GOLD.replace("\tnone\t", "\tnine\t", 1), "s"))


@pytest.mark.parametrize(
    "name", ["SEM-2012-SharedTask-CD-SCO-dev-09032012.txt", "SEM-2012-SharedTask-CD-SCO-test-circle-GOLD.txt"]
)
def test_gold_against_itself(name):
    gold = read_lines(shared_data_path("cd-sco", name))
    scores = score_nis(gold, gold).scores
    for prf in (scores.cue, scores.nis_tok, scores.nis_tok_tokens, scores.nis_ex):
        assert (prf.precision, prf.recall, prf.f1) == (1, 1, 1)
