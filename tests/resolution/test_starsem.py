"""The *SEM 2012 scorer: gold vs gold, the spec's worked examples, and hand-built cases for every rule.

Expected numbers are worked out by hand in the comments (spec sections 2-7). A row is written as
(gold, system, tp, fp, fn, precision, recall, F1) exactly as printed.
"""

from __future__ import annotations

import random

import pytest
from cdsco_helpers import S, conll, lines, row, score, sentence_stats
from conftest import shared_data_path

from negkit.errors import InputFormatError
from negkit.resolution.corpora.cdsco import lines_from_text, read_lines
from negkit.resolution.metrics.nis import score_nis
from negkit.resolution.metrics.starsem import normalise_scope_word, score_starsem

GOLD_FILES = [
    "SEM-2012-SharedTask-CD-SCO-training-09032012.txt",
    "SEM-2012-SharedTask-CD-SCO-dev-09032012.txt",
    "SEM-2012-SharedTask-CD-SCO-test-cardboard-GOLD.txt",
    "SEM-2012-SharedTask-CD-SCO-test-circle-GOLD.txt",
]
TEST_FILES = GOLD_FILES[2:]
ROWS = [
    "Cues",
    "Scopes(cue match)",
    "Scopes(no cue match)",
    "Scope tokens(no cue match)",
    "Negated(no cue match)",
    "Full negation",
    "Cues B",
    "Scopes B (cue match)",
    "Scopes B (no cue match)",
    "Negated B (no cue match)",
    "Full negation B",
]
PERFECT = ("100.00", "100.00", "100.00")
ZERO = ("0.00", "0.00", "0.00")

# spec 6.2: gold vs gold on the test set (cardboard + circle concatenated)
TEST_TABLE = """\
---------------------------+------+--------+------+------+------+---------------+------------+---------
                            | gold | system | tp   | fp   | fn   | precision (%) | recall (%) | F1  (%) 
----------------------------+------+--------+------+------+------+---------------+------------+---------
Cues:                          264 |    264 |  264 |    0 |    0 |        100.00 |     100.00 |  100.00
Scopes(cue match):             249 |    249 |  249 |    0 |    0 |        100.00 |     100.00 |  100.00
Scopes(no cue match):          249 |    249 |  249 |    0 |    0 |        100.00 |     100.00 |  100.00
Scope tokens(no cue match):   1805 |   1805 | 1805 |    0 |    0 |        100.00 |     100.00 |  100.00
Negated(no cue match):         173 |    173 |  173 |    0 |    0 |        100.00 |     100.00 |  100.00
Full negation:                 264 |    264 |  264 |    0 |    0 |        100.00 |     100.00 |  100.00
---------------------------+------+--------+------+------+------+---------------+------------+---------
Cues B:                        264 |    264 |  264 |    0 |    0 |        100.00 |     100.00 |  100.00
Scopes B (cue match):          249 |    249 |  249 |    0 |    0 |        100.00 |     100.00 |  100.00
Scopes B (no cue match):       249 |    249 |  249 |    0 |    0 |        100.00 |     100.00 |  100.00
Negated B (no cue match):      173 |    173 |  173 |    0 |    0 |        100.00 |     100.00 |  100.00
Full negation B:               264 |    264 |  264 |    0 |    0 |        100.00 |     100.00 |  100.00
---------------------------+------+--------+------+------+------+---------------+------------+---------
 # sentences: 1089
 # negation sentences: 235
 # negation sentences with errors: 0
 % correct sentences: 100.00
 % correct negation sentences: 100.00
--------------------------------------------------------------------------------------------------------
"""


def test_test_set_table_is_the_official_layout_byte_for_byte():
    text = "".join(shared_data_path("cd-sco", name).read_text(encoding="utf-8") for name in TEST_FILES)
    test = lines_from_text(text, "test")
    assert score_starsem(test, test).format_table() == TEST_TABLE


@pytest.mark.parametrize("name", GOLD_FILES)
@pytest.mark.parametrize("corrected", [False, True])
def test_gold_against_itself_is_100_on_every_row(name, corrected):
    gold = read_lines(shared_data_path("cd-sco", name))
    result = score_starsem(gold, gold, corrected=corrected)
    for label in ROWS:
        r = result.row(label)
        assert (r.precision, r.recall, r.f1) == PERFECT, label
        assert r.fp == r.fn == 0 and r.tp == r.gold == r.system
    assert result.counts.negation_error_sentences == result.counts.error_sentences == 0
    assert (result.percent_correct_sentences, result.percent_correct_negation_sentences) == ("100.00", "100.00")


def test_dev_counts_and_end_of_file_rule_on_real_data():
    # dev has no final empty line: its last token (a "." without annotation) is dropped, numbers unchanged
    dev = read_lines(shared_data_path("cd-sco", GOLD_FILES[1]))
    c = score_starsem(dev, dev).counts
    assert (c.sentences, c.negation_sentences, c.cues_g, c.scopes_g, c.scope_tokens_g, c.negated_g) == (
        787,
        144,
        173,
        168,
        1348,
        122,
    )


# ------------------------------------------------------------------------------------------------
# worked examples of spec section 10 (single sentences of the test set)


def real_sentence(name: str, chapter: str, number: int) -> list[list[str]]:
    text = shared_data_path("cd-sco", name).read_text(encoding="utf-8")
    return [line.split("\t") for line in text.splitlines() if line.startswith(f"{chapter}\t{number}\t")]


def as_text(rows: list[list[str]]) -> str:
    return "\n".join("\t".join(fields) for fields in rows) + "\n\n"


def test_example_a_affix_cue_predicted_as_whole_word():
    gold = real_sentence(TEST_FILES[0], "cardboard", 8)
    system = [list(fields) for fields in gold]
    system[5][7] = "uninteresting"  # gold cue "un"
    result = score(as_text(gold), as_text(system))
    assert row(result, "Cues") == (1, 1, 0, 0, 1, *ZERO)
    assert row(result, "Scopes(cue match)") == (1, 1, 0, 0, 1, *ZERO)
    # printed tp is tp_scope = 0, the scores use tp_sa = 1
    assert row(result, "Scopes(no cue match)") == (1, 1, 0, 0, 0, *PERFECT)
    assert row(result, "Scope tokens(no cue match)") == (5, 5, 5, 0, 0, *PERFECT)
    assert row(result, "Negated(no cue match)") == (1, 1, 1, 0, 0, *PERFECT)
    assert row(result, "Full negation") == (1, 1, 0, 0, 1, *ZERO)
    assert sentence_stats(result) == (1, 1, 1, "0.00", "0.00")
    nis = score_nis(lines(as_text(gold), "g"), lines(as_text(system), "s"))
    assert nis.counts.pairs == 0  # cue strings differ
    assert (nis.scores.cue.precision, nis.scores.cue.recall, nis.scores.nis_tok.f1) == (0, 0, 0)
    # -t: 0 matched tokens against 5 gold and 5 system scope tokens
    assert (nis.counts.gold_scope_tokens, nis.counts.system_scope_tokens, nis.counts.shared_scope_tokens) == (5, 5, 0)
    assert nis.scores.nis_tok_tokens.precision == nis.scores.nis_tok_tokens.recall == 0


def b1_system(keep_full_cue: bool) -> tuple[str, str]:
    gold = real_sentence(TEST_FILES[1], "circle01", 50)
    system = [list(fields) for fields in gold]
    if not keep_full_cue:
        system[13][7] = system[16][7] = "_"  # only "neither" left of neither/nor/nor
    system[10][8] = "Mr"  # gold "Mr."
    system[12][8] = system[15][8] = "_"  # no scope on the two commas
    return as_text(gold), as_text(system)


def test_example_b1_partial_discontinuous_cue_abbreviation_punctuation():
    gold, system = b1_system(keep_full_cue=False)
    result = score(gold, system)
    assert row(result, "Cues") == (1, 1, 0, 0, 1, *ZERO)  # fn only, no fp
    assert row(result, "Scopes(cue match)") == (1, 1, 0, 0, 1, *ZERO)
    assert row(result, "Scopes(no cue match)") == (1, 1, 0, 0, 0, *PERFECT)  # printed tp 0
    assert row(result, "Scope tokens(no cue match)") == (11, 11, 11, 0, 0, *PERFECT)
    assert row(result, "Full negation") == (1, 1, 0, 0, 1, *ZERO)
    nis = score_nis(lines(gold, "g"), lines(system, "s")).scores
    assert (nis.cue.f1, nis.nis_tok.f1, nis.nis_tok_tokens.f1, nis.nis_ex.f1) == (0, 0, 0, 0)


def test_example_b2_full_cue():
    gold, system = b1_system(keep_full_cue=True)
    result = score(gold, system)
    for label in ROWS:
        assert row(result, label)[5:] == PERFECT, label
    assert sentence_stats(result) == (1, 1, 0, "100.00", "100.00")
    nis = score_nis(lines(gold, "g"), lines(system, "s"))
    # one pair; 10 of 11 scope entries shared ("Mr." != "Mr", no abbreviation rule in NIS)
    assert nis.counts.pairs == 1 and nis.counts.shared_scope_tokens == 10
    assert nis.scores.nis_tok.precision == nis.scores.nis_tok.recall == pytest.approx(10 / 11)
    assert nis.scores.nis_tok_tokens.precision == nis.scores.nis_tok_tokens.recall == pytest.approx(10 / 11)
    assert f"{nis.scores.nis_tok.f1 * 100:.1f}" == "90.9"


def test_example_c_reversed_triples_only_change_negated():
    gold = real_sentence(TEST_FILES[0], "cardboard", 247)
    system = [fields[:7] + fields[10:13] + fields[7:10] for fields in gold]
    result = score(as_text(gold), as_text(system))
    for label in ROWS:
        if not label.startswith("Negated"):
            assert row(result, label)[5:] == PERFECT, label
    # gold event 0 pairs with system triple 0 ("unlike", not the last triple) -> fn;
    # gold event 1 pairs with the last system triple ("like") -> counted nowhere
    assert row(result, "Negated(no cue match)") == (2, 2, 0, 0, 1, *ZERO)
    assert row(result, "Negated B (no cue match)") == (2, 2, 0, 0, 1, *ZERO)
    assert sentence_stats(result) == (1, 1, 0, "100.00", "100.00")  # not an error sentence
    nis = score_nis(lines(as_text(gold), "g"), lines(as_text(system), "s")).scores
    assert (nis.cue.f1, nis.nis_tok.f1, nis.nis_tok_tokens.f1, nis.nis_ex.f1) == (1, 1, 1, 1)
    corrected = score(as_text(gold), as_text(system), corrected=True)
    assert row(corrected, "Negated(no cue match)") == (2, 2, 2, 0, 0, *PERFECT)  # paired through the cues


# ------------------------------------------------------------------------------------------------
# hand-built cases: pairing and counting (spec 4, 5)

BY_NO_MEANS = S(
    1, "By IN By _ _", "no DT no _ _", "means NNS means _ _", "he PRP _ he _", "came VBD _ came came", ". . _ _ _"
)
BY_NO_MEANS_PARTIAL = S(
    1, "By IN _ _ _", "no DT no _ _", "means NNS _ _ _", "he PRP _ he _", "came VBD _ came came", ". . _ _ _"
)


def test_partial_cue_match_is_a_false_negative_only():
    # one cue pair (overlap on "no"), cues differ: fn_cue, fn_scope; scopes equal: tp_sa = 1;
    # scope tokens he/came both right: tp 2; events equal: tp_ev; full negation fn
    result = score(conll(BY_NO_MEANS), conll(BY_NO_MEANS_PARTIAL))
    assert row(result, "Cues") == (1, 1, 0, 0, 1, *ZERO)
    assert row(result, "Cues B") == (1, 1, 0, 0, 1, *ZERO)  # P = 0 / 1
    assert row(result, "Scopes(cue match)") == (1, 1, 0, 0, 1, *ZERO)
    assert row(result, "Scopes(no cue match)") == (1, 1, 0, 0, 0, *PERFECT)
    assert row(result, "Scopes B (no cue match)") == (1, 1, 0, 0, 0, *PERFECT)  # P = tp_sa / 1
    assert row(result, "Scope tokens(no cue match)") == (2, 2, 2, 0, 0, *PERFECT)
    assert row(result, "Negated(no cue match)") == (1, 1, 1, 0, 0, *PERFECT)
    assert row(result, "Full negation") == (1, 1, 0, 0, 1, *ZERO)
    assert sentence_stats(result) == (1, 1, 1, "0.00", "0.00")


def test_partial_cue_match_corrected_counts_false_positives_too():
    result = score(conll(BY_NO_MEANS), conll(BY_NO_MEANS_PARTIAL), corrected=True)
    assert row(result, "Cues") == (1, 1, 0, 1, 1, *ZERO)
    assert row(result, "Scopes(cue match)") == (1, 1, 0, 1, 1, *ZERO)  # system scope non-empty
    assert row(result, "Scopes(no cue match)") == (1, 1, 1, 0, 0, *PERFECT)  # prints tp_sa
    assert row(result, "Full negation") == (1, 1, 0, 1, 1, *ZERO)
    assert row(result, "Negated(no cue match)") == (1, 1, 1, 0, 0, *PERFECT)


# tokens 0 I, 1 did, 2 not, 3 go, 4 and, 5 never, 6 will, 7 .
# gold g0: cue not@2, scope I/did/go, event go; g1: cue never@5, scope I/will, no event
STEAL_GOLD = S(
    1,
    "I PRP _ I _ _ I _",
    "did VBD _ did _ _ _ _",
    "not RB not _ _ _ _ _",
    "go VB _ go go _ _ _",
    "and CC _ _ _ _ _ _",
    "never RB _ _ _ never _ _",
    "will MD _ _ _ _ will _",
    ". . _ _ _ _ _ _",
)
# s0: cue not@2 + never@5 (wrong), scope/event as g0; s1: exactly g0; s2: exactly g1
STEAL_SYSTEM = S(
    1,
    "I PRP _ I _ _ I _ _ I _",
    "did VBD _ did _ _ did _ _ _ _",
    "not RB not _ _ not _ _ _ _ _",
    "go VB _ go go _ go go _ _ _",
    "and CC _ _ _ _ _ _ _ _ _",
    "never RB never _ _ _ _ _ never _ _",
    "will MD _ _ _ _ _ _ _ will _",
    ". . _ _ _ _ _ _ _ _ _",
)


def test_greedy_pairing_lets_an_earlier_wrong_cue_steal_the_pair():
    # g0 pairs with s0 (first overlap, wrong cue: fn_cue, fn_scope; scopes equal: tp_sa; 3 scope tokens tp);
    # g1 pairs with s2 (all equal: tp everywhere, 2 scope tokens tp); s1 stays unpaired: fp_cue, fp_scope,
    # fp_sa, 3 fp scope tokens, fp_full. Events: g0 pairs with s0 by overlap (equal, tp); s1's event is fp.
    result = score(conll(STEAL_GOLD), conll(STEAL_SYSTEM))
    assert row(result, "Cues") == (2, 3, 1, 1, 1, "50.00", "50.00", "50.00")
    assert row(result, "Scopes(cue match)") == (2, 3, 1, 1, 1, "50.00", "50.00", "50.00")
    # tp_sa = 2: P = 2/3 = 66.67, R = 2/2; F1 = 2*66.67*100/166.67 = 80.0024 -> 80.00
    assert row(result, "Scopes(no cue match)") == (2, 3, 1, 1, 0, "66.67", "100.00", "80.00")
    # 5/8 = 62.50; F1 = 2*62.5*100/162.5 = 76.923
    assert row(result, "Scope tokens(no cue match)") == (5, 8, 5, 3, 0, "62.50", "100.00", "76.92")
    assert row(result, "Negated(no cue match)") == (1, 2, 1, 1, 0, "50.00", "100.00", "66.67")
    assert row(result, "Full negation") == (2, 3, 1, 1, 1, "50.00", "50.00", "50.00")
    # B: P = 1/3 = 33.33; F1 = 2*33.33*50/83.33 = 39.9976 -> 40.00
    assert row(result, "Cues B") == (2, 3, 1, 1, 1, "33.33", "50.00", "40.00")
    assert row(result, "Scopes B (cue match)") == (2, 3, 1, 1, 1, "33.33", "50.00", "40.00")
    assert row(result, "Scopes B (no cue match)") == (2, 3, 1, 1, 0, "66.67", "100.00", "80.00")
    assert row(result, "Negated B (no cue match)") == (1, 2, 1, 1, 0, "50.00", "100.00", "66.67")
    assert row(result, "Full negation B") == (2, 3, 1, 1, 1, "33.33", "50.00", "40.00")
    assert sentence_stats(result) == (1, 1, 1, "0.00", "0.00")


def test_one_system_instance_covering_two_gold_cues_pairs_with_the_first():
    gold = S(
        1,
        "Neither DT Neither _ _ _ _ _",
        "he PRP _ he _ _ _ _",
        "nor CC _ _ _ nor _ _",
        "she PRP _ _ _ _ she _",
        "came VBD _ came _ _ came _",
        ". . _ _ _ _ _ _",
    )
    system = S(
        1,
        "Neither DT Neither _ _",
        "he PRP _ he _",
        "nor CC nor _ _",
        "she PRP _ she _",
        "came VBD _ came _",
        ". . _ _ _",
    )
    # g0 pairs with s0 (cue differs: fn_cue, fn_scope; scope he/came vs he/she/came: fn_sa; tokens: tp 2 fp 1);
    # g1 is unpaired (s0 taken): fn_cue, fn_scope, fn_sa, fn_tok += 2, fn_full
    result = score(conll(gold), conll(system))
    assert row(result, "Cues") == (2, 1, 0, 0, 2, *ZERO)
    assert row(result, "Scopes(cue match)") == (2, 1, 0, 0, 2, *ZERO)
    assert row(result, "Scopes(no cue match)") == (2, 1, 0, 0, 2, *ZERO)
    # P = 2/3 = 66.67, R = 2/4 = 50.00, F1 = 2*66.67*50/116.67 = 57.144
    assert row(result, "Scope tokens(no cue match)") == (4, 3, 2, 1, 2, "66.67", "50.00", "57.14")
    assert row(result, "Negated(no cue match)") == (0, 0, 0, 0, 0, *ZERO)
    assert row(result, "Full negation") == (2, 1, 0, 0, 2, *ZERO)


def test_unpaired_gold_and_system_instances_and_error_sentences():
    gold = conll(
        S(1, "He PRP _ He _", "did VBD _ did _", "not RB not _ _", "come VB _ come come", ". . _ _ _"),
        S(2, "Yes UH ***", "sir NN ***", ". . ***"),
        S(3, "Fine JJ ***", ". . ***"),
        S(4, "No DT No _ _", "one NN _ one one", "came VBD _ came _", ". . _ _ _"),
    )
    system = conll(
        S(1, "He PRP ***", "did VBD ***", "not RB ***", "come VB ***", ". . ***"),  # misses the negation
        S(2, "Yes UH Yes _ _", "sir NN _ sir _", ". . _ _ _"),  # invents one
        S(3, "Fine JJ ***", ". . ***"),
        S(4, "No DT No _ _ _ _ _", "one NN _ one one _ one _", "came VBD _ came _ came _ came", ". . _ _ _ _ _ _"),
    )
    # S1: fn_cue, fn_scope, fn_sa, fn_tok 3, fn_ev, fn_full (error, negation sentence)
    # S2: fp_cue, fp_scope, fp_sa, fp_tok 1, fp_full, no event (error, not a negation sentence)
    # S3: nothing. S4: s0 = g0 (tp everywhere, 2 scope tokens); s1 unpaired: fp_cue, fp_scope, fp_sa,
    #     fp_tok 1, fp_ev (event "came" does not overlap g0's "one"), fp_full (error)
    result = score(gold, system)
    assert row(result, "Cues") == (2, 3, 1, 2, 1, "33.33", "50.00", "40.00")
    assert row(result, "Scopes(cue match)") == (2, 3, 1, 2, 1, "33.33", "50.00", "40.00")
    assert row(result, "Scopes(no cue match)") == (2, 3, 1, 2, 1, "33.33", "50.00", "40.00")
    # P = 2/4, R = 2/5, F1 = 2*50*40/90 = 44.44
    assert row(result, "Scope tokens(no cue match)") == (5, 4, 2, 2, 3, "50.00", "40.00", "44.44")
    assert row(result, "Negated(no cue match)") == (2, 2, 1, 1, 1, "50.00", "50.00", "50.00")
    assert row(result, "Full negation") == (2, 3, 1, 2, 1, "33.33", "50.00", "40.00")
    assert row(result, "Negated B (no cue match)") == (2, 2, 1, 1, 1, "50.00", "50.00", "50.00")
    # 3 error sentences of 4: 100 - 75.00; 2 of 2 negation sentences have errors
    assert result.counts.error_sentences == 3
    assert sentence_stats(result) == (4, 2, 2, "25.00", "0.00")


def test_empty_scopes_on_either_side():
    base = ["I PRP _ _ _", "will MD _ _ _", "not RB not _ _"]
    no_scope = S(1, *base, "go VB _ _ _", ". . _ _ _")
    with_scope = S(1, *base, "go VB _ go _", ". . _ _ _")
    gold = conll(no_scope, with_scope, no_scope)
    system = conll(with_scope, no_scope, no_scope)
    # T1: gold scope empty, system not: fp_scope, fp_sa, fp_tok; full fn. T2: gold scope, system none:
    # fn_scope, fn_sa, fn_tok; full fn. T3: both empty: nothing for scopes, tp_full, no error.
    result = score(gold, system)
    assert row(result, "Cues") == (3, 3, 3, 0, 0, *PERFECT)
    assert row(result, "Scopes(cue match)") == (1, 1, 0, 1, 1, *ZERO)
    assert row(result, "Scopes(no cue match)") == (1, 1, 0, 1, 1, *ZERO)
    assert row(result, "Scope tokens(no cue match)") == (1, 1, 0, 1, 1, *ZERO)
    # P = 1/1, R = 1/3 = 33.33, F1 = 2*100*33.33/133.33 = 49.996 -> 50.00
    assert row(result, "Full negation") == (3, 3, 1, 0, 2, "100.00", "33.33", "50.00")
    assert row(result, "Full negation B") == (3, 3, 1, 0, 2, "33.33", "33.33", "33.33")
    # 2 errors of 3: e = 66.666.. -> "66.67", 100 - 66.67 = 33.33
    assert sentence_stats(result) == (3, 3, 2, "33.33", "33.33")


PUNCT_TOKENS = [
    "No DT No _ _",
    ", , _ {} _",
    "( -LRB- _ {} _",
    "[ NN _ {} _",
    "' POS _ {} _",
    "sir NN _ _ _",
    ". . _ {} _",
]


def punct_sentence(*scoped: int) -> list[str]:
    tokens = [
        t.format("x" if i in scoped else "_").replace(" x ", " " + t.split(" ")[0] + " ")
        for i, t in enumerate(PUNCT_TOKENS)
    ]
    return S(1, *tokens)


def test_punctuation_only_scope_and_pos_based_punctuation():
    # gold scope only on "," and "(" (tags "," and -LRB-): no scope at all for *SEM
    gold = conll(punct_sentence(1, 2))
    same_punctuation = conll(punct_sentence(1, 2, 6))  # "." added: still no scope
    result = score(gold, same_punctuation)
    assert row(result, "Scopes(cue match)") == (0, 0, 0, 0, 0, *ZERO)
    assert row(result, "Full negation") == (1, 1, 1, 0, 0, *PERFECT)
    # "[" tagged NN and "'" tagged POS are not punctuation for *SEM: a 2-token scope, a false positive
    system = conll(punct_sentence(1, 2, 3, 4, 6))
    result = score(gold, system)
    assert row(result, "Cues") == (1, 1, 1, 0, 0, *PERFECT)
    assert row(result, "Scopes(cue match)") == (0, 1, 0, 1, 0, *ZERO)
    assert row(result, "Scopes(no cue match)") == (0, 1, 0, 1, 0, *ZERO)
    assert row(result, "Scope tokens(no cue match)") == (0, 2, 0, 2, 0, *ZERO)
    assert row(result, "Full negation") == (1, 1, 0, 0, 1, *ZERO)
    # NIS decides by the cell text: none of , ( [ ' . has a word character: both scopes empty -> exact
    nis = score_nis(lines(gold, "g"), lines(system, "s"))
    assert nis.scores.nis_tok.f1 == 1 and nis.scores.nis_ex.f1 == 1
    assert nis.counts.system_scope_tokens == 0 and nis.scores.nis_tok_tokens.f1 == 0  # 0/0 -> 0, no crash


def test_abbreviation_rule_applies_to_scope_words_only():
    assert [normalise_scope_word(w) for w in ("Mr.", "St.", "p.m.", "Mr", ".", "U.S", "3.5")] == [
        "Mr",
        "St",
        "p",
        "Mr",
        ".",
        "U",
        "3",
    ]
    tokens = [
        "Mr. NNP _ {Mr} _",
        "Smith NNP _ Smith _",
        "never RB never _ _",
        "left VBD _ left {left}",
        "at IN _ at _",
        "3 CD _ 3 _",
        "p.m. NN _ {pm} _",
        ". . _ _ _",
    ]
    gold = conll(S(1, *(t.format(Mr="Mr.", pm="p.m.", left="left") for t in tokens)))
    system = conll(S(1, *(t.format(Mr="Mr", pm="p", left="left") for t in tokens)))
    result = score(gold, system)
    for label in ROWS:
        assert row(result, label)[5:] == PERFECT, label
    # event cells are not normalised: "left." differs from "left"; the only system triple is the last one,
    # so the differing event is counted nowhere in the Negated row (spec 5.4), but full negation fails
    system_event = conll(S(1, *(t.format(Mr="Mr", pm="p", left="left.") for t in tokens)))
    result = score(gold, system_event)
    assert row(result, "Negated(no cue match)") == (1, 1, 0, 0, 0, *ZERO)
    assert row(result, "Full negation") == (1, 1, 0, 0, 1, *ZERO)
    assert row(result, "Scopes(cue match)") == (1, 1, 1, 0, 0, *PERFECT)
    # NIS has no abbreviation rule: 4 of 6 scope entries shared
    nis = score_nis(lines(gold, "g"), lines(system, "s"))
    assert nis.scores.nis_tok.precision == pytest.approx(4 / 6) and nis.scores.nis_ex.f1 == 0


# tokens 0 He, 1 did, 2 not, 3 sleep, 4 and, 5 nobody, 6 woke, 7 .
G0 = ["_ He _", "_ did _", "not _ _", "_ sleep sleep", "_ _ _", "_ _ _", "_ _ _", "_ _ _"]
G0_WRONG_EVENT = ["_ He _", "_ did _", "not _ _", "_ sleep sle", "_ _ _", "_ _ _", "_ _ _", "_ _ _"]
G1 = ["_ _ _", "_ _ _", "_ _ _", "_ _ _", "_ _ _", "nobody _ _", "_ woke woke", "_ _ _"]
WORDS = ["He PRP", "did VBD", "not RB", "sleep VB", "and CC", "nobody NN", "woke VBD", ". ."]


def triples(*instances: list[str]) -> str:
    return conll(S(1, *(" ".join([word, *(inst[i] for inst in instances)]) for i, word in enumerate(WORDS))))


def test_negated_last_triple_quirk():
    gold = triples(G0, G1)
    # wrong event in system triple 0 of 2 (not the last): fn_ev
    result = score(gold, triples(G0_WRONG_EVENT, G1))
    assert row(result, "Negated(no cue match)") == (2, 2, 1, 0, 1, "100.00", "50.00", "66.67")
    # the same wrong event in the last system triple: counted nowhere
    result = score(gold, triples(G1, G0_WRONG_EVENT))
    assert row(result, "Negated(no cue match)") == (2, 2, 1, 0, 0, *PERFECT)
    assert row(result, "Full negation") == (2, 2, 1, 0, 1, "100.00", "50.00", "66.67")
    assert sentence_stats(result) == (1, 1, 1, "0.00", "0.00")
    corrected = score(gold, triples(G1, G0_WRONG_EVENT), corrected=True)
    assert row(corrected, "Negated(no cue match)") == (2, 2, 1, 1, 1, "50.00", "50.00", "50.00")


def test_event_pairing_ignores_the_cue_pairing():
    # g0: cue Nobody, event saw; g1: cue nothing, no event. s0: cue Nobody, no event; s1: cue nothing, event saw.
    gold = S(
        1, "Nobody NN Nobody _ _ _ _ _", "saw VBD _ saw saw _ saw _", "nothing NN _ _ _ nothing _ _", ". . _ _ _ _ _ _"
    )
    system = S(
        1, "Nobody NN Nobody _ _ _ _ _", "saw VBD _ saw _ _ saw saw", "nothing NN _ _ _ nothing _ _", ". . _ _ _ _ _ _"
    )
    result = score(conll(gold), conll(system))
    # g0's event pairs with s1's by overlap and is equal: tp_ev, although the cue pairs disagree on events
    assert row(result, "Negated(no cue match)") == (1, 1, 1, 0, 0, *PERFECT)
    assert row(result, "Full negation") == (2, 2, 0, 0, 2, *ZERO)
    assert row(result, "Cues") == (2, 2, 2, 0, 0, *PERFECT)
    corrected = score(conll(gold), conll(system), corrected=True)
    # through the cue pairs: (g0, s0) misses the event (fn), (g1, s1) adds one (fp)
    assert row(corrected, "Negated(no cue match)") == (1, 1, 0, 1, 1, *ZERO)
    assert row(corrected, "Full negation") == (2, 2, 0, 2, 2, *ZERO)


# ------------------------------------------------------------------------------------------------
# end-of-file rule, rounding (spec 2.3, 6.2)

LAST_NEGATED = S(2, "He PRP _ He _", "did VBD _ did _", "not RB not _ _", "come VB _ come come")


def test_end_of_file_rule_drops_the_last_token_line():
    no_final_blank = conll(S(1, "Yes UH ***", ". . ***"), LAST_NEGATED, final_blank=False)
    result = score(no_final_blank, no_final_blank)
    # "come" (scope and event) is never read: 2 scope tokens, no event
    assert row(result, "Scope tokens(no cue match)") == (2, 2, 2, 0, 0, *PERFECT)
    assert row(result, "Negated(no cue match)") == (0, 0, 0, 0, 0, *ZERO)
    assert sentence_stats(result) == (2, 1, 0, "100.00", "100.00")
    with_final_blank = conll(S(1, "Yes UH ***", ". . ***"), LAST_NEGATED)
    result = score(with_final_blank, with_final_blank)
    assert row(result, "Scope tokens(no cue match)") == (3, 3, 3, 0, 0, *PERFECT)
    assert row(result, "Negated(no cue match)") == (1, 1, 1, 0, 0, *PERFECT)
    corrected = score(no_final_blank, no_final_blank, corrected=True)
    assert row(corrected, "Scope tokens(no cue match)") == (3, 3, 3, 0, 0, *PERFECT)
    # a system file longer than gold: the gold's end triggers the rule all the same
    result = score(no_final_blank, no_final_blank + "\n" + "\n".join(S(3, "Extra NN ***")) + "\n")
    assert row(result, "Scope tokens(no cue match)") == (2, 2, 2, 0, 0, *PERFECT)


def test_end_of_file_rule_on_a_one_token_last_sentence():
    text = conll(
        S(1, "No DT No _ _", "way NN _ way _"), S(2, "Fine JJ ***", ". . ***"), S(3, "Yes UH ***"), final_blank=False
    )
    # the last evaluation has no line: the official script counts it as a sentence "with negation"
    result = score(text, text)
    assert sentence_stats(result) == (3, 2, 0, "100.00", "100.00")
    assert sentence_stats(score(text, text, corrected=True)) == (3, 1, 0, "100.00", "100.00")
    # after a system sentence with negation the empty evaluation aborts the official script
    fatal = conll(
        S(1, "Fine JJ ***", ". . ***"), S(2, "No DT No _ _", "way NN _ way _"), S(3, "Yes UH ***"), final_blank=False
    )
    with pytest.raises(InputFormatError, match="empty sentence after a sentence with negation"):
        score(fatal, fatal)


def test_rounding_is_printf_half_even_and_f1_uses_the_rounded_strings():
    words = [f"w{i} NN _ {{}} _" for i in range(32)]
    gold = conll(S(1, "not RB not _ _", words[0].format("w0"), *(w.format("_") for w in words[1:])))
    system = conll(S(1, "not RB not _ _", *(w.format(f"w{i}") for i, w in enumerate(words))))
    result = score(gold, system)
    # P = 1/32 * 100 = 3.125 exactly -> "3.12" (half-up would give 3.13);
    # F1 = 2*3.12*100/103.12 = 6.0512 -> "6.05", while from unrounded values 6.0606 -> "6.06"
    assert row(result, "Scope tokens(no cue match)") == (1, 32, 1, 31, 0, "3.12", "100.00", "6.05")
    assert row(result, "Scopes(cue match)") == (1, 1, 0, 0, 1, *ZERO)  # wrong scope on a right cue: fn only
    corrected = score(gold, system, corrected=True)
    assert row(corrected, "Scope tokens(no cue match)") == (1, 32, 1, 31, 0, "3.12", "100.00", "6.06")
    assert row(corrected, "Scopes(cue match)") == (1, 1, 0, 1, 1, *ZERO)


def test_percent_correct_sentences_arithmetic():
    negated = S(1, "No DT No _ _", "way NN _ way _")
    gold = conll(negated, S(2, "Fine JJ ***", ". . ***"), S(3, "Not RB Not _ _", "now RB _ now _"))
    system = conll(
        S(1, "No DT ***", "way NN ***"), S(2, "Fine JJ ***", ". . ***"), S(3, "Not RB Not _ _", "now RB _ now _")
    )
    # 1 error of 3 sentences: e = 33.333 -> "33.33", 100 - 33.33 = 66.67; 1 of 2 negation sentences: 50.00
    assert sentence_stats(score(gold, system)) == (3, 2, 1, "66.67", "50.00")


def test_table_layout_widens_but_keeps_separators():
    result = score(conll(BY_NO_MEANS), conll(BY_NO_MEANS_PARTIAL))
    table = result.format_table().splitlines()
    assert (
        table[3]
        == "Cues:                            1 |      1 |    0 |    0 |    1 |          0.00 |       0.00 |    0.00"
    )
    assert (
        table[5]
        == "Scopes(no cue match):            1 |      1 |    0 |    0 |    0 |        100.00 |     100.00 |  100.00"
    )
    assert len(table) == 22 and table[-1] == "-" * 104
    as_json = result.to_dict()
    assert as_json["rows"][2] == {
        "row": "Scopes(no cue match)",
        "gold": 1,
        "system": 1,
        "tp": 0,
        "fp": 0,
        "fn": 0,
        "tp_scored": 1,
        "precision": 100.0,
        "recall": 100.0,
        "f1": 100.0,
    }
    assert as_json["sentences"]["negation_sentences_with_errors"] == 1


# ------------------------------------------------------------------------------------------------
# malformed input (spec 2.1, 2.2, 11)

GOLD = conll(S(1, "No DT No _ _", "way NN _ way _", ". . _ _ _"), S(2, "Fine JJ ***", "then RB ***", ". . ***"))


def replace_line(text: str, number: int, new: str | None) -> str:
    all_lines = text.split("\n")
    if new is None:
        del all_lines[number - 1]
    else:
        all_lines[number - 1] = new
    return "\n".join(all_lines)


FATAL = [
    (
        "word differs",
        replace_line(GOLD, 2, "c\t1\t1\tway2\tway\tNN\t*\t_\tway\t_"),
        2,
        "mismatch with the gold file in the word",
    ),
    ("token number differs", replace_line(GOLD, 2, "c\t1\t5\tway\tway\tNN\t*\t_\tway\t_"), 2, "in the token number"),
    ("token line deleted", replace_line(GOLD, 2, None), 2, "mismatch"),
    (
        "token line inserted",
        replace_line(GOLD, 2, "c\t1\t1\tway\tway\tNN\t*\t_\tway\t_\nc\t1\t1\tway\tway\tNN\t*\t_\tway\t_"),
        3,
        "mismatch",
    ),
    ("shorter", "\n".join(GOLD.split("\n")[:4]) + "\n", 5, "shorter than the gold file"),
    ("blank where gold has a token", replace_line(GOLD, 3, ""), 3, "mismatch"),
    (
        "token where gold has a blank",
        replace_line(GOLD, 4, "c\t1\t3\t.\t.\t.\t*\t_\t_\t_"),
        4,
        "blank line in the gold file is not",
    ),
    ("CRLF", GOLD.replace("\n", "\r\n"), 4, "CRLF"),
    (
        "one line with other field count",
        replace_line(GOLD, 2, "c\t1\t1\tway\tway\tNN\t*\t_\tway\t_\t_\t_\t_"),
        2,
        "inconsistent number of columns",
    ),
    (
        "9 fields",
        "\n".join(x.rsplit("\t", 1)[0] if i < 3 else x for i, x in enumerate(GOLD.split("\n"))),
        1,
        "incorrect number of columns: 9",
    ),
    ("11 fields", GOLD.replace("\t***", "\t***\tx\ty\tz"), 5, "incorrect number of columns: 11"),
    ("12 fields", GOLD.replace("\t***", "\t***\ta\tb\tc\td"), 5, "incorrect number of columns: 12"),
    (
        "*** next to another value inside",
        replace_line(GOLD, 7, "c\t2\t2\t.\t.\t.\t*\t_"),
        7,
        "inconsistent column 8: token 1 has ***",
    ),
]


@pytest.mark.parametrize("strict", [True, False])
@pytest.mark.parametrize(("case", "system", "line", "problem"), FATAL, ids=[f[0] for f in FATAL])
def test_fatal_system_files(case, system, line, problem, strict):
    with pytest.raises(InputFormatError) as info:
        score(GOLD, system, strict=strict)
    assert info.value.path == "system.txt"
    assert info.value.line == line
    assert problem in info.value.problem


@pytest.mark.parametrize("strict", [True, False])
def test_triple_without_cue_is_fatal(strict):
    system = GOLD.replace("No\t_\t_", "_\tNo\t_")
    with pytest.raises(InputFormatError, match="lacks a negation cue|has no cue cell") as info:
        score(GOLD, system, strict=strict)
    assert info.value.path == "system.txt" and info.value.line == 1


def test_gold_without_negation_is_fatal_unless_corrected():
    gold = conll(S(1, "Fine JJ ***", ". . ***"))
    with pytest.raises(InputFormatError, match="no sentence with negation") as info:
        score(gold, gold)
    assert info.value.path == "gold.txt"
    assert sentence_stats(score(gold, gold, corrected=True)) == (1, 0, 0, "100.00", "100.00")


SEVEN_FIELDS = "\n".join("\t".join(line.split("\t")[:7]) for line in GOLD.split("\n"))


def test_seven_field_system_rejected_by_default_accepted_leniently():
    with pytest.raises(InputFormatError, match="no negation columns") as info:
        score(GOLD, SEVEN_FIELDS)
    assert info.value.line == 1
    # official behaviour: gold instances counted nowhere; the gold sentence without negation is an error
    result = score(GOLD, SEVEN_FIELDS, strict=False)
    assert row(result, "Cues") == (1, 0, 0, 0, 0, *ZERO)
    assert row(result, "Full negation") == (1, 0, 0, 0, 0, *ZERO)
    assert sentence_stats(result) == (2, 1, 0, "50.00", "100.00")
    # corrected: the missed gold instance is a false negative
    corrected = score(GOLD, SEVEN_FIELDS, strict=False, corrected=True)
    assert row(corrected, "Cues") == (1, 0, 0, 0, 1, *ZERO)


def test_first_token_star_slips_through_leniently_only():
    system = replace_line(
        replace_line(replace_line(GOLD, 1, "c\t1\t0\tNo\tno\tDT\t*\t***"), 2, "c\t1\t1\tway\tway\tNN\t*\tx"),
        3,
        "c\t1\t2\t.\t.\t.\t*\tx",
    )
    with pytest.raises(InputFormatError, match="8 fields but field 8 is 'x'"):
        score(GOLD, system)
    # officially: interior token 1 has no ***, so no check; the first line's *** means "no negation"
    result = score(GOLD, system, strict=False)
    assert row(result, "Cues") == (1, 0, 0, 0, 1, *ZERO)


def test_strict_rejects_empty_sentences_in_gold():
    gold = GOLD.replace("\n\n", "\n\n\n")
    with pytest.raises(InputFormatError, match="two consecutive empty lines") as info:
        score(gold, gold)
    assert info.value.path == "gold.txt" and info.value.line == 5


def test_empty_sentence_counts_as_negation_sentence_leniently():
    gold = conll(S(1, "Fine JJ ***", ". . ***")).replace("\n\n", "\n\n\n") + "\n".join(S(2, "No DT No _ _")) + "\n\n"
    result = score(gold, gold, strict=False)
    # sentences: S1, the empty one (counted "with negation"), S2
    assert sentence_stats(result) == (3, 2, 0, "100.00", "100.00")


def test_longer_system_file_is_accepted():
    result = score(GOLD, GOLD + "\n".join(S(3, "Extra NN ***")) + "\n")
    assert row(result, "Cues") == (1, 1, 1, 0, 0, *PERFECT)
    assert result.counts.sentences == 2


@pytest.mark.parametrize("strict", [True, False])
def test_empty_lines_after_the_gold_end_are_ignored(strict):
    # differential finding: the official scorer never reads system lines past the gold's last line, so a
    # system file ending in extra empty lines scores exactly like the gold itself (strict used to reject it
    # as an "empty sentence"): Cues 1/1 tp 1, 2 sentences, 1 negation sentence, no error
    result = score(GOLD, GOLD + "\n\n", strict=strict)
    assert row(result, "Cues") == (1, 1, 1, 0, 0, *PERFECT)
    assert sentence_stats(result) == (2, 1, 0, "100.00", "100.00")


@pytest.mark.parametrize("strict", [True, False])
def test_trailing_tab_is_dropped_as_the_official_scorer_does(strict):
    # differential finding: Perl's split drops trailing empty fields (spec 2.1), so "...\tway\t_\t" is the
    # 10-field line "...\tway\t_" and the file scores like the gold (strict used to call it a stray tab);
    # an empty field inside the line is still rejected in strict mode (it would be read as a cell "")
    system = replace_line(GOLD, 2, "c\t1\t1\tway\tway\tNN\t*\t_\tway\t_\t")
    result = score(GOLD, system, strict=strict)
    assert row(result, "Scopes(cue match)") == (1, 1, 1, 0, 0, *PERFECT)
    assert row(result, "Scope tokens(no cue match)") == (1, 1, 1, 0, 0, *PERFECT)
    if strict:
        with pytest.raises(InputFormatError, match="field 9 is empty"):
            score(GOLD, replace_line(GOLD, 2, "c\t1\t1\tway\tway\tNN\t*\t_\t\t_"))


def test_eight_field_line_without_stars_is_misparsed_leniently():
    system = replace_line(
        replace_line(replace_line(GOLD, 1, "c\t1\t0\tNo\tno\tDT\t*\tNo"), 2, "c\t1\t1\tway\tway\tNN\t*\t_"),
        3,
        "c\t1\t2\t.\t.\t.\t*\t_",
    )
    with pytest.raises(InputFormatError, match="8 fields but field 8 is 'No'"):
        score(GOLD, system)
    # officially each line reads as one triple whose missing scope and event cells are "undef", which is
    # not "_": cue No@0, scope ""@0 and ""@1 (the "." is punctuation), event on all three tokens.
    # Cue pair equal: tp_cue; scope way@1 vs ""@0,""@1: fn_scope, fn_sa, fn_tok 1, fp_tok 2;
    # the event (gold has none) is an unpaired system event: fp_ev
    result = score(GOLD, system, strict=False)
    assert row(result, "Cues") == (1, 1, 1, 0, 0, *PERFECT)
    assert row(result, "Scopes(cue match)") == (1, 1, 0, 0, 1, *ZERO)
    assert row(result, "Scope tokens(no cue match)") == (1, 2, 0, 2, 1, *ZERO)
    assert row(result, "Negated(no cue match)") == (0, 1, 0, 1, 0, *ZERO)


# ------------------------------------------------------------------------------------------------
# invariants of spec 5.1-5.3 on randomly perturbed (well-formed) system files


def perturbed_system(gold_text: str, seed: int) -> str:
    """The gold file with cells flipped, triples dropped, added, swapped or removed altogether."""
    rng = random.Random(seed)
    out = []
    for block in gold_text.rstrip("\n").split("\n\n"):
        rows = [line.split("\t") for line in block.split("\n")]
        base = [fields[:7] for fields in rows]
        triples = (
            []
            if rows[0][7] == "***"
            else [[f[7 + 3 * k : 10 + 3 * k] for f in rows] for k in range((len(rows[0]) - 7) // 3)]
        )
        if rng.random() < 0.15:
            triples.append([["_", "_", "_"] for _ in rows])
        if len(triples) > 1 and rng.random() < 0.2:
            triples.pop(rng.randrange(len(triples)))
        if len(triples) > 1 and rng.random() < 0.2:
            triples.reverse()
        if triples and rng.random() < 0.05:
            triples = []
        for triple in triples:
            for index, cells in enumerate(triple):
                word = base[index][3]
                for column in range(3):
                    if rng.random() < 0.04:
                        cells[column] = "_" if cells[column] != "_" else (word[:2] if rng.random() < 0.3 else word)
            if all(cells[0] == "_" for cells in triple):
                index = rng.randrange(len(rows))
                triple[index][0] = base[index][3]
        lines = []
        for index, fields in enumerate(base):
            extra = ["***"] if not triples else [cell for triple in triples for cell in triple[index]]
            lines.append("\t".join(fields + extra))
        out.append("\n".join(lines))
    return "\n\n".join(out) + "\n\n"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_counting_identities_on_perturbed_files(seed):
    text = "".join(shared_data_path("cd-sco", name).read_text(encoding="utf-8") for name in TEST_FILES)
    system = perturbed_system(text, seed)
    official = score(text, system).counts
    c = official
    assert c.tp_cue + c.fn_cue == c.cues_g and c.tp_full + c.fn_full == c.cues_g
    assert c.tp_scope + c.fn_scope == c.scopes_g and c.tp_sa + c.fn_sa == c.scopes_g
    assert c.tp_tok + c.fn_tok == c.scope_tokens_g and c.tp_tok + c.fp_tok == c.scope_tokens_s
    assert c.fp_cue == c.fp_full
    assert c.tp_ev + c.fn_ev <= c.negated_g and c.tp_ev + c.fp_ev <= c.negated_s
    assert 0 < c.negation_error_sentences <= c.error_sentences
    fixed = score(text, system, corrected=True).counts
    assert fixed.tp_cue + fixed.fp_cue == fixed.cues_s and fixed.tp_full + fixed.fp_full == fixed.cues_s
    assert fixed.tp_scope + fixed.fp_scope == fixed.scopes_s and fixed.tp_sa + fixed.fp_sa == fixed.scopes_s
    assert fixed.tp_ev + fixed.fn_ev == fixed.negated_g and fixed.tp_ev + fixed.fp_ev == fixed.negated_s
    assert (fixed.tp_cue, fixed.tp_scope, fixed.tp_tok, fixed.error_sentences) == (
        c.tp_cue,
        c.tp_scope,
        c.tp_tok,
        c.error_sentences,
    )
    # NIS on the same files: cue pairs never exceed either count
    nis = score_nis(lines(text, "g"), lines(system, "s")).counts
    assert nis.pairs <= min(nis.gold_instances, nis.system_instances) and nis.gold_instances == c.cues_g
