"""CD-neg: coordinated negation ("neither ... nor") split into one instance per negator."""

from __future__ import annotations

from negkit.cli import main
from negkit.resolution.corpora.cdneg import constituent_spans, coordination_end, is_coordinated, split_instance
from negkit.resolution.corpora.cdsco import read_cdsco
from negkit.resolution.instances import NegationInstance, Token, TokenPart
from negkit.resolution.splits import load_split

# cardboard 11 (end): "neither the country nor the sea presented the slightest attraction to him ."
WORDS = "neither the country nor the sea presented the slightest attraction to him .".split()
PARSE = ["(NP*", "(NP*", "*)", "*", "(NP*", "*))", "(VP*", "(NP*", "*", "*)", "(PP*", "(NP*))", "*)"]
TOKENS = [Token(word, pos="NN", syntax=fragment) for word, fragment in zip(WORDS, PARSE)]


def parts(*indices: int) -> tuple[TokenPart, ...]:
    return tuple(TokenPart(i, WORDS[i], 0) for i in indices)


INSTANCE = NegationInstance(parts(0, 3), parts(1, 2, 4, 5, 6, 7, 8, 9, 10, 11), parts(6))


def test_constituents_of_a_parse_fragment_column():
    assert constituent_spans(TOKENS) == [(1, 2), (4, 5), (0, 5), (7, 9), (11, 11), (10, 11), (6, 12)]
    assert coordination_end(TOKENS, [0, 3]) == 5
    broken = [Token(w, syntax="(NP*") for w in WORDS]
    assert constituent_spans(broken) is None
    assert coordination_end(broken, [0, 3]) == len(WORDS) - 1  # no parse: to the end of the sentence


def test_each_negator_gets_its_conjunct_and_the_shared_material():
    neither, nor = split_instance(INSTANCE, TOKENS)
    assert neither == NegationInstance(parts(0), parts(1, 2, 6, 7, 8, 9, 10, 11), parts(6))
    assert nor == NegationInstance(parts(3), parts(4, 5, 6, 7, 8, 9, 10, 11), parts(6))


def test_only_coordinations_of_negators_are_split():
    assert is_coordinated(INSTANCE, TOKENS)
    by_no_means = [Token("by"), Token("no"), Token("means")]
    assert not is_coordinated(
        NegationInstance(tuple(TokenPart(i, t.text, 0) for i, t in enumerate(by_no_means))), by_no_means
    )
    single = NegationInstance(parts(3))
    assert split_instance(single, TOKENS) == [single]


def test_cd_neg_counts_on_the_released_files(shared_data):
    counts = {
        split: sum(len(s.instances) for s in load_split("cd-neg", split, shared_data))
        for split in ("train", "dev", "test")
    }
    assert counts == {"train": 987, "dev": 176, "test": 269}  # 984 / 173 / 264 in CD-SCO; 1,421 -> 1,432
    circle = read_cdsco(shared_data / "cd-sco" / "SEM-2012-SharedTask-CD-SCO-test-circle-GOLD.txt", cd_neg=True)
    sentence = next(s for s in circle if s.sentence_id == "circle01/50")  # neither Mr. Warren , nor I , nor the girl
    assert [[p.text for p in i.cue] for i in sentence.instances] == [["neither"], ["nor"], ["nor"]]
    assert [p.text for p in sentence.instances[1].scope] == ["I", ",", "has", "once", "set", "eyes", "upon", "him"]


def test_punct_bl_on_the_cd_neg_test_set(shared_data, tmp_path, capsys):
    out = tmp_path / "bl.txt"
    assert (
        main(["resolution", "baseline", "--corpus", "cd-neg", "--data", str(shared_data), "--out", str(out), "--score"])
        == 0
    )
    row = capsys.readouterr().out.splitlines()[2].rstrip(" |").split(" | ")
    # Cues-B, SCM, SCM-B, scope tokens P/R/F1, NIS cue F1, NIS_tok P/R/F1 (paper: 100.0 17.0 9.9 89.8/62.0/73.3
    # and NIS_tok 93.3/58.8/72.1 on its re-annotated CD-neg test set)
    assert row[4:14] == ["100.0", "18.6", "10.8", "92.2", "62.9", "74.8", "100.0", "94.7", "59.2", "72.8"]
