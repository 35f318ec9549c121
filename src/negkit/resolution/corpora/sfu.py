"""Read the SFU Review corpus with negation and speculation (Konstantinova et al. 2012).

The corpus is a folder of domain folders (BOOKS, CARS, ...) of XML reviews; :func:`read_sfu` takes the
folder or a single review file. A review is ``DOCUMENT/P/SENTENCE`` with the text already tokenised
into ``<W>`` elements (no lemma or part of speech). Annotation elements wrap tokens:

* ``<cue ID=".." type="negation|speculation">`` marks a cue (one or more words; ``do n't`` is one cue);
* ``<xcope ID=..><ref SRC="cue ids"/> ...</xcope>`` marks a scope, and its ``ref`` says which cue(s)
  it belongs to; a cue's scope is the union of all scopes referring to it, so it may be discontinuous,
  and a scope whose ``ref`` names two cues belongs to both;
* ``<C>`` groups tokens without meaning for negation and is read through.

Each cue element becomes one instance (negation in ``instances``, speculation in ``speculation``; the
scope leaves the cue's own words out, as in CD-SCO, unless ``cue_in_scope=True``). Sentences get
``sentence_id`` "DOMAIN/FILE/N" (N counts the review's sentences from 0), ``chapter`` "DOMAIN/FILE",
``text`` the words joined by single spaces (tokens carry offsets into it), ``source`` and ``line``.

What does not fit is counted in :attr:`Corpus.unmapped` and described in :attr:`Corpus.notes`: a scope
referring to a cue id the review does not have, to a cue in another sentence, or to no cue at all, a
cue id used twice in a review, a cue without words. With ``strict=True`` an unknown or duplicate cue id
raises :class:`InputFormatError` instead. Empty ``<W>`` elements are skipped (and noted).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from negkit.errors import InputFormatError
from negkit.resolution.corpora.remembered import remembered_corpus
from negkit.resolution.corpora.spans import UnmappedLog, build_instance, empty_sentence_notes
from negkit.resolution.corpora.xmltree import XmlElement, parse_xml_file
from negkit.resolution.instances import Corpus, ResolutionSentence, Token, TokenPart

CUE_TYPES = ("negation", "speculation")


@dataclass
class _Cue:
    cue_id: str
    kind: str
    element: XmlElement
    sentence: int
    tokens: list[int] = field(default_factory=list)
    scope: list[int] = field(default_factory=list)


@dataclass
class _Scope:
    element: XmlElement
    sentence: int
    cue_ids: list[str] = field(default_factory=list)
    tokens: list[int] = field(default_factory=list)


@remembered_corpus("*.xml", as_path=True)
def read_sfu(
    path: str | Path,
    *,
    keep_speculation: bool = True,
    cue_in_scope: bool = False,
    strict: bool = False,
) -> Corpus:
    """Read an SFU Review corpus folder (all ``*.xml`` below it, in path order) or one review file."""
    path = Path(path)
    if path.is_dir():
        files = sorted(path.rglob("*.xml"))
        if not files:
            raise InputFormatError(path, None, "folder holds no .xml files (expected SFU Review XML files)")
    elif path.exists():
        files = [path]
    else:
        raise InputFormatError(path, None, "no such file or folder")
    log = UnmappedLog()
    sentences: list[ResolutionSentence] = []
    empty_words = 0
    for file in files:
        review = _ReviewReader(file, log, strict)
        sentences += review.read(keep_speculation, cue_in_scope)
        empty_words += review.empty_words
    notes = log.notes() + empty_sentence_notes(sentences)
    if empty_words:
        notes.append(f"{empty_words} empty <W> elements skipped (they hold no text)")
    return Corpus(str(path), "sfu", sentences, log.total, notes)


class _ReviewReader:
    """Reads one review file."""

    def __init__(self, path: Path, log: UnmappedLog, strict: bool) -> None:
        self.path = path
        self.log = log
        self.strict = strict
        self.empty_words = 0
        self.cues: list[_Cue] = []
        self.scopes: list[_Scope] = []

    def read(self, keep_speculation: bool, cue_in_scope: bool) -> list[ResolutionSentence]:
        root = parse_xml_file(self.path)
        if root.tag != "DOCUMENT":
            raise InputFormatError(self.path, root.line, f"root element is <{root.tag}>, expected SFU's <DOCUMENT>")
        name = f"{self.path.parent.name}/{self.path.stem}"
        sentences = []
        for number, element in enumerate(root.iter("SENTENCE")):
            words: list[str] = []
            self.walk(element, number, words, [], [])
            sentences.append(_sentence(words, f"{name}/{number}", name, number, str(self.path), element.line))
        self.resolve_scopes()
        for cue in self.cues:
            if cue.kind == "speculation" and not keep_speculation:
                continue
            sentence = sentences[cue.sentence]
            if not cue.tokens:
                detail = f"cue {cue.cue_id} in {sentence.sentence_id}"
                self.log.add("cue covering no token", self.where(cue.element), detail)
                continue
            tokens = sentence.tokens
            instance = build_instance(
                tokens, _parts(tokens, cue.tokens), _parts(tokens, cue.scope), cue_in_scope=cue_in_scope
            )
            (sentence.instances if cue.kind == "negation" else sentence.speculation).append(instance)
        return sentences

    def walk(
        self, element: XmlElement, sentence: int, words: list[str], cues: list[_Cue], scopes: list[_Scope]
    ) -> None:
        """Collect the words under ``element`` and record which cues and scopes cover each."""
        for child in element.elements():
            if child.tag == "W":
                word = child.text().strip()
                if not word:
                    self.empty_words += 1
                    continue
                covering: list[_Cue | _Scope] = [*cues, *scopes]
                for annotation in covering:
                    annotation.tokens.append(len(words))
                words.append(word)
            elif child.tag == "cue":
                cue = _Cue(self.attribute(child, "ID"), self.attribute(child, "type"), child, sentence)
                if cue.kind not in CUE_TYPES:
                    problem = f"<cue> type {cue.kind!r} is neither 'negation' nor 'speculation'"
                    raise InputFormatError(self.path, child.line, problem)
                self.cues.append(cue)
                self.walk(child, sentence, words, [*cues, cue], scopes)
            elif child.tag == "xcope":
                scope = _Scope(child, sentence)
                self.scopes.append(scope)
                self.walk(child, sentence, words, cues, [*scopes, scope])
            elif child.tag == "ref":
                self.attach_ref(child, scopes[-1] if element.tag == "xcope" else None)
            elif child.tag == "C":
                self.walk(child, sentence, words, cues, scopes)
            else:
                raise InputFormatError(self.path, child.line, f"unexpected <{child.tag}> inside <SENTENCE>")

    def attach_ref(self, ref: XmlElement, scope: _Scope | None) -> None:
        """Add the cue ids of ``ref`` to ``scope``, the ``<xcope>`` it sits in directly."""
        if scope is None:
            self.log.add("reference outside a scope", self.where(ref), f"<ref SRC={ref.attributes.get('SRC')!r}>")
            return
        scope.cue_ids += self.attribute(ref, "SRC").split()

    def resolve_scopes(self) -> None:
        """Give each scope's words to the cues its ``ref`` names (a cue in the same sentence)."""
        by_id: dict[str, list[_Cue]] = {}
        for cue in self.cues:
            if cue.cue_id in by_id:
                self.report(cue.element, "cue id used twice in a review", f"cue ID={cue.cue_id!r}")
            by_id.setdefault(cue.cue_id, []).append(cue)
        for scope in self.scopes:
            if not scope.cue_ids:
                scope_id = scope.element.attributes.get("ID")
                self.log.add("scope with no cue", self.where(scope.element), f"<xcope ID={scope_id!r}>")
            for cue_id in scope.cue_ids:
                candidates = by_id.get(cue_id, [])
                same_sentence = [cue for cue in candidates if cue.sentence == scope.sentence]
                for cue in same_sentence:
                    cue.scope += scope.tokens
                if not candidates:
                    self.report(scope.element, "scope referring to an unknown cue id", f"SRC={cue_id!r}")
                elif not same_sentence:
                    self.log.add(
                        "scope in another sentence than its cue",
                        self.where(scope.element),
                        f"<xcope ID={scope.element.attributes.get('ID')!r}> refers to cue {cue_id!r}",
                    )

    def where(self, element: XmlElement) -> str:
        return f"{self.path}:{element.line}:{element.column + 1}"

    def report(self, element: XmlElement, kind: str, detail: str) -> None:
        if self.strict:
            raise InputFormatError(self.path, element.line, f"{kind}: {detail} ({element.where()})")
        self.log.add(kind, self.where(element), detail)

    def attribute(self, element: XmlElement, name: str) -> str:
        value = element.attributes.get(name)
        if not value:
            problem = f"<{element.tag}> has no {name} attribute ({element.where()})"
            raise InputFormatError(self.path, element.line, problem)
        return value


def _sentence(
    words: list[str], sentence_id: str, chapter: str, number: int, source: str, line: int
) -> ResolutionSentence:
    """A sentence whose text is ``words`` joined by single spaces, with token offsets into it."""
    tokens = []
    offset = 0
    for word in words:
        tokens.append(Token(word, char_start=offset, char_end=offset + len(word)))
        offset += len(word) + 1
    return ResolutionSentence(
        tokens=tokens,
        sentence_id=sentence_id,
        chapter=chapter,
        number=str(number),
        text=" ".join(words),
        source=source,
        line=line,
    )


def _parts(tokens: list[Token], indices: list[int]) -> list[TokenPart]:
    return [TokenPart(index, tokens[index].text) for index in sorted(set(indices))]
