"""The base of the run-log models: :class:`LogModel` keeps the keys a file held, in their order, and writes them
back as they were, so that reading a run file and writing it again gives the same bytes; :func:`validated` turns a
pydantic validation error into an :class:`~negkit.errors.InputFormatError` naming the file, the line and the field
(the problem worded by :func:`~negkit.kit.validation.validation_problem`).
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

from negkit.errors import InputFormatError
from negkit.kit.validation import validation_problem

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


def validated(model: type[Model], data: Any, path: str | Path, line: int | None = None, what: str = "") -> Model:
    """``data`` read as ``model``; a value of the wrong form is an :class:`InputFormatError` naming ``path``
    (``line`` for a JSON Lines record), the field and what was found (``what``: the file's kind, for the
    message)."""
    try:
        return model.model_validate(data)
    except ValidationError as error:
        kind = f" ({what})" if what else ""
        raise InputFormatError(path, line, f"{validation_problem(error, data, json=True)}{kind}") from None
