"""English morphology for template slots: noun plurals, -ing forms, indefinite articles.

Forms come from general spelling rules plus WordNet's own exception lists (``noun.exc``, ``verb.exc``);
nothing is looked up per word in the TIND data. Multi-word expressions inflect their head: the last word
of a noun compound (``guinea pig`` -> ``guinea pigs``), the first word of a phrasal verb (``give up`` ->
``giving up``).

Two spellings (:data:`SPELLINGS`) for articles and plurals:

- ``"release"`` (default): the rules the authors' release follows (argued from the data in
  ``docs/tind-generator.md``). Articles by the classic spelling rules for English indefinite articles
  (Conway's, as in Lingua::EN::Inflect): a silent-h stem takes ``an`` (hour, heir, honest, hono[u]r), a
  letter read by its name its name's sound (``an X-ray``, ``an MBA``), ``eu``/``ew`` in lower case (``a eulogy``;
  the release writes ``An Europe``), ``one``/``once``,
  ``uni`` (not before n/m/d) and ``u`` + one of b c f h j k q r s t + vowel take ``a`` (``a unit``, ``a use``),
  other vowel letters ``an``, consonant letters ``a`` (``a herb``, British). Plurals: ``noun.exc``, then
  ``-es`` after s, x, z, ch, sh and o (``radioes``), ``-ies`` after consonant + y, else ``-s``.
- ``"corrected"``: pronunciation-aware English for generated data: more vowel-sound and consonant-sound
  stems (``an herb``) and ``-s`` after o (``radios``; ``noun.exc`` still gives ``potatoes``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

VOWELS = "aeiou"
SPELLINGS = ("release", "corrected")

#: Single letters and acronyms read letter by letter whose name starts with a vowel sound (``an MBA``).
_VOWEL_LETTER_NAMES = set("AEFHILMNORSX")

# -- "release": the classic spelling rules, in the order they are tried -----------------------------------
_RELEASE_RULES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, flags), article)
    for pattern, article, flags in (
        (r"^(hour(?!i)|heir|honest|hono[u]?r)", "an", re.IGNORECASE),  # silent h
        (r"^[^aeiouy]", "a", re.IGNORECASE),  # consonant letters
        # "you" sound: a eulogy, a ewe; lower case only: the release writes "An Europe" (a proper noun keeps the
        # vowel letter's "an"), while "a United", "a unit", "a university" follow the rules below
        (r"^e[uw]", "a", 0),
        (r"^onc?e\b", "a", re.IGNORECASE),  # "w" sound: a one-off, a once-great
        (r"^uni([^nmd]|mo)", "a", re.IGNORECASE),  # a unit, a university, a United (not: an unnamed)
        (r"^ut[th]", "an", re.IGNORECASE),
        (r"^u[bcfhjkqrst][aeiou]", "a", re.IGNORECASE),  # a use, a user, a urine
        (r"^[aeiou]", "an", re.IGNORECASE),
        (r"^y(b[lor]|cl[ea]|fere|gg|p[ios]|rou|tt)", "an", re.IGNORECASE),  # y read as a vowel
    )
)

# -- "corrected": pronunciation-aware exceptions -----------------------------------------------------------
#: Words spelled with a vowel letter but read with a consonant sound (``a unicorn``, ``a one-off``).
_CONSONANT_SOUND = re.compile(r"^(uni|use|usu|uti|ura|ure|uri|uro|eu|ewe|one|once|ubiq|ufo|uk)", re.IGNORECASE)
#: Words spelled with a consonant letter but read with a vowel sound (``an hour``, ``an honest``, ``an herb``).
_VOWEL_SOUND = re.compile(r"^(hour|honest|honor|honour|heir|herb(?!al))", re.IGNORECASE)


def _check_spelling(spelling: str) -> None:
    if spelling not in SPELLINGS:
        raise ValueError(f"unknown spelling {spelling!r}; choose one of {SPELLINGS}")


def indefinite_article(phrase: str, spelling: str = "release") -> str:
    """``a`` or ``an`` for ``phrase`` by its first word (see the module documentation for the two spellings)."""
    _check_spelling(spelling)
    word = phrase.split(" ", 1)[0].split("-", 1)[0]
    if not word:
        return "a"
    if word.isupper() and (len(word) > 1 or phrase[1:2] in ("-", "")):  # acronym or letter read by its name
        return "an" if word[0] in _VOWEL_LETTER_NAMES else "a"
    if spelling == "release":
        for pattern, article in _RELEASE_RULES:
            if pattern.search(word):
                return article
        return "a"
    if _VOWEL_SOUND.match(word):
        return "an"
    if _CONSONANT_SOUND.match(word):
        return "a"
    return "an" if word[0].lower() in VOWELS else "a"


def with_article(phrase: str, spelling: str = "release") -> str:
    """``phrase`` preceded by its indefinite article (``an apple``)."""
    return f"{indefinite_article(phrase, spelling)} {phrase}"


def _plural_of_word(word: str, exceptions: Mapping[str, list[str]], spelling: str) -> str:
    forms = exceptions.get(word.lower())
    if forms:
        return forms[0]
    lower = word.lower()
    if lower.endswith(("s", "x", "z", "ch", "sh")) or (spelling == "release" and lower.endswith("o")):
        return word + "es"
    if lower.endswith("y") and len(lower) > 1 and lower[-2] not in VOWELS:
        return word[:-1] + "ies"
    return word + "s"


def plural(noun: str, exceptions: Mapping[str, list[str]], spelling: str = "release") -> str:
    """Plural of a noun or noun compound; ``exceptions`` is ``noun.exc`` as ``base -> inflected forms``."""
    _check_spelling(spelling)
    whole = exceptions.get(noun.lower().replace(" ", "_"))
    if whole:
        return whole[0].replace("_", " ")
    head_start = max(noun.rfind(" "), noun.rfind("-")) + 1
    return noun[:head_start] + _plural_of_word(noun[head_start:], exceptions, spelling)


def _doubles_final_consonant(verb: str) -> bool:
    """Short stressed CVC verbs double their last consonant (``run`` -> ``running``)."""
    lower = verb.lower()
    if len(lower) < 3 or lower[-1] in VOWELS + "wxy":
        return False
    if lower[-2] not in VOWELS or lower[-3] in VOWELS:
        return False
    return sum(1 for letter in lower if letter in VOWELS) == 1


def ing_form(verb: str, exceptions: Mapping[str, list[str]]) -> str:
    """Present participle of a verb or phrasal verb; ``exceptions`` is ``verb.exc`` as ``base -> forms``.

    An irregular ``-ing`` form listed in ``verb.exc`` (``lie -> lying``) wins; otherwise spelling rules:
    ``ie -> ying``, silent ``e`` dropped (but ``ee``, ``ye``, ``oe`` kept), CVC doubling for one-syllable verbs.
    """
    head, space, rest = verb.partition(" ")
    for form in exceptions.get(head.lower(), []):
        if form.endswith("ing"):
            return form + space + rest
    lower = head.lower()
    if lower.endswith("ie"):
        stem = head[:-2] + "y"
    elif lower.endswith("e") and not lower.endswith(("ee", "ye", "oe")) and len(lower) > 2:
        stem = head[:-1]
    elif _doubles_final_consonant(head):
        stem = head + head[-1]
    else:
        stem = head
    return stem + "ing" + space + rest
