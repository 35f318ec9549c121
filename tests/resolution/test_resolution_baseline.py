"""Punct-BL on hand-built sentences (scopes worked out by hand from spec section 9)."""

from __future__ import annotations

from negkit.resolution.baseline import PunctuationBaseline, is_punctuation_tag, punctuation_scope
from negkit.resolution.instances import NegationInstance, ResolutionSentence, Token, TokenPart


def sentence(words_and_tags: str, cues: list[list[tuple[int, str]]]) -> ResolutionSentence:
    """``"He/PRP did/VBD ..."`` plus cue parts per instance -> a gold sentence with empty scopes."""
    tokens = [Token(text=w, pos=t) for w, t in (item.rsplit("/", 1) for item in words_and_tags.split())]
    instances = [
        NegationInstance(cue=tuple(TokenPart(i, text, tokens[i].text.find(text)) for i, text in cue)) for cue in cues
    ]
    return ResolutionSentence(tokens=tokens, instances=instances)


def scope_of(predicted: ResolutionSentence, k: int = 0) -> list[tuple[int, str]]:
    return [(part.index, part.text) for part in predicted.instances[k].scope]


def test_punctuation_tags_follow_the_starsem_rule():
    for tag in [",", ".", ":", "``", "''", "-LRB-", "-RRB-"]:
        assert is_punctuation_tag(tag)
    for tag in ["POS", "NN", "JJ", "VB", "PRP$"]:
        assert not is_punctuation_tag(tag)


def test_scope_runs_right_from_the_cue_to_the_next_punctuation():
    gold = sentence("He/PRP did/VBD n't/RB say/VB anything/NN ,/, but/CC he/PRP left/VBD ./.", [[(2, "n't")]])
    (predicted,) = PunctuationBaseline().fit([gold]).predict([gold])
    assert scope_of(predicted) == [(3, "say"), (4, "anything")]
    assert predicted.instances[0].cue == gold.instances[0].cue
    assert predicted.instances[0].event == ()


def test_discontinuous_cue_parts_are_skipped_and_words_between_them_are_in_scope():
    gold = sentence("Neither/CC he/PRP nor/CC she/PRP came/VBD ./.", [[(0, "Neither"), (2, "nor")]])
    (predicted,) = PunctuationBaseline().predict([gold])
    assert scope_of(predicted) == [(1, "he"), (3, "she"), (4, "came")]


def test_affix_cue_token_gets_no_scope_cell():
    gold = sentence("It/PRP is/VBZ impossible/JJ to/TO say/VB !/.", [[(2, "im")]])
    (predicted,) = PunctuationBaseline().predict([gold])
    assert scope_of(predicted) == [(3, "to"), (4, "say")]


def test_cue_followed_by_punctuation_has_empty_scope_and_each_instance_is_separate():
    gold = sentence("No/DT ,/, I/PRP never/RB saw/VBD him/PRP", [[(0, "No")], [(3, "never")]])
    (predicted,) = PunctuationBaseline().predict([gold])
    assert scope_of(predicted, 0) == []
    assert scope_of(predicted, 1) == [(4, "saw"), (5, "him")]


def test_tokens_without_pos_tags_use_the_word_to_decide_punctuation():
    tokens = [Token("not"), Token("here"), Token(";"), Token("there")]
    assert punctuation_scope(tokens, (TokenPart(0, "not"),)) == (TokenPart(1, "here"),)


def test_baseline_cli_on_the_cdsco_test_set_scores_as_documented(tmp_path):
    from conftest import shared_data_path

    from negkit.cli import main
    from negkit.resolution.corpora.cdsco import read_cdsco, read_lines
    from negkit.resolution.evaluate import score_sentences
    from negkit.resolution.metrics.nis import score_nis
    from negkit.resolution.metrics.starsem import score_starsem

    folder = shared_data_path("cd-sco")
    gold = [
        folder / "SEM-2012-SharedTask-CD-SCO-test-cardboard-GOLD.txt",
        folder / "SEM-2012-SharedTask-CD-SCO-test-circle-GOLD.txt",
    ]
    concatenated_gold = tmp_path / "test-gold.txt"
    concatenated_gold.write_bytes(gold[0].read_bytes() + gold[1].read_bytes())
    system = tmp_path / "test-system.txt"
    assert main(["resolution", "baseline", str(concatenated_gold), "--out", str(system)]) == 0

    starsem = score_starsem(read_lines(concatenated_gold), read_lines(system))
    cues_b, scm, scm_b, tokens = (
        starsem.row(name)
        for name in ("Cues B", "Scopes(cue match)", "Scopes B (cue match)", "Scope tokens(no cue match)")
    )
    assert (cues_b.tp, cues_b.f1) == (264, "100.00")
    assert (scm.tp, scm.fn, scm.system, scm.f1) == (25, 224, 223, "18.25")
    assert scm_b.f1 == "10.59"
    assert (tokens.gold, tokens.system, tokens.tp) == (1805, 1222, 1134)
    assert (tokens.precision, tokens.recall, tokens.f1) == ("92.80", "62.83", "74.93")
    nis_result = score_nis(read_lines(concatenated_gold), read_lines(system))
    nis = nis_result.scores.nis_tok
    assert (round(nis.precision * 100, 1), round(nis.recall * 100, 1), round(nis.f1 * 100, 1)) == (95.3, 59.3, 73.1)
    # NIS_ex two ways (docs/scorer.md): literally over all 264 instances, 40 exact (25 non-empty + 15 empty/empty)
    counts, scores = nis_result.counts, nis_result.scores
    assert (counts.exact_scopes, counts.exact_nonempty_scopes) == (40, 25)
    assert round(scores.nis_ex.f1 * 100, 1) == 15.2
    # the paper's column (= *SEM Scopes B, cue match): 25 of 223 system and of 249 gold non-empty scopes
    assert (counts.system_nonempty_scopes, counts.gold_nonempty_scopes) == (223, 249)
    ex = scores.nis_ex_nonempty
    assert (f"{ex.precision * 100:.2f}", f"{ex.recall * 100:.2f}", f"{ex.f1 * 100:.2f}") == ("11.21", "10.04", "10.59")
    assert f"{ex.f1 * 100:.2f}" == scm_b.f1

    # the library path (sentences scored in memory) gives the same numbers
    sentences = [s for path in gold for s in read_cdsco(path)]
    from negkit.resolution.baseline import PunctuationBaseline

    in_memory = score_sentences(sentences, PunctuationBaseline().predict(sentences)).headline()
    assert in_memory["scm_f1"] == 18.25 and in_memory["scope_tokens_f1"] == 74.93
