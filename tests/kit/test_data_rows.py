"""Declared row types (negkit.kit.data.rows): hand-written files in each format read against a row type, and each
way a row can be bad as one ``FILE:LINE: problem`` error naming the field, its text checked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal

import pytest
from pydantic import Field

from negkit.errors import InputFormatError
from negkit.kit.data.rows import Choices, DataRow, Text, data_file, index_of, read_rows, rows_reader


class Row(DataRow):
    id: str
    question: Text
    answers: Choices
    gold: Annotated[int, index_of("answers")]
    label: Literal["negated", "affirmative"] = "negated"
    tags: Annotated[list[str], Field(max_length=2)] = []


GOOD = '{"id": "q1", "question": "Is it not red?", "answers": ["yes", "no"], "gold": 1, "extra": 3}'
GOOD_2 = '{"id": "q2", "question": "Is it blue?", "answers": ["yes", "no"], "gold": 0, "label": "affirmative"}'


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def rows(path: Path, row_type: type[DataRow] = Row, **options) -> list[tuple[int, Any]]:
    return list(read_rows(path, row_type, **options))


def error(path: Path, **options) -> str:
    with pytest.raises(InputFormatError) as caught:
        rows(path, **options)
    return str(caught.value)


def test_json_lines(tmp_path):
    path = write(tmp_path / "q.jsonl", f"{GOOD}\n\n{GOOD_2}")  # a blank line, no final line feed
    (line, first), (line_2, second) = rows(path)
    assert (line, first.id, first.answers, first.gold, first.label) == (1, "q1", ("yes", "no"), 1, "negated")
    assert (line_2, second.label) == (3, "affirmative")
    assert first.question == "Is it not red?" and not hasattr(first, "extra")


def test_json_array_and_an_object_holding_one(tmp_path):
    array = write(tmp_path / "a.json", f"[\n  {GOOD},\n\n  {GOOD_2}\n]\n")
    assert [(line, row.id) for line, row in rows(array)] == [(2, "q1"), (4, "q2")]
    held = write(tmp_path / "b.json", f'{{"version": "1.0", "meta": {{"n": [2]}},\n "data": [{GOOD},\n{GOOD_2}]}}')
    assert [(line, row.id) for line, row in rows(held)] == [(2, "q1"), (3, "q2")]
    two = write(tmp_path / "c.json", f'{{"train": [{GOOD}],\n"test": [\n{GOOD_2}]}}')
    assert [(line, row.id) for line, row in rows(two, key="test")] == [(3, "q2")]
    assert "expected an object holding one list of objects, found keys ['test', 'train']" in error(two)


def test_a_json_file_of_one_object_per_line_is_json_lines(tmp_path):
    path = write(tmp_path / "q.json", f"{GOOD}\n{GOOD_2}\n")
    assert [(line, row.id) for line, row in rows(path)] == [(1, "q1"), (2, "q2")]
    assert [line for line, _ in rows(write(tmp_path / "one.json", GOOD + "\n"))] == [1]


def test_csv_cells_are_converted_and_lines_counted(tmp_path):
    text = (
        ',id,question,answers,gold\n0,q1,"Is it\nnot red?","[\'yes\', \'no\']",1\n\n1,q2,Is it?,"[""a"", ""b""]", 0\n'
    )
    (line, first), (line_2, second) = rows(write(tmp_path / "q.csv", text))
    assert (line, first.question, first.answers, first.gold) == (3, "Is it\nnot red?", ("yes", "no"), 1)
    assert (line_2, second.answers, second.gold) == (5, ("a", "b"), 0)


def test_tsv(tmp_path):
    path = write(
        tmp_path / "q.tsv", 'id\tquestion\tanswers\tgold\tlabel\r\nq1\t"Quoted" text\t["yes", "no"]\t1\tnegated\r\n'
    )
    assert [(line, row.question, row.label) for line, row in rows(path)] == [(2, '"Quoted" text', "negated")]


def test_format_given_overrides_the_name(tmp_path):
    path = write(tmp_path / "q.txt", "id\tquestion\tanswers\tgold\nq1\tQ?\t['a', 'b']\t0\n")
    assert [row.id for _, row in rows(path, format="tsv")] == ["q1"]
    assert "cannot tell the format from the name" in error(path)


@pytest.mark.parametrize(
    "line, problem",
    [
        # missing fields, all named at once
        ('{"id": "q3", "answers": ["a", "b"]}', "missing fields 'question', 'gold'"),
        ('{"id": "q3", "question": "Q?", "answers": ["a", "b"]}', "missing field 'gold'"),
        # wrong types: JSON values must have the declared type as they are
        ('{"id": 3, "question": "Q?", "answers": ["a", "b"], "gold": 0}', "field 'id': expected a string, found 3"),
        (
            '{"id": "q3", "question": "Q?", "answers": ["a", "b"], "gold": "1"}',
            "field 'gold': expected a whole number, found '1'",
        ),
        (
            '{"id": "q3", "question": "Q?", "answers": ["a", "b"], "gold": true}',
            "field 'gold': expected a whole number, found True",
        ),
        (
            '{"id": "q3", "question": "Q?", "answers": ["a", "b"], "gold": 0, "tags": ["x", 2]}',
            "field 'tags[1]': expected a string, found 2",
        ),
        (
            '{"id": "q3", "question": "Q?", "answers": ["a", "b"], "gold": 0, "tags": ["x", "y", "z"]}',
            "field 'tags': expected at most 2 items, found ['x', 'y', 'z']",
        ),
        # a label not allowed
        (
            '{"id": "q3", "question": "Q?", "answers": ["a", "b"], "gold": 0, "label": "maybe"}',
            "field 'label': expected 'negated' or 'affirmative', found 'maybe'",
        ),
        # the kit's types
        (
            '{"id": "q3", "question": "  ", "answers": ["a", "b"], "gold": 0}',
            "field 'question': expected a non-empty text, found '  '",
        ),
        (
            '{"id": "q3", "question": "Q?", "answers": ["a"], "gold": 0}',
            "field 'answers': expected a list of at least two non-empty strings, found ['a']",
        ),
        (
            '{"id": "q3", "question": "Q?", "answers": ["a", ""], "gold": 0}',
            "field 'answers': expected a list of at least two non-empty strings, found ['a', '']",
        ),
        (
            '{"id": "q3", "question": "Q?", "answers": ["a", "a"], "gold": 0}',
            "field 'answers': ['a', 'a'] repeats a choice",
        ),
        (
            '{"id": "q3", "question": "Q?", "answers": ["a", "b"], "gold": 2}',
            "field 'gold': 2 is not the index of one of the 2 answers",
        ),
        (
            '{"id": "q3", "question": "Q?", "answers": ["a", "b"], "gold": -1}',
            "field 'gold': -1 is not the index of one of the 2 answers",
        ),
        # not a JSON object, not JSON
        ('["q3", "Q?"]', "expected a JSON object, found an array"),
        ('{"id": "q3" "question": "Q?"}', "not valid JSON (Expecting ',' delimiter, column 13)"),
    ],
)
def test_a_bad_json_line_names_the_file_line_and_field(tmp_path, line, problem):
    path = write(tmp_path / "q.jsonl", f"{GOOD}\n{line}\n{GOOD_2}\n")
    assert error(path) == f"{path}:2: {problem}"


def test_a_bad_object_of_a_json_array_names_its_line(tmp_path):
    path = write(
        tmp_path / "q.json", f'[{GOOD},\n {{"id": "q3", "question": "Q?",\n "answers": ["a", "b"], "gold": 5}}]'
    )
    assert error(path) == f"{path}:2: field 'gold': 5 is not the index of one of the 2 answers"
    path = write(tmp_path / "q.json", f"[{GOOD},\n 3]")
    assert error(path) == f"{path}:2: expected a JSON object, found a number"
    path = write(tmp_path / "q.json", f"[{GOOD},\n\n {GOOD_2}")
    assert error(path).startswith(f"{path}:3: not valid JSON (Expecting ',' delimiter")
    path = write(tmp_path / "q.json", '"text"')
    assert error(path) == f"{path}: expected an array of objects or an object holding one, found a string"


@pytest.mark.parametrize(
    "row, problem",
    [
        ("q3,Q?,\"['a', 'b']\",x,negated", "column 'gold': expected a whole number, found 'x'"),
        ("q3,Q?,\"['a', 'b']\",1.5,negated", "column 'gold': expected a whole number, found '1.5'"),
        ("q3,Q?,\"['a', 'b']\",2,negated", "column 'gold': '2' is not the index of one of the 2 answers"),
        ("q3,Q?,\"['a', 'b'\",0,negated", "column 'answers': \"['a', 'b'\" is not a list literal"),
        ("q3,Q?,\"['a', 'b']\",0,maybe", "column 'label': expected 'negated' or 'affirmative', found 'maybe'"),
        ("q3,,\"['a', 'b']\",0,negated", "column 'question': expected a non-empty text, found ''"),
        ("q3,Q?,\"['a', 'b']\",0", "expected 5 columns, found 4"),
    ],
)
def test_a_bad_csv_row_names_the_file_line_and_column(tmp_path, row, problem):
    text = "id,question,answers,gold,label\nq1,Q?,\"['a', 'b']\",0,negated\n" + row + "\n"
    path = write(tmp_path / "q.csv", text)
    assert error(path) == f"{path}:3: {problem}"


def test_a_csv_header_without_a_column(tmp_path):
    path = write(tmp_path / "q.csv", "id,answers\nq1,\"['a', 'b']\"\n")
    assert error(path) == f"{path}:1: missing column(s): question, gold"
    path = write(tmp_path / "q.tsv", "\n")
    assert error(path) == f"{path}:1: missing column(s): id, question, answers, gold"


@pytest.mark.parametrize("name", ["q.jsonl", "q.json", "q.csv", "q.tsv"])
def test_a_file_without_rows_is_no_items(tmp_path, name):
    path = write(tmp_path / name, "")
    assert error(path) == f"{path}: no items"
    if name.endswith("sv"):  # a header and nothing else
        path = write(tmp_path / name, "id,question,answers,gold\n".replace(",", "\t" if name.endswith("tsv") else ","))
        assert error(path) == f"{path}: no items"
    if name == "q.json":
        assert error(write(tmp_path / name, "[]")) == f"{path}: no items"


def test_a_missing_file(tmp_path):
    assert error(tmp_path / "none.jsonl") == f"{tmp_path / 'none.jsonl'}: no such file"


def test_rows_reader_reads_a_folder_or_a_file(tmp_path):
    write(tmp_path / "q.jsonl", f"{GOOD}\n{GOOD_2}\n")
    read = rows_reader("q.jsonl", Row, lambda row: (row.id, row.answers[row.gold]))
    assert read(tmp_path) == read(tmp_path / "q.jsonl") == [("q1", "no"), ("q2", "yes")]
    assert read.files(tmp_path, "test") == [tmp_path / "q.jsonl"]
    assert (
        data_file(tmp_path, "q.jsonl") == tmp_path / "q.jsonl"
        and data_file(tmp_path / "x.csv", "q") == tmp_path / "x.csv"
    )


class Pair(DataRow):
    question: Text
    answer: Literal["yes", "no"]


class Sample(DataRow):
    context: Text
    pairs: list[Pair]
    ref: int | Text = 0


def test_a_nested_row_names_its_path(tmp_path):
    good = {"question": "Q?", "answer": "yes"}
    line = json.dumps({"context": "C.", "pairs": [good, {**good, "answer": "maybe"}]})
    path = write(tmp_path / "s.jsonl", line + "\n")
    assert error(path, row_type=Sample) == f"{path}:1: field 'pairs[1].answer': expected 'yes' or 'no', found 'maybe'"
    path = write(tmp_path / "s.jsonl", json.dumps({"context": "C.", "pairs": [good], "ref": " "}) + "\n")
    # a union's members each fail: the last one's problem is given
    assert error(path, row_type=Sample) == f"{path}:1: field 'ref': expected a non-empty text, found ' '"


def test_an_empty_file_may_be_allowed(tmp_path):
    path = write(tmp_path / "q.csv", "id,question,answers,gold\n")
    assert rows(path, allow_empty=True) == []
