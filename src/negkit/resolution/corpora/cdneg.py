"""CD-neg: CD-SCO with coordinated negation ("neither ... nor") split into one instance per negator.

CD-SCO annotates "neither the country nor the sea presented ..." as *one* negation instance with a discontinuous
cue (neither, nor). Sineva et al. (2021) treat such a coordination as one negation per negator, which turns the
1,421 instances of CD-SCO (train, dev and test) into 1,432. negkit applies that rule here:

* an instance is **coordinated** when its cue has at least two tokens and every cue part is one of the whole words
  *neither*, *nor*, *no*, *not* (in CD-SCO: seven "neither ... nor", one "neither ... nor ... nor", one
  "no ... nor", one "Not ... not"; "by no means", "no ... more", "not for the world" are not coordinations);
* it becomes one instance per cue token, in token order, each with that token alone as its cue;
* the scope and event parts are divided by the **coordination**, the smallest constituent of the CD-SCO parse
  (field 7) that holds every cue token: a part inside it after cue token k and before the next cue token belongs to
  instance k only (its conjunct: "the country" to *neither*, "the sea" to *nor*); every part outside it (the shared
  subject or predicate: "presented the slightest attraction to him") belongs to every new instance. Without a
  usable parse the coordination runs to the end of the sentence.

On the released files this gives 987 / 176 / 269 instances for train / dev / test (984 / 173 / 264 before), 1,432
in all, the counts the paper states for its re-annotated data (its test set has 269 instances).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from negkit.resolution.instances import NegationInstance, ResolutionSentence, Token, TokenPart

#: The negators that form coordinated negation.
COORDINATED_NEGATORS = frozenset({"neither", "nor", "no", "not"})


def is_coordinated(instance: NegationInstance, tokens: Sequence[Token]) -> bool:
    """True for a cue of two or more whole-word negators ("neither ... nor", "no ... nor", "not ... not")."""
    if len({part.index for part in instance.cue}) < 2:
        return False
    return all(
        part.text == tokens[part.index].text and part.text.lower() in COORDINATED_NEGATORS for part in instance.cue
    )


def constituent_spans(tokens: Sequence[Token]) -> list[tuple[int, int]] | None:
    """The (first, last) token of every constituent of a CD-SCO parse (field 7: ``(S(NP*``, ``*)``, ...).

    ``None`` when a token has no fragment or the brackets do not balance.
    """
    spans: list[tuple[int, int]] = []
    open_at: list[int] = []
    for position, token in enumerate(tokens):
        fragment = token.syntax
        if not fragment or "*" not in fragment:
            return None
        before, _, after = fragment.partition("*")
        open_at.extend([position] * before.count("("))
        for _ in range(after.count(")")):
            if not open_at:
                return None
            spans.append((open_at.pop(), position))
    return spans if not open_at else None


def coordination_end(tokens: Sequence[Token], cue_tokens: Sequence[int]) -> int:
    """The last token of the smallest constituent holding every cue token (the end of the sentence without one)."""
    spans = constituent_spans(tokens) or []
    first, last = min(cue_tokens), max(cue_tokens)
    holding = [(end - start, end) for start, end in spans if start <= first and last <= end]
    return min(holding)[1] if holding else len(tokens) - 1


def split_instance(instance: NegationInstance, tokens: Sequence[Token]) -> list[NegationInstance]:
    """One instance per cue token of a coordinated instance (see the module text); others are returned as they are."""
    if not is_coordinated(instance, tokens):
        return [instance]
    cue_tokens = sorted({part.index for part in instance.cue})
    end = coordination_end(tokens, cue_tokens)

    def owner(index: int) -> int | None:
        """The conjunct (cue number) a token belongs to, or ``None`` for the shared material."""
        if index < cue_tokens[0] or index > end:
            return None
        return max(k for k, cue in enumerate(cue_tokens) if cue <= index)

    result = []
    for k, cue in enumerate(cue_tokens):

        def keep(parts: tuple[TokenPart, ...], k: int = k, cue: int = cue) -> tuple[TokenPart, ...]:
            return tuple(part for part in parts if owner(part.index) in (None, k) and part.index != cue)

        result.append(
            NegationInstance(
                cue=tuple(p for p in instance.cue if p.index == cue),
                scope=keep(instance.scope),
                event=keep(instance.event),
            )
        )
    return result


def split_coordinated_negation(sentences: Iterable[ResolutionSentence]) -> list[ResolutionSentence]:
    """Copies of ``sentences`` with every coordinated negation instance split (CD-neg)."""
    result = []
    for sentence in sentences:
        instances = [new for instance in sentence.instances for new in split_instance(instance, sentence.tokens)]
        result.append(replace(sentence, instances=instances) if len(instances) != len(sentence.instances) else sentence)
    return result
