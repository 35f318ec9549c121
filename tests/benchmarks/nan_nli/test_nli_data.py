"""NaN-NLI and ScoNe readers: the real files (read in place) and malformed input."""

from __future__ import annotations

from collections import Counter

import pytest
from conftest import shared_data_path

from negkit.benchmarks.nan_nli.data import read_nan_nli
from negkit.benchmarks.scone.data import SCONE_CONDITIONS, read_scone, read_scone_condition
from negkit.errors import InputFormatError

NAN_HEADER = (
    "premise,hypothesis,label,P-Verbal,P-Non-verbal,P-Analytic,P-Synthetic,P-Clausal,P-Sub-clausal,P-Ordinary,"
    "P-Meta-linguistic,Unnamed: 13,H-Verbal,H-Non-verbal,H-Analytic,H-Synthetic,H-Clausal,H-Sub-clausal,H-Ordinary,"
    "H-Meta-linguistic,Unnamed: 22,Construction,Construction Subtype,Indefinite quantifier change,"
    "Negator addition or deletion,Negator position change,Clause or sub-clause deletion,Negator token change,"
    "Comparative quantifier change,Focus particle change,Lexical change,Numerical quantifier change,"
    "Syntactical changes,Quantification\n"
)
NAN_ROW = "Not all cats purr.,Some cats do not purr.,{label},0,1,1,0,0,1,1,0,,{h},,not + quantifier,not all,1,2,0,0,0,0,0,0,0,0,1\n"
H_VERBAL = "1.0,0.0,1.0,0.0,1.0,0.0,1.0,0.0"
H_BLANK = ",,,,,,,"


def test_nan_nli_real_file_counts():
    items = read_nan_nli(shared_data_path("nan-nli", "nan.csv"))
    assert len(items) == 258
    assert Counter(item.label for item in items) == {"contradiction": 117, "entailment": 97, "neutral": 44}
    assert len({item.premise_id for item in items}) == 48
    assert sum(item.quantification for item in items) == 133
    assert len({item.construction for item in items}) == 13
    assert len({item.construction_subtype for item in items}) == 18
    assert sum(not item.hypothesis_negation for item in items) == 86


def test_nan_nli_row_parsing(tmp_path):
    path = tmp_path / "nan.csv"
    path.write_text(
        NAN_HEADER + NAN_ROW.format(label="entailment", h=H_VERBAL) + NAN_ROW.format(label="neutral", h=H_BLANK)
    )
    first, second = read_nan_nli(path)
    assert first.premise_negation == {"Non-verbal", "Analytic", "Sub-clausal", "Ordinary"}
    assert first.hypothesis_negation == {"Verbal", "Analytic", "Clausal", "Ordinary"}
    assert second.hypothesis_negation == frozenset()
    # "Negator addition or deletion" = 2 counts as applied
    assert first.operations == ("Indefinite quantifier change", "Negator addition or deletion")
    assert first.operation_counts == (("Indefinite quantifier change", 1), ("Negator addition or deletion", 2))
    assert first.operation_count("Negator addition or deletion") == 2 and first.operation_count("Lexical change") == 0
    assert first.premise_id == second.premise_id == "nan-p00"
    assert first.quantification


def test_nan_nli_bad_label_names_file_line_and_column(tmp_path):
    path = tmp_path / "nan.csv"
    path.write_text(
        NAN_HEADER + NAN_ROW.format(label="entailment", h=H_VERBAL) + NAN_ROW.format(label="maybe", h=H_VERBAL)
    )
    with pytest.raises(InputFormatError) as error:
        read_nan_nli(path)
    assert error.value.line == 3 and "'label'" in str(error.value) and str(path) in str(error.value)


def test_nan_nli_bad_flag_and_missing_column(tmp_path):
    path = tmp_path / "nan.csv"
    path.write_text(NAN_HEADER + NAN_ROW.format(label="entailment", h=H_VERBAL).replace(",0,1,1,0,", ",x,1,1,0,", 1))
    with pytest.raises(InputFormatError, match="P-Verbal"):
        read_nan_nli(path)
    path.write_text("premise,hypothesis,label\na,b,neutral\n")
    with pytest.raises(InputFormatError, match="missing column"):
        read_nan_nli(path)


def test_scone_real_test_split():
    items = read_scone(shared_data_path("scone"), "test")
    assert len(items) == 1200
    assert Counter(item.condition for item in items) == {condition: 200 for condition in SCONE_CONDITIONS}
    by_condition = {(item.condition, item.row): item for item in items}
    # one_scoped uses sentence1/sentence2/gold_label: row 0 is the negated original pair
    assert by_condition[("one_scoped", 0)].premise == "the man does not own a dog"
    assert by_condition[("one_scoped", 0)].label == "neutral"
    # the others use the *_edited columns
    assert by_condition[("no_negation", 0)].premise == "the man owns a dog"
    assert by_condition[("no_negation", 0)].label == "entailment"
    # one_scoped takes the group index of the aligned row
    assert all(
        by_condition[("one_scoped", r)].group_index == by_condition[("two_scoped", r)].group_index for r in range(200)
    )


SCONE_HEADER = ",sentence1,sentence2,gold_label,sentence1_lex,sentence2_lex,group_index,sentence1_edited,sentence2_edited,gold_label_edited\n"


def test_scone_condition_columns_and_errors(tmp_path):
    path = tmp_path / "two_scoped.csv"
    path.write_text(SCONE_HEADER + "0,a,b,neutral,x,y,3,A e,B e,entailment\n")
    (item,) = read_scone_condition(path)
    assert (item.premise, item.hypothesis, item.label, item.group_index) == ("A e", "B e", "entailment", 3)
    assert item.item_id == "scone-test-two_scoped-0000"
    path.write_text(SCONE_HEADER + "0,a,b,neutral,x,y,3,A e,B e,entailment\n1,a,b,neutral,x,y,zz,A,B,neutral\n")
    with pytest.raises(InputFormatError) as error:
        read_scone_condition(path)
    assert error.value.line == 3 and "group_index" in str(error.value)
    path.write_text(SCONE_HEADER + "0,a,b,neutral,x,y,3,A e\n")
    with pytest.raises(InputFormatError, match="columns"):
        read_scone_condition(path)


def test_scone_missing_split_is_reported(tmp_path):
    with pytest.raises(InputFormatError, match="no ScoNe-NLI"):
        read_scone(tmp_path, "test")
