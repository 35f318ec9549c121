"""The one wording of a rejected value (negkit.kit.validation): the same pydantic errors worded for a data file's
row (the found value as written) and for a run file (the found value with its JSON kind, JSON's words)."""

from __future__ import annotations

from typing import Any, Literal

import pytest
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from negkit.kit.validation import location_path, validation_problem


class Inner(BaseModel):
    answer: Literal["yes", "no"]


class Record(BaseModel):
    model_config = ConfigDict(strict=True)

    id: str
    count: int = 0
    score: int | float | None = None
    tags: list[str] = []
    pairs: list[Inner] = []
    meta: dict[str, Any] = {}
    text: str = "x"

    @field_validator("text")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError(f"expected a non-empty text, found {value!r}")
        return value


def problem(data: dict[str, Any], **wording: Any) -> str:
    with pytest.raises(ValidationError) as caught:
        Record.model_validate(data)
    return validation_problem(caught.value, data, **wording)


@pytest.mark.parametrize(
    ("data", "as_written", "in_json"),
    [
        (
            {"id": "a", "count": "30"},
            "field 'count': expected a whole number, found '30'",
            "field 'count': expected a whole number, found a string '30'",
        ),
        (
            {"id": "a", "meta": ["x"]},
            "field 'meta': expected an object, found ['x']",
            "field 'meta': expected a JSON object, found an array ['x']",
        ),
        (
            {"id": "a", "tags": "x"},
            "field 'tags': expected a list, found 'x'",
            "field 'tags': expected an array, found a string 'x'",
        ),
        (
            {"id": None},
            "field 'id': expected a string, found None",
            "field 'id': expected a string, found null",
        ),
        (  # a union's members' expectations together, "a whole number" within "a number"
            {"id": "a", "score": "high"},
            "field 'score': expected a number, found 'high'",
            "field 'score': expected a number, found a string 'high'",
        ),
        (
            {"id": "a", "pairs": [{"answer": "yes"}, {"answer": "maybe"}]},
            "field 'pairs[1].answer': expected 'yes' or 'no', found 'maybe'",
            "field 'pairs[1].answer': expected 'yes' or 'no', found a string 'maybe'",
        ),
        (  # a validator's own words are taken as they are
            {"id": "a", "text": " "},
            "field 'text': expected a non-empty text, found ' '",
            "field 'text': expected a non-empty text, found ' '",
        ),
        ({"count": 1}, "missing field 'id'", "missing field 'id'"),
        (
            {"id": "a", "pairs": [{}]},
            "missing field 'pairs[0].answer'",
            "missing field 'pairs[0].answer'",
        ),
    ],
)
def test_one_problem_in_both_wordings(data, as_written, in_json):
    assert problem(data) == as_written
    assert problem(data, json=True) == in_json


def test_missing_fields_all_at_once_and_the_noun():
    assert problem({"count": "x"}, noun="column") == "missing column 'id'"

    class Two(BaseModel):
        a: int
        b: int

    with pytest.raises(ValidationError) as caught:
        Two.model_validate({})
    assert validation_problem(caught.value, {}) == "missing fields 'a', 'b'"


def test_a_long_found_value_is_cut():
    found = problem({"id": "a", "count": "y" * 500})
    assert found.startswith("field 'count': expected a whole number, found 'yyy") and found.endswith("(502 characters)")


def test_the_location_path_leaves_out_the_members_of_a_union():
    data = {"metrics": {"ci": [0, "x"]}, "tags": "['a', 2]"}
    assert location_path(("metrics", "ci", 1, "float"), data) == "metrics.ci[1]"
    assert location_path(("tags", 1), data) == "tags[1]"  # a list the model read from a cell's text
    assert location_path(("metrics", "n"), data, missing=True) == "metrics.n"
    assert location_path((), data) == ""
