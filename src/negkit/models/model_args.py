"""``--model-args key=value,...``: options passed to a model loader, parsed strictly.

The syntax is the LM Evaluation Harness's (``pretrained=...,revision=...``) with two additions for values
that contain commas: a value in brackets is a list (``labels=[entailment,neutral,contradiction]``) and a
value in single or double quotes is taken verbatim (``system="Be brief, please."``).

Values are typed: ``true``/``false`` (any case) are booleans, ``none``/``null`` is ``None``, whole numbers
are ints, other numbers floats, anything else a string. A malformed pair (no ``=``, an empty key, a key given
twice, an unclosed quote or bracket) is an error that quotes the pair: nothing is ever silently dropped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from negkit.errors import NegkitError, quoted

_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")


def split_top_level(text: str, separator: str = ",", what: str = "--model-args") -> list[str]:
    """Split ``text`` on ``separator`` outside quotes and brackets."""
    parts, current, depth, quote = [], [], 0, ""
    for character in text:
        if quote:
            current.append(character)
            if character == quote:
                quote = ""
            continue
        if character in "\"'":
            quote = character
        elif character == "[":
            depth += 1
        elif character == "]":
            depth -= 1
            if depth < 0:
                raise NegkitError(f"{what}: unbalanced ']' in {quoted(text)}")
        elif character == separator and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(character)
    if quote:
        raise NegkitError(f"{what}: unclosed quote {quote} in {quoted(text)}")
    if depth:
        raise NegkitError(f"{what}: unclosed '[' in {quoted(text)}")
    parts.append("".join(current))
    return parts


def parse_value(text: str, what: str = "--model-args") -> Any:
    """A typed value (see the module documentation)."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    if text.startswith("[") and text.endswith("]"):
        inner = text[1:-1].strip()
        return [parse_value(part, what) for part in split_top_level(inner, ",", what)] if inner else []
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered in ("none", "null"):
        return None
    if re.fullmatch(r"[+-]?\d+", text):
        return int(text)
    if re.fullmatch(r"[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?", text):
        return float(text)
    return text


def parse_model_args(text: str | None, what: str = "--model-args") -> dict[str, Any]:
    """``"key=value,key2=value2"`` -> ``{"key": value, ...}`` (typed values); ``None`` or ``""`` -> ``{}``.

    Raises :class:`~negkit.errors.NegkitError` naming the malformed pair.
    """
    if text is None or not text.strip():
        return {}
    parsed: dict[str, Any] = {}
    for pair in split_top_level(text, ",", what):
        key, separator, value = pair.partition("=")
        key = key.strip()
        if not separator:
            hint = " (a value with commas goes in [brackets] or quotes)" if parsed else ""
            raise NegkitError(f"{what}: {quoted(pair.strip())} is not KEY=VALUE{hint}")
        if not _KEY.match(key):
            raise NegkitError(f"{what}: {quoted(pair.strip())} has no valid key (letters, digits, _ . -)")
        if key in parsed:
            raise NegkitError(f"{what}: {quoted(key)} is given twice")
        parsed[key] = parse_value(value, what)
    return parsed


def format_model_args(args: dict[str, Any]) -> str:
    """Inverse of :func:`parse_model_args` (for reproducing commands)."""

    def render(value: Any) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        if value is None:
            return "none"
        if isinstance(value, (list, tuple)):
            return "[" + ",".join(render(item) for item in value) + "]"
        if not isinstance(value, str):
            return str(value)
        text = value
        if any(character in text for character in ",[]\"'=") or text != text.strip() or parse_value(text) != text:
            return '"' + text + '"' if '"' not in text else "'" + text + "'"
        return text

    return ",".join(f"{key}={render(value)}" for key, value in args.items())


#: Keys whose values are secrets: never written to results or reproducing commands.
SECRET_KEYS = frozenset({"api_key", "token", "hf_token"})


def redact_model_args(args: dict[str, Any]) -> dict[str, Any]:
    """``args`` with secret values (:data:`SECRET_KEYS`) replaced by ``"***"``."""
    return {key: ("***" if key in SECRET_KEYS and value is not None else value) for key, value in args.items()}


_SECRET_IN_TEXT = re.compile(
    r"\b(" + "|".join(sorted(SECRET_KEYS, key=len, reverse=True)) + r")=(\"[^\"]*\"|'[^']*'|[^,\s]*)"
)


def redact_text(text: str) -> str:
    """``text`` (a command line, a ``--model-args`` value) with every ``KEY=VALUE`` of a secret key (:data:`SECRET_KEYS`)
    written ``KEY=***``, whatever quoting the value has."""
    return _SECRET_IN_TEXT.sub(lambda match: f"{match.group(1)}=***", text)


def redact_command_line(argv: Sequence[str]) -> list[str]:
    """``argv`` with the secret values of :func:`redact_text` hidden in every argument: what a run records of the
    command that started it (results, lock files, logs)."""
    return [redact_text(str(argument)) for argument in argv]
