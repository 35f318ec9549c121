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

from negkit.data.resolution import NegationInstance, ResolutionSentence, TokenPart

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
        prefixes = [(len(a), self.prefixes[a], a) for a in self.prefixes if lowered.startswith(a) and len(a) < len(word)]
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
    """Multiword cues seen in training, as lower-cased word sequences ("by no means", "neither nor")."""

    cues: Counter[tuple[str, ...]] = field(default_factory=Counter)

    @classmethod
    def learn(cls, sentences: Iterable[ResolutionSentence]) -> MultiwordLexicon:
        lexicon = cls()
        for sentence in sentences:
            for instance in sentence.instances:
                if instance.is_multiword():
                    lexicon.cues[tuple(sentence.tokens[p.index].text.lower() for p in instance.cue)] += 1
        return lexicon

    def group(self, positions: Sequence[int], words: Sequence[str]) -> list[list[int]]:
        """Group the positions labelled as multiword-cue parts into instances.

        Known multiword cues are matched first (longest, then most frequent), each as an in-order
        subsequence of the positions still free; what is left forms one more instance (a lone leftover
        word becomes a single-word cue).
        """
        free = list(positions)
        groups: list[list[int]] = []
        for entry in sorted(self.cues, key=lambda cue: (-len(cue), -self.cues[cue], cue)):
            while True:
                match = _subsequence(entry, free, words)
                if match is None:
                    break
                groups.append(match)
                free = [p for p in free if p not in match]
        if free:
            groups.append(free)
        return sorted(groups)

    def to_json(self) -> list[dict[str, object]]:
        return [{"words": list(cue), "count": count} for cue, count in sorted(self.cues.items())]

    @classmethod
    def from_json(cls, data: list[dict[str, object]]) -> MultiwordLexicon:
        return cls(Counter({tuple(item["words"]): int(item["count"]) for item in data}))  # type: ignore[arg-type]


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
    multi_positions: list[int] = []
    for index, (word, label) in enumerate(zip(words, labels)):
        if label == AFFIX_CUE:
            affix = affixes.split(index, word)
            cues.append((affix or TokenPart(index, word, 0),))
        elif label == WHOLE_CUE:
            cues.append((TokenPart(index, word, 0),))
        elif label == MULTIWORD_CUE:
            multi_positions.append(index)
    for group in multiwords.group(multi_positions, words):
        cues.append(tuple(TokenPart(p, words[p], 0) for p in group))
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
