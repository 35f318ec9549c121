"""The base of the run-log models: :class:`LogModel` keeps the keys a file held, in their order, and writes them
back as they were, so that reading a run file and writing it again gives the same bytes; :func:`validated` turns a
pydantic validation error into an :class:`~negkit.errors.InputFormatError` naming the file, the line and the field.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    ValidationError,
    ValidatorFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from negkit.errors import InputFormatError, quoted
from negkit.io.textfiles import json_kind

#: A JSON number as a run file writes it: a whole number stays an ``int`` (``3``, not ``3.0``).
Number = int | float

Model = TypeVar("Model", bound="LogModel")


class LogModel(BaseModel):
    """A JSON object of a run file: its fixed fields typed, any other key kept as it is (``extra='allow'``: a
    newer negkit's or a suite's own keys still read), and every key written back in the order it was read.

    Numbers, strings and booleans are checked strictly (``"3"`` is not a number, ``1`` not a boolean); a field
    left out of a file stays left out when the model is written (:meth:`as_json` drops the fields never set)."""

    model_config = ConfigDict(
        extra="allow",
        strict=True,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        ser_json_inf_nan="constants",
    )

    _key_order: tuple[str, ...] = PrivateAttr(default=())

    @model_validator(mode="wrap")
    @classmethod
    def _remember_key_order(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        model = handler(data)
        if isinstance(data, Mapping) and isinstance(model, LogModel):
            model._key_order = tuple(str(key) for key in data)
        return model

    @model_serializer(mode="wrap")
    def _in_key_order(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        fields: dict[str, Any] = handler(self)
        if not self._key_order:
            return fields
        ordered = {key: fields[key] for key in self._key_order if key in fields}
        return {**ordered, **{key: value for key, value in fields.items() if key not in ordered}}

    def as_json(self) -> dict[str, Any]:
        """The model as the JSON object of its file: the keys it was read or built with, in that order (fields
        never set left out), by their names in the file (``n-shot``, ``acc,none``)."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)

    def json_text(self, indent: int | None = 2) -> str:
        """The file's text as negkit writes it (UTF-8 characters kept, a final newline)."""
        return json.dumps(self.as_json(), indent=indent, ensure_ascii=False) + "\n"


def plain_json(value: Any) -> Any:
    """``value`` as a reader of its JSON text sees it (tuples as lists, keys as strings): what a model validates
    before a file is written, so that the file read back is the model written."""
    return json.loads(json.dumps(value, ensure_ascii=False))


def field_path(location: tuple[int | str, ...], data: Any, missing: bool = False) -> str:
    """A validation error's location as the dotted path of keys and indexes in the file (``task.task``,
    ``metrics.intervals.accuracy.ci[1]``; ``missing``: the last step is a missing key): the steps pydantic adds for
    the members of a union are left out."""
    path, value = "", data
    for index, step in enumerate(location):
        if isinstance(value, Mapping) and isinstance(step, str):
            if step not in value and not (missing and index == len(location) - 1):
                continue  # the name of a union's member, not a key
            path = f"{path}.{step}" if path else step
            if step not in value:  # a missing field
                break
            value = value[step]
        elif isinstance(value, list) and isinstance(step, int) and 0 <= step < len(value):
            path, value = f"{path}[{step}]", value[step]
    return path or "(the whole object)"


#: What a pydantic error type expected, in JSON's words.
_EXPECTED = {
    "model_type": "a JSON object",
    "model_attributes_type": "a JSON object",
    "dict_type": "a JSON object",
    "list_type": "an array",
    "string_type": "a string",
    "int_type": "a whole number",
    "float_type": "a number",
    "bool_type": "true or false",
    "none_required": "null",
}


def _problem(error: ValidationError, data: Any) -> str:
    found = error.errors(include_url=False)
    first = found[0]
    where = field_path(tuple(first["loc"]), data, first["type"] == "missing")
    if first["type"] == "missing":
        return f"missing field {where!r}"
    expected: list[str] = []
    for entry in found:  # a union's members each give one error for the same field
        if field_path(tuple(entry["loc"]), data) == where:
            wanted = _EXPECTED.get(entry["type"], entry["msg"].lower())
            if wanted not in expected:
                expected.append(wanted)
    if "a whole number" in expected and "a number" in expected:
        expected.remove("a whole number")
    value = first.get("input")
    found_text = json_kind(value) if value is None else f"{json_kind(value)} {quoted(value)}"
    return f"field {where!r}: expected {' or '.join(expected)}, found {found_text}"


def validated(model: type[Model], data: Any, path: str | Path, line: int | None = None, what: str = "") -> Model:
    """``data`` read as ``model``; a value of the wrong form is an :class:`InputFormatError` naming ``path``
    (``line`` for a JSON Lines record), the field and what was found (``what``: the file's kind, for the
    message)."""
    try:
        return model.model_validate(data)
    except ValidationError as error:
        kind = f" ({what})" if what else ""
        raise InputFormatError(path, line, f"{_problem(error, data)}{kind}") from None
