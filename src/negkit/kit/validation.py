"""One wording for every value a pydantic model rejects: :func:`validation_problem` turns a
:class:`~pydantic.ValidationError` into the one-line problem that negkit's input errors name, for a data file's
rows (:mod:`negkit.kit.data.rows`) and a run's files (:mod:`negkit.kit.runlog`) alike.

The problem names where it is (``field 'pairs[0].answer'``, ``column 'gold'``: the keys and indexes of the value
read, the names pydantic gives the members of a union left out), what was expected and what was found:
``field 'label': expected 'yes' or 'no', found 'maybe'``; missing fields are named all at once (``missing fields
'a', 'b'``; one at a time inside a nested object, ``missing field 'task.task'``). Two wordings: a row's found value is shown as written (``found '1'``), a run file's with its JSON kind
(``found a string '30'``, expectations in JSON's words: ``a JSON object``, ``an array``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from negkit.errors import quoted
from negkit.io.textfiles import json_kind

#: What a pydantic error type expects, in words (others: pydantic's own message, less its ``Input should be``).
_EXPECTED = {
    "int_type": "a whole number",
    "int_parsing": "a whole number",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "float_parsing": "a number",
    "string_type": "a string",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "none_required": "null",
    "list_type": "a list",
    "tuple_type": "a list",
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
}

#: The expectations a run file's problems word as JSON does.
_JSON_WORDS = {"a list": "an array", "an object": "a JSON object"}

#: How long a found value may be shown (longer ones are cut, with their length).
_FOUND_LIMIT = 60


def validation_problem(error: ValidationError, data: Any, noun: str = "field", json: bool = False) -> str:
    """The first problem ``error`` found in ``data`` (the value validated), in one line (see the module
    documentation).

    ``noun``: what a place in ``data`` is called (``field``, ``column`` for a table's cells); ``json``: the found
    value with its JSON kind (``found a string '30'``, ``found null``) and the expectations in JSON's words, else
    the value as written (``found '30'``, ``found None``). The problem of a union's members is theirs together
    (``expected a number or null``) unless one of them says what is wrong in its own words (a validator's
    message), which is taken as it is."""
    errors = error.errors(include_url=False)
    missing = [str(e["loc"][0]) for e in errors if e["type"] == "missing" and len(e["loc"]) == 1]
    if missing:
        return f"missing {noun}{'s' if len(missing) > 1 else ''} {', '.join(repr(name) for name in missing)}"
    first = errors[0]
    if first["type"] == "missing":  # a field of an object inside
        return f"missing {noun} {location_path(first['loc'], data, missing=True)!r}"
    where = location_path(first["loc"], data)
    same = [e for e in errors if location_path(e["loc"], data) == where]  # a union's members: one error each
    messages = [e for e in same if e["type"] == "value_error"]
    if messages:
        problem = str(messages[-1].get("ctx", {}).get("error", messages[-1]["msg"]))
    else:
        expected = list(dict.fromkeys(_expected(e, json) for e in same))
        if "a whole number" in expected and "a number" in expected:
            expected.remove("a whole number")
        problem = f"expected {' or '.join(expected)}, found {_found(first['input'], json)}"
    return f"{noun} {where!r}: {problem}" if where else problem


def location_path(location: Sequence[int | str], data: Any, missing: bool = False) -> str:
    """A validation error's location as the path of keys and indexes in ``data`` (``task.task``,
    ``metrics.intervals.accuracy.ci[1]``, ``pairs[0].answer``; ``missing``: the last step is a key not there):
    the steps pydantic adds for the members of a union are left out; ``""`` for the whole value. An index into a
    value ``data`` holds as text (a table's cell, ``"['a', 2]"``, that the model reads as a list) is kept."""
    path, value = "", data
    for index, step in enumerate(location):
        if isinstance(value, Mapping) and isinstance(step, str):
            if step not in value and not (missing and index == len(location) - 1):
                continue  # the name of a union's member, not a key
            path = f"{path}.{step}" if path else step
            if step not in value:  # a missing field
                break
            value = value[step]
        elif isinstance(value, (list, tuple)) and isinstance(step, int) and 0 <= step < len(value):
            path, value = f"{path}[{step}]", value[step]
        elif isinstance(step, int) and not isinstance(value, (Mapping, list, tuple)):
            path, value = f"{path}[{step}]", None  # an item of a list the model parsed from text
    return path


def _expected(error: ErrorDetails, json: bool) -> str:
    """What the value at ``error``'s location should have been, in words."""
    kind, context = error["type"], error.get("ctx", {})
    if kind == "literal_error":
        return str(context["expected"])
    if kind in ("too_short", "too_long", "string_too_short", "string_too_long"):
        limit = context.get("min_length", context.get("max_length"))
        unit = "characters" if kind.startswith("string") else "items"
        return f"{'at least' if 'short' in kind else 'at most'} {limit} {unit}"
    wanted = _EXPECTED.get(kind) or re.sub(r"^\w+ should (be|have) ", "", error["msg"])
    return _JSON_WORDS.get(wanted, wanted) if json else wanted


def _found(value: Any, json: bool) -> str:
    """The found value as a problem shows it: as written, or (``json``) with its JSON kind."""
    if not json:
        return quoted(value, _FOUND_LIMIT)
    return json_kind(value) if value is None else f"{json_kind(value)} {quoted(value, _FOUND_LIMIT)}"
