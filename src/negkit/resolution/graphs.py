"""Negation instances as dependency graphs (Kurtz et al. 2020; Sineva et al. 2021, section 4 and Figure 2).

A sentence of ``n`` tokens becomes a graph over ``n + 1`` nodes: node 0 is an artificial root and token ``i`` is
node ``i + 1``. Each negation instance is hung on one of its cue tokens, its *anchor*:

* the anchor is a dependent of the root, with a ``cue`` label; the instance's other cue tokens (multiword and
  discontinuous cues, "neither ... nor") are dependents of the anchor with an ``mwc`` label;
* **direct** encoding: every scope token and every event token of the instance is a dependent of the anchor
  (``scope``, ``event``), so a token in the scopes of two negations has two heads;
* **nested** encoding: when the anchor of an instance B lies in the scope of an instance A and B's scope is a
  subset of A's, B is *embedded* in A; the tokens of B's scope then link only to their nearest cue (B's anchor,
  the innermost enclosing one) and A's anchor gets one ``nest`` link to B's anchor instead. Decoding adds the
  (recursively decoded) scope of every nested instance to its parent's scope.

One (head, dependent) pair carries one label, so what several roles put on the same pair is joined into one
label: ``"scope|event"`` (an event token inside the scope), ``"scope|nest"``, ``"cue:pre=im|scope"`` (the anchor
"impossible" whose remainder "possible" is in the instance's own scope). A role is ``name`` or ``name:code``; the
code says which part of the word the role covers:

* no code: the whole word, except for scope and event roles on a token that carries an affix cue of the same
  instance, which cover the rest of the word ("possible" of "impossible", "care" of "carelessly");
* ``pre=AFFIX``, ``suf=AFFIX``, ``mid=AFFIX`` (cue roles): an affix cue at the start, end or inside of the word
  ("un", "less"; lower-cased, the word's own letters are used);
* ``=TEXT`` or ``=TEXT@START`` (percent-quoted): any other part, spelt out (a few corpus cells: scope "Mr" on the
  word "Mr."); its offset in the word is START when the text is there, else where the CD-SCO reader would put it.

:func:`encode` and :func:`decode` are inverse for every instance of CD-SCO, BioScope and SFU (up to the order of
the instances in a sentence, which carries no meaning; decoding orders them by their first cue token), and
:func:`decode` turns *any* edge set into valid instances: it ignores what cannot be read (unknown roles, edges
from tokens that are no anchor, nest links to non-anchors or in cycles, affix codes that do not fit the word).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import quote, unquote

from negkit.errors import NegkitError
from negkit.resolution.instances import NegationInstance, ResolutionSentence, TokenPart

#: The two graph encodings of the NIS paper.
ENCODINGS = ("direct", "nested")
ROOT = 0
CUE, MULTIWORD, SCOPE, EVENT, NEST = "cue", "mwc", "scope", "event", "nest"
#: Role names in the order they appear in a label.
ROLES = (CUE, MULTIWORD, SCOPE, EVENT, NEST)
_ROLE_ORDER = {role: position for position, role in enumerate(ROLES)}

#: ``(head node, dependent node) -> label``; node 0 is the root, token ``i`` is node ``i + 1``.
Graph = dict[tuple[int, int], str]


class GraphEncodingError(NegkitError):
    """A sentence whose instances cannot be put into one graph (two instances with the same cue tokens)."""


@dataclass(frozen=True)
class Role:
    """One role of a label: its name and the code of the word part it covers ("" for the default part)."""

    name: str
    code: str = ""

    def __str__(self) -> str:
        return f"{self.name}:{self.code}" if self.code else self.name


def join_label(roles: Sequence[Role]) -> str:
    """The label of a set of roles, in the fixed role order."""
    return "|".join(str(role) for role in sorted(roles, key=lambda role: _ROLE_ORDER.get(role.name, len(ROLES))))


def parse_label(label: str) -> list[Role]:
    """The roles of a label; unknown role names are kept (the decoder ignores them)."""
    roles = []
    for item in label.split("|"):
        name, _, code = item.partition(":")
        if name:
            roles.append(Role(name, code))
    return roles


def label_roles(label: str) -> frozenset[str]:
    """The role names of a label (``{"scope", "event"}`` for ``"scope|event"``)."""
    return frozenset(role.name for role in parse_label(label))


# --- word parts -------------------------------------------------------------------------------------------


def _default_start(word: str, text: str) -> int | None:
    """Where ``text`` sits in ``word`` as the CD-SCO reader places a cell: prefix, suffix, first occurrence."""
    if word.startswith(text):
        return 0
    if word.endswith(text):
        return len(word) - len(text)
    position = word.find(text)
    return None if position < 0 else position


def _valid_text(text: str) -> bool:
    return bool(text) and not any(character.isspace() for character in text)


def _literal(code: str, word: str) -> tuple[str, int | None] | None:
    body = code[1:]
    text, _, start = body.rpartition("@") if "@" in body else (body, "", "")
    text = unquote(text)
    if not _valid_text(text):
        return None
    if start.isdigit() and word[int(start) : int(start) + len(text)] == text:
        return text, int(start)
    return text, _default_start(word, text)  # an explicit start must fit the word


def _cue_part(index: int, word: str, code: str) -> TokenPart:
    """The cue part of token ``index`` a cue code stands for (the whole word when the code does not fit it)."""
    lowered = word.lower()
    kind, _, affix = code.partition("=")
    if code.startswith("="):
        literal = _literal(code, word)
        if literal is not None:
            return TokenPart(index, literal[0], literal[1])
    elif affix and len(affix) < len(word):
        if kind == "pre" and lowered.startswith(affix):
            return TokenPart(index, word[: len(affix)], 0)
        if kind == "suf" and lowered.endswith(affix):
            return TokenPart(index, word[len(word) - len(affix) :], len(word) - len(affix))
        position = lowered.find(affix, 1)
        if kind == "mid" and position > 0:
            return TokenPart(index, word[position : position + len(affix)], position)
    return TokenPart(index, word, 0)


def _covered_part(index: int, word: str, code: str, cue: Sequence[TokenPart]) -> TokenPart:
    """The scope or event part of token ``index``: the word, the rest of an affixed word, or a spelt-out part."""
    if code.startswith("="):
        literal = _literal(code, word)
        if literal is not None:
            return TokenPart(index, literal[0], literal[1])
    for part in cue:
        if part.index == index and part.text != word:
            start = part.start if part.start is not None else word.find(part.text)
            if start == 0 and len(part.text) < len(word):
                return TokenPart(index, word[len(part.text) :], len(part.text))
            if start > 0:
                return TokenPart(index, word[:start], 0)
    return TokenPart(index, word, 0)


def _literal_codes(part: TokenPart) -> list[str]:
    text = quote(part.text, safe="")
    return [f"={text}", f"={text}@{part.start}"]


def _cue_code(part: TokenPart, word: str) -> str:
    """The shortest code that decodes to exactly ``part``."""
    affix = part.text.lower()
    candidates = ["", f"pre={affix}", f"suf={affix}", f"mid={affix}"] if _plain(affix) else [""]
    for code in candidates + _literal_codes(part):
        if _cue_part(part.index, word, code) == part:
            return code
    raise AssertionError(f"no code for cue part {part!r} of {word!r}")  # the explicit literal always fits


def _covered_code(part: TokenPart, word: str, cue: Sequence[TokenPart]) -> str:
    for code in ["", *_literal_codes(part)]:
        if _covered_part(part.index, word, code, cue) == part:
            return code
    raise AssertionError(f"no code for part {part!r} of {word!r}")


def _plain(affix: str) -> bool:
    return bool(affix) and all(character not in "|:=@%" and not character.isspace() for character in affix)


# --- encoding ---------------------------------------------------------------------------------------------


def choose_anchors(sentence: ResolutionSentence) -> list[int]:
    """The anchor token of each instance: its first cue token not already taken by another instance.

    Instances with fewer cue tokens choose first, so "no" and "no way" sharing the token "no" get "no" and "way".
    """
    anchors: dict[int, int] = {}
    taken: set[int] = set()
    order = sorted(range(len(sentence.instances)), key=lambda k: (len({p.index for p in sentence.instances[k].cue}), k))
    for k in order:
        free = sorted({p.index for p in sentence.instances[k].cue} - taken)
        if not free:
            raise GraphEncodingError(
                f"sentence {sentence.sentence_id}: negation instance {k + 1} has no cue token "
                "of its own (another instance has the same cue tokens)"
            )
        anchors[k] = free[0]
        taken.add(free[0])
    return [anchors[k] for k in range(len(sentence.instances))]


def nesting_parents(sentence: ResolutionSentence, anchors: Sequence[int]) -> list[int | None]:
    """For each instance, the instance it is embedded in (nearest enclosing one), or ``None``.

    B is embedded in A when B has a non-empty scope, B's anchor is in A's scope, and B's scope parts are a
    subset of A's and smaller (equal scopes: the later instance is the inner one). Among several, the one with
    the smallest scope (then the later one) is the nearest.
    """
    scopes = [frozenset(instance.scope) for instance in sentence.instances]
    scope_tokens = [{part.index for part in instance.scope} for instance in sentence.instances]

    def key(k: int) -> tuple[int, int]:
        return len(scopes[k]), -k

    parents: list[int | None] = []
    for b in range(len(scopes)):
        outer = [
            a
            for a in range(len(scopes))
            if a != b and scopes[b] and anchors[b] in scope_tokens[a] and scopes[b] <= scopes[a] and key(b) < key(a)
        ]
        parents.append(min(outer, key=key) if outer else None)
    return parents


def encode(sentence: ResolutionSentence, encoding: str = "direct") -> Graph:
    """The graph of ``sentence``'s negation instances in the ``"direct"`` or ``"nested"`` encoding."""
    _check_encoding(encoding)
    words = sentence.words
    anchors = choose_anchors(sentence)
    parents = nesting_parents(sentence, anchors) if encoding == "nested" else [None] * len(anchors)
    roles: dict[tuple[int, int], list[Role]] = {}

    def add(anchor: int, token: int, role: Role) -> None:
        head = ROOT if token == anchor else anchor + 1
        roles.setdefault((head, token + 1), []).append(role)

    for k, instance in enumerate(sentence.instances):
        anchor = anchors[k]
        for part in instance.cue:
            add(
                anchor, part.index, Role(CUE if part.index == anchor else MULTIWORD, _cue_code(part, words[part.index]))
            )
        inherited = {
            part for child, parent in enumerate(parents) if parent == k for part in sentence.instances[child].scope
        }
        for name, parts in ((SCOPE, [p for p in instance.scope if p not in inherited]), (EVENT, instance.event)):
            for part in parts:
                add(anchor, part.index, Role(name, _covered_code(part, words[part.index], instance.cue)))
        for child, parent in enumerate(parents):
            if parent == k:
                roles.setdefault((anchor + 1, anchors[child] + 1), []).append(Role(NEST))
    return {edge: join_label(edge_roles) for edge, edge_roles in sorted(roles.items())}


# --- decoding ---------------------------------------------------------------------------------------------


def decode(
    words: Sequence[str], graph: Mapping[tuple[int, int], str], encoding: str = "direct"
) -> list[NegationInstance]:
    """The negation instances of a graph over the sentence ``words`` (any edge set gives valid instances).

    Every dependent of the root is the anchor of one instance; edges outside the sentence, from tokens that are no
    anchor, and roles that do not belong where they are (a ``cue`` role below a token, an ``mwc`` role below the
    root) are ignored. In the nested encoding, ``nest`` links add the nested instance's scope to its parent's.
    """
    _check_encoding(encoding)
    n = len(words)
    dependents: dict[int, list[tuple[int, list[Role]]]] = {}
    for (head, dependent), label in sorted(graph.items()):
        if 0 <= head <= n and 1 <= dependent <= n and head != dependent:
            dependents.setdefault(head, []).append((dependent - 1, parse_label(label)))
    anchors = [token for token, _ in dependents.get(ROOT, [])]
    root_roles = dict(dependents.get(ROOT, []))
    cues: dict[int, dict[int, TokenPart]] = {}
    for anchor in anchors:
        code = next((role.code for role in root_roles[anchor] if role.name == CUE), "")
        parts = {anchor: _cue_part(anchor, words[anchor], code)}
        for token, roles in dependents.get(anchor + 1, []):
            for role in roles:
                if role.name == MULTIWORD:
                    parts[token] = _cue_part(token, words[token], role.code)
        cues[anchor] = parts
    direct: dict[int, tuple[dict[int, TokenPart], dict[int, TokenPart]]] = {}
    children: dict[int, list[int]] = {}
    for anchor in anchors:
        cue = sorted(cues[anchor].values(), key=lambda part: part.index)
        scope: dict[int, TokenPart] = {}
        event: dict[int, TokenPart] = {}
        below = [(anchor, root_roles[anchor])] + dependents.get(anchor + 1, [])
        for token, roles in below:
            for role in roles:
                if role.name in (SCOPE, EVENT):
                    target = scope if role.name == SCOPE else event
                    target.setdefault(token, _covered_part(token, words[token], role.code, cue))
                elif role.name == NEST and encoding == "nested" and token in cues and token != anchor:
                    children.setdefault(anchor, []).append(token)
        direct[anchor] = (scope, event)

    resolved: dict[int, dict[int, TokenPart]] = {}

    def full_scope(anchor: int, visiting: set[int]) -> dict[int, TokenPart]:
        if anchor in resolved:
            return resolved[anchor]
        visiting.add(anchor)
        scope = dict(direct[anchor][0])
        for child in children.get(anchor, []):
            if child not in visiting:  # a nest link closing a cycle is ignored
                for token, part in full_scope(child, visiting).items():
                    scope.setdefault(token, part)
        visiting.discard(anchor)
        resolved[anchor] = scope
        return scope

    instances = []
    for anchor in anchors:
        cue_parts = tuple(sorted(cues[anchor].values(), key=lambda part: part.index))
        scope = full_scope(anchor, set()) if encoding == "nested" else direct[anchor][0]
        instances.append(NegationInstance(cue=cue_parts, scope=_ordered(scope), event=_ordered(direct[anchor][1])))
    return sorted(instances, key=lambda instance: instance.cue_indices)


def _ordered(parts: Mapping[int, TokenPart]) -> tuple[TokenPart, ...]:
    return tuple(parts[index] for index in sorted(parts))


def _check_encoding(encoding: str) -> None:
    if encoding not in ENCODINGS:
        raise NegkitError(f"unknown graph encoding {encoding!r} (expected one of {', '.join(ENCODINGS)})")


def canonical_instances(instances: Sequence[NegationInstance]) -> list[NegationInstance]:
    """``instances`` in the order :func:`decode` gives them (by cue token positions)."""
    return sorted(instances, key=lambda instance: instance.cue_indices)
