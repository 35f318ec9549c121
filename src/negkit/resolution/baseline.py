"""The punctuation baseline (Punct-BL) of Sineva et al. (2021), as defined in the metrics spec, section 9.

Cues are the gold cues. The scope of an instance starts at its first (leftmost) cue token and runs
rightwards to the next punctuation token (excluded) or the end of the sentence; the instance's own cue
tokens are skipped (so the words between the parts of a discontinuous cue are in scope) and an affix cue
token gets no scope cell. No events are predicted.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from negkit.resolution.instances import NegationInstance, ResolutionSentence, Token, TokenPart
from negkit.resolution.metrics.starsem import is_punctuation_tag


def is_punctuation_token(token: Token) -> bool:
    """Punctuation by the *SEM POS rule (spec 3.2) when the token has a tag, otherwise by the word
    (no letter, digit or underscore at all), which is how NIS decides (spec 8.2)."""
    if token.pos is not None:
        return is_punctuation_tag(token.pos)
    return not any(character.isalnum() or character == "_" for character in token.text)


def punctuation_scope(tokens: list[Token], cue: tuple[TokenPart, ...]) -> tuple[TokenPart, ...]:
    """The Punct-BL scope of one cue: the words from its first cue token rightwards up to punctuation."""
    if not cue:
        return ()
    cue_positions = {part.index for part in cue}
    scope: list[TokenPart] = []
    for position in range(min(cue_positions) + 1, len(tokens)):
        token = tokens[position]
        if is_punctuation_token(token):
            break
        if position not in cue_positions:
            scope.append(TokenPart(index=position, text=token.text, start=0))
    return tuple(scope)


class PunctuationBaseline:
    """Punct-BL with a fit/predict shape; ``fit`` learns nothing and exists so systems are interchangeable."""

    def fit(self, sentences: Iterable[ResolutionSentence]) -> PunctuationBaseline:
        """Nothing to learn; returns ``self``."""
        return self

    def predict(self, sentences: Iterable[ResolutionSentence]) -> list[ResolutionSentence]:
        """New sentences with the gold cues of ``sentences`` and baseline scopes (no events)."""
        return [self.predict_sentence(sentence) for sentence in sentences]

    def predict_sentence(self, sentence: ResolutionSentence) -> ResolutionSentence:
        """The baseline's annotation of one sentence (its gold cues are kept)."""
        instances = [
            NegationInstance(cue=instance.cue, scope=punctuation_scope(sentence.tokens, instance.cue))
            for instance in sentence.instances
        ]
        return replace(sentence, instances=instances, speculation=[])
