"""Read BioScope XML (abstracts, full papers, clinical records) into a :class:`~negkit.resolution.corpora.formats.Corpus`.

BioScope (Vincze et al. 2008) marks scopes inline: ``<xcope id="X1.6.1">`` elements, possibly nested,
and cues ``<cue type="negation|speculation" ref="X1.6.1">`` inside them; every cue element whose
``ref`` names the same scope belongs to one cue (``neither`` ... ``nor`` are two elements with one ref).

* Each ``<sentence>`` becomes a :class:`ResolutionSentence` with ``sentence_id`` "DOCID/SENTENCEID"
  (e.g. ``"91079577/S1.4"``), ``chapter`` the document id, ``number`` the sentence's position in its
  document (from 0), ``text`` the sentence's running text (markup removed, outer whitespace stripped),
  ``source``/``line`` the file and line of the ``<sentence>`` tag.
* The text is split by :func:`negkit.resolution.tokenize.tokenize` (tokens carry char offsets) and cue and
  scope spans are mapped onto tokens by the rules of :mod:`negkit.resolution.corpora.spans`; spans that do not map
  cleanly are counted in :attr:`Corpus.unmapped` and described in :attr:`Corpus.notes`.
* Negation cues become ``instances``; speculation cues become ``speculation`` (kept apart, never
  counted as negation; ``keep_speculation=False`` drops them). By default a scope leaves out its own
  cue words, as in CD-SCO (BioScope's scopes contain their cue); ``cue_in_scope=True`` keeps them.
* A cue whose ``ref`` names no scope of its sentence, or a scope no cue refers to, is counted as
  unmapped (an instance without scope is kept), or raises :class:`InputFormatError` with ``strict=True``;
  so is a cue outside every ``<sentence>`` (it cannot be placed on tokens).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from negkit.errors import InputFormatError, quoted
from negkit.resolution.corpora.remembered import remembered_corpus
from negkit.resolution.corpora.spans import UnmappedLog, build_instance, empty_sentence_notes, is_affix, tokens_in_span
from negkit.resolution.corpora.xmltree import XmlElement, parse_xml_file
from negkit.resolution.instances import Corpus, NegationInstance, ResolutionSentence, Token, TokenPart
from negkit.resolution.tokenize import tokenize

CUE_TYPES = ("negation", "speculation")


@dataclass
class _Cue:
    kind: str
    ref: str
    start: int
    end: int
    element: XmlElement


@dataclass
class _MarkedSentence:
    """A sentence's running text with its cue and scope spans (offsets into ``text``)."""

    text: str
    cues: list[_Cue] = field(default_factory=list)
    scopes: dict[str, tuple[int, int]] = field(default_factory=dict)


@remembered_corpus("*.xml", as_path=False)
def read_bioscope(
    path: str | Path,
    *,
    keep_speculation: bool = True,
    cue_in_scope: bool = False,
    strict: bool = False,
) -> Corpus:
    """Read a BioScope XML file; see the module documentation for the mapping."""
    root = parse_xml_file(path)
    if root.tag != "Annotation":
        raise InputFormatError(path, root.line, f"root element is <{root.tag}>, expected BioScope's <Annotation>")
    reader = _BioScopeReader(str(path), keep_speculation, cue_in_scope, strict)
    for number, document in enumerate(root.iter("Document")):
        reader.read_document(document, number)
    notes = reader.log.notes() + empty_sentence_notes(reader.sentences)
    return Corpus(str(path), "bioscope", reader.sentences, reader.log.total, notes)


class _BioScopeReader:
    def __init__(self, path: str, keep_speculation: bool, cue_in_scope: bool, strict: bool) -> None:
        self.path = path
        self.keep_speculation = keep_speculation
        self.cue_in_scope = cue_in_scope
        self.strict = strict
        self.sentences: list[ResolutionSentence] = []
        self.log = UnmappedLog()

    def where(self, element: XmlElement) -> str:
        return f"{self.path}:{element.line}"

    def problem(self, element: XmlElement, message: str) -> InputFormatError:
        return InputFormatError(self.path, element.line, message)

    def read_document(self, document: XmlElement, number: int) -> None:
        doc_ids = [element.text().strip() for element in document.iter("DocID")]
        doc_id = doc_ids[0] if doc_ids and doc_ids[0] else f"document{number + 1}"
        inside: set[int] = set()
        for position, sentence in enumerate(document.iter("sentence")):
            sentence_id = sentence.attributes.get("id")
            if not sentence_id:
                raise self.problem(sentence, "<sentence> has no id attribute")
            self.sentences.append(self.read_sentence(sentence, f"{doc_id}/{sentence_id}", doc_id, position))
            inside.update(id(cue) for cue in sentence.iter("cue"))
        for cue in document.iter("cue"):  # a cue outside every sentence cannot be placed: counted, never dropped
            if id(cue) not in inside:
                self.report(cue, "cue outside any sentence", f"{quoted(cue.text().strip(), 40)} in document {doc_id}")

    def read_sentence(self, element: XmlElement, sentence_id: str, doc_id: str, position: int) -> ResolutionSentence:
        marked = self.mark(element)
        tokens = tokenize(marked.text)
        sentence = ResolutionSentence(
            tokens=tokens,
            sentence_id=sentence_id,
            chapter=doc_id,
            number=str(position),
            text=marked.text,
            source=self.path,
            line=element.line,
        )
        groups: dict[str, list[_Cue]] = {}
        for cue in marked.cues:
            groups.setdefault(cue.ref, []).append(cue)
        for ref, cues in groups.items():
            kind = cues[0].kind
            if any(cue.kind != kind for cue in cues):
                self.log.add("cues of one scope with different types", self.where(cues[0].element), ref)
            if kind == "speculation" and not self.keep_speculation:
                continue
            instance = self.instance(sentence, marked, ref, cues)
            if instance is not None:
                (sentence.instances if kind == "negation" else sentence.speculation).append(instance)
        for scope_id in marked.scopes:
            if scope_id not in groups:
                self.report(element, "scope with no cue", f"<xcope id={scope_id!r}> in {sentence_id}")
        return sentence

    def instance(
        self, sentence: ResolutionSentence, marked: _MarkedSentence, ref: str, cues: list[_Cue]
    ) -> NegationInstance | None:
        tokens = sentence.tokens
        cue_parts: list[TokenPart] = []
        for cue in cues:
            parts = tokens_in_span(tokens, cue.start, cue.end)
            self.check_span("cue", f"cue in {sentence.sentence_id}", parts, tokens, cue.element)
            cue_parts += parts
        if not cue_parts:
            return None
        scope_parts: list[TokenPart] = []
        if ref in marked.scopes:
            scope_parts = tokens_in_span(tokens, *marked.scopes[ref])
            self.check_span("scope", f"scope {ref} in {sentence.sentence_id}", scope_parts, tokens, cues[0].element)
        else:
            detail = f"ref={ref!r} in {sentence.sentence_id}"
            self.report(cues[0].element, "cue referring to an unknown scope id", detail)
        return build_instance(tokens, cue_parts, scope_parts, cue_in_scope=self.cue_in_scope)

    def check_span(
        self, label: str, name: str, parts: list[TokenPart], tokens: list[Token], element: XmlElement
    ) -> None:
        """Count the ``label`` ("cue"/"scope") span as unmapped when it covers no token, or part of a
        word without being an affix cue; ``name`` says which span it is in the note."""
        if not parts:
            self.log.add(f"{label} covering no token", self.where(element), name)
            return
        for part in parts:
            token = tokens[part.index]
            if part.is_partial(token) and not (label == "cue" and is_affix(part, token)):
                edge = "starts" if (part.start or 0) > 0 else "ends"
                self.log.add(
                    f"{label} that {edge} inside a token",
                    self.where(element),
                    f"{name} covers {part.text!r} of {token.text!r}",
                )
                return

    def report(self, element: XmlElement, kind: str, detail: str) -> None:
        if self.strict:
            raise self.problem(element, f"{kind}: {detail}")
        self.log.add(kind, self.where(element), detail)

    def mark(self, sentence: XmlElement) -> _MarkedSentence:
        """Running text of ``sentence`` with the spans of its cues and scopes (outer whitespace stripped)."""
        pieces: list[str] = []
        marked = _MarkedSentence("")

        def walk(element: XmlElement, length: int) -> int:
            for child in element.children:
                if isinstance(child, str):
                    pieces.append(child)
                    length += len(child)
                    continue
                start = length
                length = walk(child, length)
                if child.tag == "xcope":
                    scope_id = self.attribute(child, "id")
                    if scope_id in marked.scopes:
                        raise self.problem(child, f"duplicate <xcope> id {scope_id!r}")
                    marked.scopes[scope_id] = (start, length)
                elif child.tag == "cue":
                    kind = self.attribute(child, "type")
                    if kind not in CUE_TYPES:
                        raise self.problem(child, f"<cue> type {kind!r} is neither 'negation' nor 'speculation'")
                    marked.cues.append(_Cue(kind, self.attribute(child, "ref"), start, length, child))
                else:
                    raise self.problem(child, f"unexpected <{child.tag}> inside <sentence> (expected xcope or cue)")
            return length

        walk(sentence, 0)
        full = "".join(pieces)
        lead = len(full) - len(full.lstrip())
        marked.text = full.strip()
        marked.scopes = {
            key: self.trim(marked.text, start - lead, end - lead) for key, (start, end) in marked.scopes.items()
        }
        for cue in marked.cues:
            cue.start, cue.end = self.trim(marked.text, cue.start - lead, cue.end - lead)
        return marked

    @staticmethod
    def trim(text: str, start: int, end: int) -> tuple[int, int]:
        """The span clipped to ``text`` with whitespace at its edges left out."""
        start, end = max(start, 0), min(end, len(text))
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        return start, end

    def attribute(self, element: XmlElement, name: str) -> str:
        value = element.attributes.get(name)
        if not value:
            raise self.problem(element, f"<{element.tag}> has no {name} attribute")
        return value
