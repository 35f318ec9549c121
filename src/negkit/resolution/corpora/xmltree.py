"""A small XML tree that remembers where each element starts, for the BioScope and SFU readers.

:mod:`xml.etree.ElementTree` forgets line numbers, but the readers must name the line of every problem
they report. :func:`parse_xml_file` reads a file with :mod:`xml.parsers.expat` into :class:`XmlElement`
nodes whose ``children`` keep text and elements in document order, each element with its 1-based line
and 0-based column. Every way a file can be unreadable (empty, not UTF-8, not well-formed) becomes an
:class:`~negkit.errors.InputFormatError` naming the file, the line and the problem.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from xml.parsers import expat

from negkit.errors import InputFormatError
from negkit.io.textfiles import read_bytes

#: Elements deeper than this are refused (real corpora nest a few levels; deeper is damage or an attack).
MAX_DEPTH = 200


@dataclass
class XmlElement:
    """An element: its tag, attributes, children (text strings and elements, in order) and position."""

    tag: str
    attributes: dict[str, str]
    line: int
    column: int
    children: list[XmlElement | str] = field(default_factory=list)

    def elements(self) -> Iterator[XmlElement]:
        """The child elements (not text), in order."""
        return (child for child in self.children if isinstance(child, XmlElement))

    def iter(self, tag: str) -> Iterator[XmlElement]:
        """This element and all its descendants with ``tag``, in document order."""
        stack: list[XmlElement] = [self]
        while stack:
            element = stack.pop()
            if element.tag == tag:
                yield element
            stack.extend(reversed([child for child in element.children if isinstance(child, XmlElement)]))

    def text(self) -> str:
        """All character data inside the element, markup removed."""
        parts: list[str] = []
        stack: list[XmlElement | str] = [self]
        while stack:
            node = stack.pop()
            if isinstance(node, str):
                parts.append(node)
            else:
                stack.extend(reversed(node.children))
        return "".join(parts)

    def where(self) -> str:
        """``"column C"`` (1-based) of the start tag, for messages that already name the line."""
        return f"column {self.column + 1}"


def read_utf8(path: str | Path) -> str:
    """The text of ``path``; an empty file or bytes that are not UTF-8 raise :class:`InputFormatError`."""
    data = read_bytes(path, "XML file")
    if not data.strip():
        raise InputFormatError(path, None, "file is empty")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        bad = data[error.start : error.start + 4]
        raise InputFormatError(
            path, line, f"bytes {bad!r} at byte offset {error.start} are not valid UTF-8 ({error.reason})"
        ) from None


def parse_xml_string(text: str, source: str | Path = "<string>") -> XmlElement:
    """Parse XML ``text`` into an :class:`XmlElement` tree; ``source`` names it in error messages."""
    parser = expat.ParserCreate()
    root: list[XmlElement] = []
    stack: list[XmlElement] = []

    def start(tag: str, attributes: dict[str, str]) -> None:
        if len(stack) >= MAX_DEPTH:
            raise InputFormatError(source, parser.CurrentLineNumber, f"elements nested more than {MAX_DEPTH} deep")
        element = XmlElement(tag, attributes, parser.CurrentLineNumber, parser.CurrentColumnNumber)
        if stack:
            stack[-1].children.append(element)
        else:
            root.append(element)
        stack.append(element)

    def end(tag: str) -> None:
        stack.pop()

    def characters(data: str) -> None:
        if not stack:
            return
        children = stack[-1].children
        if children and isinstance(children[-1], str):
            children[-1] += data
        else:
            children.append(data)

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = characters
    parser.buffer_text = True
    try:
        parser.Parse(text, True)
    except expat.ExpatError as error:
        problem = f"malformed XML: {expat.ErrorString(error.code)} (column {error.offset + 1})"
        raise InputFormatError(source, error.lineno, problem) from None
    if not root:
        raise InputFormatError(source, None, "no XML element")
    return root[0]


def parse_xml_file(path: str | Path) -> XmlElement:
    """Read and parse the XML file ``path`` (UTF-8); see :func:`parse_xml_string`."""
    return parse_xml_string(read_utf8(path), path)
