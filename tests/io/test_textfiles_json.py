"""The one JSON Lines record reader (``negkit.io.textfiles``): every way a line can be bad is ``FILE:LINE: problem``."""

from __future__ import annotations

import pytest

from negkit.errors import InputFormatError
from negkit.io.textfiles import iter_json_objects, json_kind, json_object, require_fields


@pytest.mark.parametrize(
    "value, kind",
    [
        ([1], "an array"),
        ("a", "a string"),
        (3, "a number"),
        (2.5, "a number"),
        (True, "true or false"),
        (None, "null"),
        ({}, "an object"),
    ],
)
def test_json_kind_uses_json_names(value, kind):
    assert json_kind(value) == kind


def test_iter_json_objects_yields_line_numbers_and_skips_blank_lines(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"a": 1, "b": 2}\n\n  \n{"a": 3, "b": 4}', encoding="utf-8")
    assert list(iter_json_objects(path, required=("a", "b"))) == [(1, {"a": 1, "b": 2}), (4, {"a": 3, "b": 4})]


@pytest.mark.parametrize(
    "line, problem",
    [
        ("[1, 2]", "expected a JSON object, found an array"),
        ('"text"', "expected a JSON object, found a string"),
        ("null", "expected a JSON object, found null"),
        ('{"b": 1}', "missing field 'a'"),
        ("{}", "missing fields 'a', 'b'"),
        ("{nope", "not valid JSON"),
    ],
)
def test_iter_json_objects_names_file_line_and_problem(tmp_path, line, problem):
    path = tmp_path / "r.jsonl"
    path.write_text('{"a": 1, "b": 2}\n' + line + "\n", encoding="utf-8")
    with pytest.raises(InputFormatError) as error:
        list(iter_json_objects(path, required=("a", "b")))
    assert (error.value.path, error.value.line) == (str(path), 2)
    assert str(error.value).startswith(f"{path}:2: {problem}")


def test_json_object_and_require_fields_without_a_line():
    assert json_object("hub", 3, {"x": 1}) == {"x": 1}
    with pytest.raises(InputFormatError, match=r"^hub: expected a JSON object, found a number$"):
        json_object("hub", None, 7)
    require_fields("f.jsonl", 1, {"x": 1}, ("x",))
    with pytest.raises(InputFormatError, match=r"^f\.jsonl:5: missing fields 'y', 'z'$"):
        require_fields("f.jsonl", 5, {"x": 1}, ("y", "x", "z"))


def test_gzip_lines_are_read_and_a_cut_stream_is_named(tmp_path):
    import gzip

    import pytest

    from negkit.errors import InputFormatError
    from negkit.io.textfiles import iter_json_objects

    path = tmp_path / "pairs.jsonl.gz"
    path.write_bytes(gzip.compress(b'{"a": 1}\n\n{"a": 2}\n'))
    assert list(iter_json_objects(path, required=("a",))) == [(1, {"a": 1}), (3, {"a": 2})]
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(path.read_bytes()[:-12])
    with pytest.raises(InputFormatError, match=r"cut\.jsonl\.gz: not a readable gzip file"):
        list(iter_json_objects(cut))
    plain = tmp_path / "plain.jsonl.gz"
    plain.write_bytes(b'{"a": 1}\n')
    with pytest.raises(InputFormatError, match="not a readable gzip file"):
        list(iter_json_objects(plain))
