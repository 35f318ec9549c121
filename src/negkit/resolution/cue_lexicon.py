"""Cue labels and the lexicons learned from training data that turn word labels back into cue instances.

A cue tagger labels each word with one of :data:`CUE_LABELS`:

* ``O`` -- not a cue;
* ``CUE`` -- a whole-word cue on its own ("not", "never", "without");
* ``AFFIX`` -- a word carrying an affix cue ("impossible", "careless"); the affix string is chosen from the
  :class:`AffixLexicon` of affixes seen in training, and the rest of the word is the part a scope can hold;
* ``MULTI`` -- part of a multiword cue ("by no means", "neither ... nor"); the parts are grouped into
  instances with the :class:`MultiwordLexicon` of multiword cues seen in training.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from negkit.resolution.instances import NegationInstance, ResolutionSentence, TokenPart

NOT_CUE, WHOLE_CUE, AFFIX_CUE, MULTIWORD_CUE = "O", "CUE", "AFFIX", "MULTI"
CUE_LABELS: tuple[str, ...] = (NOT_CUE, WHOLE_CUE, AFFIX_CUE, MULTIWORD_CUE)


def cue_labels_for(sentence: ResolutionSentence) -> list[str]:
    """The gold word labels of a sentence (the first instance that claims a word decides its label)."""
    labels = [NOT_CUE] * len(sentence.tokens)
    for instance in sentence.instances:
        multiword = instance.is_multiword()
        for part in instance.cue:
            if labels[part.index] != NOT_CUE:
                continue
            if part.is_partial(sentence.tokens[part.index]):
                labels[part.index] = AFFIX_CUE
            else:
                labels[part.index] = MULTIWORD_CUE if multiword else WHOLE_CUE
    return labels


@dataclass
class AffixLexicon:
    """Affix cues seen in training, counted by kind: prefixes ("un", "im") and inner/suffix affixes ("less")."""

    prefixes: Counter[str] = field(default_factory=Counter)
    inner: Counter[str] = field(default_factory=Counter)

    @classmethod
    def learn(cls, sentences: Iterable[ResolutionSentence]) -> AffixLexicon:
        lexicon = cls()
        for sentence in sentences:
            for instance in sentence.instances:
                for part in instance.cue:
                    word = sentence.tokens[part.index].text.lower()
                    affix = part.text.lower()
                    if affix == word or not affix:
                        continue
                    position = word.find(affix)
                    if position == 0:
                        lexicon.prefixes[affix] += 1
                    elif position > 0:
                        lexicon.inner[affix] += 1
        return lexicon

    def split(self, index: int, word: str) -> TokenPart | None:
        """The affix cue part of ``word`` (token ``index``), or ``None`` when no known affix fits.

        An inner affix found after the first character wins ("less" in "restlessly"); otherwise the
        longest known prefix, the most frequent on ties. :func:`affix_remainder` gives the rest of the word.
        """
        lowered = word.lower()
        inner = [(len(a), self.inner[a], a) for a in self.inner if lowered.find(a, 1) > 0]
        if inner:
            affix = max(inner)[2]
            position = lowered.find(affix, 1)
            return TokenPart(index, word[position : position + len(affix)], position)
        prefixes = [
            (len(a), self.prefixes[a], a) for a in self.prefixes if lowered.startswith(a) and len(a) < len(word)
        ]
        if prefixes:
            affix = max(prefixes)[2]
            return TokenPart(index, word[: len(affix)], 0)
        return None

    def to_json(self) -> dict[str, dict[str, int]]:
        return {"prefixes": dict(sorted(self.prefixes.items())), "inner": dict(sorted(self.inner.items()))}

    @classmethod
    def from_json(cls, data: dict[str, dict[str, int]]) -> AffixLexicon:
        return cls(Counter(data.get("prefixes", {})), Counter(data.get("inner", {})))


@dataclass
class MultiwordLexicon:
    """Multiword cues seen in training, as lower-cased word sequences ("by no means", "neither nor"), and
    how often each word was a single-word cue on its own ("nor" is, "neither" never is in CD-SCO)."""

    cues: Counter[tuple[str, ...]] = field(default_factory=Counter)
    single_words: Counter[str] = field(default_factory=Counter)

    @classmethod
    def learn(cls, sentences: Iterable[ResolutionSentence]) -> MultiwordLexicon:
        lexicon = cls()
        for sentence in sentences:
            for instance in sentence.instances:
                words = tuple(sentence.tokens[p.index].text.lower() for p in instance.cue)
                if instance.is_multiword():
                    lexicon.cues[words] += 1
                elif not instance.is_affixal(sentence.tokens):
                    lexicon.single_words[words[0]] += 1
        return lexicon

    def only_in_multiword_cues(self, word: str) -> bool:
        """True for a word seen in training only as part of multiword cues ("neither")."""
        lowered = word.lower()
        return self.single_words[lowered] == 0 and any(lowered in cue for cue in self.cues)

    def group(
        self, multiword: Sequence[int], single: Sequence[int], words: Sequence[str]
    ) -> tuple[list[list[int]], list[int]]:
        """Group whole-word cue positions into instances: ``(multiword groups, single-word positions)``.

        ``multiword`` holds the positions labelled as multiword-cue parts, ``single`` those labelled as
        single-word cues. Known multiword cues are matched first (longest, then most frequent) as in-order
        subsequences of all free positions that include a multiword-labelled word or a word only ever seen
        in multiword cues (so "neither" ... "nor" labelled as two single cues still become one instance).
        Multiword-labelled positions left over form one more group; other leftovers stay single cues.
        """
        free = sorted(set(multiword) | set(single))
        anchors = set(multiword) | {p for p in single if self.only_in_multiword_cues(words[p])}
        groups: list[list[int]] = []
        for entry in sorted(self.cues, key=lambda cue: (-len(cue), -self.cues[cue], cue)):
            while (match := _subsequence(entry, free, words)) is not None and anchors.intersection(match):
                groups.append(match)
                free = [p for p in free if p not in match]
        leftover_multiword = [p for p in free if p in set(multiword)]
        if len(leftover_multiword) > 1:
            groups.append(leftover_multiword)
        singles = [p for p in free if p not in set(multiword) or len(leftover_multiword) == 1]
        return sorted(groups), singles

    def to_json(self) -> dict[str, object]:
        return {
            "cues": [{"words": list(cue), "count": count} for cue, count in sorted(self.cues.items())],
            "single_words": dict(sorted(self.single_words.items())),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MultiwordLexicon:
        cues = Counter({tuple(item["words"]): int(item["count"]) for item in data["cues"]})
        return cls(cues, Counter(data.get("single_words", {})))


def _subsequence(entry: tuple[str, ...], free: list[int], words: Sequence[str]) -> list[int] | None:
    """The leftmost in-order positions of ``free`` whose lower-cased words spell ``entry``, or ``None``."""
    match: list[int] = []
    for position in free:
        if len(match) < len(entry) and words[position].lower() == entry[len(match)]:
            match.append(position)
    return match if len(match) == len(entry) else None


def decode_cues(
    words: Sequence[str], labels: Sequence[str], affixes: AffixLexicon, multiwords: MultiwordLexicon
) -> list[NegationInstance]:
    """Cue instances (no scope yet) from word labels, ordered by their first cue position."""
    cues: list[tuple[TokenPart, ...]] = []
    for index, (word, label) in enumerate(zip(words, labels)):
        if label == AFFIX_CUE:
            affix = affixes.split(index, word)
            cues.append((affix or TokenPart(index, word, 0),))
    multiword = [i for i, label in enumerate(labels) if label == MULTIWORD_CUE]
    single = [i for i, label in enumerate(labels) if label == WHOLE_CUE]
    groups, singles = multiwords.group(multiword, single, words)
    cues += [tuple(TokenPart(p, words[p], 0) for p in group) for group in groups]
    cues += [(TokenPart(p, words[p], 0),) for p in singles]
    cues.sort(key=lambda cue: cue[0].index)
    return [NegationInstance(cue=cue) for cue in cues]


def affix_remainder(instance: NegationInstance, words: Sequence[str], position: int) -> TokenPart | None:
    """The scope part of a word carrying an affix cue of ``instance``: the word without its affix."""
    for part in instance.cue:
        if part.index != position or part.text == words[position]:
            continue
        start = part.start if part.start is not None else words[position].find(part.text)
        if start is None or start < 0:
            return None
        if start == 0:
            rest = words[position][len(part.text) :]
            return TokenPart(position, rest, len(part.text)) if rest else None
        return TokenPart(position, words[position][:start], 0)
    return None
