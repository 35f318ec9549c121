"""A direct reader of the Princeton WordNet 3.0 database files (``data.*``, ``index.*``, ``index.sense``, ``*.exc``).

Synsets are addressed as in the TIND raw files: an 8-digit byte offset into ``data.POS`` plus a POS letter
(``00021265-n``). Single synsets are read lazily by seeking to their offset (fast for realisation); the
generator walks whole files with :meth:`WordNet.synsets`.

Where the files are: ``WNSEARCHDIR`` (WordNet's own variable), then ``$WNHOME/dict``, then the Debian
``wordnet-base`` location ``/usr/share/wordnet``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from negkit.errors import DataNotFoundError, InputFormatError

#: File-name suffix of each POS letter (satellites ``s`` live in the adjective files).
POS_FILES: dict[str, str] = {"n": "noun", "v": "verb", "a": "adj", "s": "adj", "r": "adv"}

#: POS letter of the ``ss_type`` digit of a sense key.
_SENSE_KEY_POS = {"1": "n", "2": "v", "3": "a", "4": "r", "5": "s"}

#: The 45 lexicographer files of WordNet 3.0, indexed by ``lex_filenum``.
LEXICOGRAPHER_FILES: tuple[str, ...] = (
    "adj.all",
    "adj.pert",
    "adv.all",
    "noun.Tops",
    "noun.act",
    "noun.animal",
    "noun.artifact",
    "noun.attribute",
    "noun.body",
    "noun.cognition",
    "noun.communication",
    "noun.event",
    "noun.feeling",
    "noun.food",
    "noun.group",
    "noun.location",
    "noun.motive",
    "noun.object",
    "noun.person",
    "noun.phenomenon",
    "noun.plant",
    "noun.possession",
    "noun.process",
    "noun.quantity",
    "noun.relation",
    "noun.shape",
    "noun.state",
    "noun.substance",
    "noun.time",
    "verb.body",
    "verb.change",
    "verb.cognition",
    "verb.communication",
    "verb.competition",
    "verb.consumption",
    "verb.contact",
    "verb.creation",
    "verb.emotion",
    "verb.motion",
    "verb.perception",
    "verb.possession",
    "verb.social",
    "verb.stative",
    "verb.weather",
    "adj.ppl",
)


@dataclass(frozen=True)
class Pointer:
    """One relation from a synset: WordNet pointer symbol (``@`` hypernym, ``!`` antonym, ...) and target."""

    symbol: str
    target: str  # synset id "OFFSET-POS"
    source_word: int  # 1-based word number in the source synset, 0 for a semantic (synset) pointer
    target_word: int


@dataclass(frozen=True)
class Synset:
    """One WordNet synset as stored in ``data.POS``."""

    synset_id: str  # "00021265-n"
    lexicographer_file: str
    lemmas: tuple[str, ...]  # as written in the file: underscores, original case, adjective markers removed
    gloss: str  # everything after "| ", definition and examples
    pointers: tuple[Pointer, ...]

    @property
    def pos(self) -> str:
        return self.synset_id[-1]

    @property
    def definition(self) -> str:
        """The gloss up to its first ``;`` (the definition without examples)."""
        return self.gloss.split(";", 1)[0].strip()


def default_wordnet_folder() -> Path:
    """The WordNet ``dict`` folder by the search order in the module doc."""
    if os.environ.get("WNSEARCHDIR"):
        return Path(os.environ["WNSEARCHDIR"])
    if os.environ.get("WNHOME"):
        return Path(os.environ["WNHOME"]) / "dict"
    return Path("/usr/share/wordnet")


def split_synset_id(synset_id: str) -> tuple[int, str]:
    """``"00021265-n"`` -> ``(21265, "n")``."""
    offset, _, pos = synset_id.partition("-")
    return int(offset), pos


class WordNet:
    """Read access to one WordNet database folder."""

    def __init__(self, folder: str | Path | None = None) -> None:
        self.folder = Path(folder) if folder else default_wordnet_folder()
        if not (self.folder / "data.noun").is_file():
            raise DataNotFoundError(
                f"WordNet 3.0 database not found in {self.folder}; install it with: sudo apt-get install wordnet-base "
                "(Debian, Ubuntu), or set WNSEARCHDIR to a WordNet 3.0 dict/ folder"
            )
        for pos_file in ("data.noun", "data.verb"):
            if (self.folder / pos_file).is_file() and (self.folder / pos_file).stat().st_size == 0:
                raise InputFormatError(
                    self.folder / pos_file, None, "empty file (a WordNet 3.0 database file expected)"
                )
        self._cache: dict[str, Synset] = {}
        self._handles: dict[str, object] = {}
        self._to_local: dict[str, dict[int, int]] = {}  # pos letter -> Princeton offset -> local offset
        self._to_princeton: dict[str, dict[int, int]] = {}

    def align(self, pos: str, princeton_offsets: list[int]) -> bool:
        """Translate this database's byte offsets to Princeton's for one POS file.

        Debian's ``wordnet-base`` rebuilds the database from the lexicographer sources, and in its
        ``data.verb`` about 6,300 synsets sit 18 bytes after their Princeton offsets. TIND and the side
        resources use Princeton's offsets. Given the sorted Princeton offsets of every synset of the file
        (the BLC files list them all), synsets are paired in file order; ids read or written by this
        object are then Princeton ids. Returns False (and changes nothing) if the counts differ.
        """
        local = self._local_offsets(pos)
        princeton = sorted(princeton_offsets)
        if len(local) != len(princeton):
            return False
        self._to_local[pos] = dict(zip(princeton, local))
        self._to_princeton[pos] = dict(zip(local, princeton))
        self._cache.clear()
        self.__dict__.pop("_indexes", None)
        return True

    def _local_offsets(self, pos: str) -> list[int]:
        offsets = []
        position = 0
        with (self.folder / f"data.{POS_FILES[pos]}").open("rb") as handle:
            for line in handle:
                if not line.startswith(b" "):
                    offsets.append(position)
                position += len(line)
        return offsets

    def _locate(self, handle, offset: int) -> int:  # type: ignore[no-untyped-def]
        """Local byte offset of Princeton ``offset``: exact, or the one line start within 40 bytes."""
        handle.seek(max(0, offset - 40))
        window = handle.read(120)
        base = max(0, offset - 40)
        starts = [base] if base == 0 else []
        starts += [base + index + 1 for index, byte in enumerate(window) if byte == 10]
        valid = [start for start in starts if window[start - base : start - base + 9] == b"%08d " % start]
        if not valid:
            return offset
        return min(valid, key=lambda start: abs(start - offset))

    # -- synsets -------------------------------------------------------------------------------------------
    def synset(self, synset_id: str) -> Synset:
        """The synset with this id (read by seeking to its byte offset)."""
        found = self._cache.get(synset_id)
        if found is None:
            offset, pos = split_synset_id(synset_id)
            path = self.folder / f"data.{POS_FILES[pos]}"
            handle = self._handles.get(path.name)
            if handle is None:
                handle = self._handles[path.name] = path.open("rb")
            letter = "a" if pos == "s" else pos
            if letter in self._to_local:
                local = self._to_local[letter].get(offset, -1)
            else:
                local = self._locate(handle, offset)
            handle.seek(max(local, 0))  # type: ignore[attr-defined]
            line = handle.readline().decode("utf-8")  # type: ignore[attr-defined]
            if local < 0 or not line.startswith(f"{local:08d} "):
                raise InputFormatError(path, None, f"no synset {synset_id}")
            found = self._cache[synset_id] = self._parse(line)
        return found

    def synsets(self, pos: str) -> Iterator[Synset]:
        """Every synset of one POS file (``n``, ``v``, ``a`` or ``r``), in file order."""
        path = self.folder / f"data.{POS_FILES[pos]}"
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                if not line.startswith(" "):
                    synset = self._parse(line)
                    self._cache.setdefault(synset.synset_id, synset)
                    yield synset

    def _parse(self, line: str) -> Synset:
        synset = parse_data_line(line)
        if not self._to_princeton:
            return synset
        return Synset(
            synset_id=self.princeton_id(synset.synset_id),
            lexicographer_file=synset.lexicographer_file,
            lemmas=synset.lemmas,
            gloss=synset.gloss,
            pointers=tuple(
                Pointer(p.symbol, self.princeton_id(p.target), p.source_word, p.target_word) for p in synset.pointers
            ),
        )

    def princeton_id(self, local_id: str) -> str:
        """The Princeton id of a local synset id (identity where no alignment is known)."""
        offset, pos = split_synset_id(local_id)
        table = self._to_princeton.get("a" if pos == "s" else pos)
        return f"{table.get(offset, offset):08d}-{pos}" if table else local_id

    def _offset_to_id(self, pos: str) -> Callable[[str], str]:
        """``offset text -> Princeton synset id`` for one POS: :meth:`princeton_id` of ``OFFSET-pos`` with the
        alignment looked up once (the index files hold some 600,000 offsets, written with eight digits, and few of
        them move)."""
        table = self._to_princeton.get("a" if pos == "s" else pos, {})
        moved = {f"{local:08d}": f"{princeton:08d}-{pos}" for local, princeton in table.items() if local != princeton}
        return lambda offset: moved.get(offset) or f"{offset}-{pos}"

    # -- index: lemma -> senses ----------------------------------------------------------------------------
    def senses(self, lemma: str, pos: str) -> list[str]:
        """Synset ids of ``lemma`` (spaces or underscores, any case) in sense-number order."""
        return self._index(pos).get(lemma.lower().replace(" ", "_"), [])

    def sense_number(self, lemma: str, synset_id: str) -> int:
        """1-based sense number of ``lemma`` in ``synset_id`` (0 if the lemma is not in that synset)."""
        senses = self.senses(lemma, synset_id[-1])
        return senses.index(synset_id) + 1 if synset_id in senses else 0

    def _index(self, pos: str) -> dict[str, list[str]]:
        key = POS_FILES[pos]
        cached = self.__dict__.setdefault("_indexes", {})
        if key not in cached:
            table: dict[str, list[str]] = {}
            to_id = self._offset_to_id("a" if pos == "s" else pos)
            with (self.folder / f"index.{key}").open(encoding="utf-8") as handle:
                for line in handle:
                    if line.startswith(" "):
                        continue
                    fields = line.split()
                    count = int(fields[2])
                    pointer_count = int(fields[3])
                    offsets = fields[6 + pointer_count : 6 + pointer_count + count]
                    table[fields[0]] = [to_id(offset) for offset in offsets]
            cached[key] = table
        return cached[key]

    def _sense_index(self) -> dict[str, tuple[str, int]]:
        """``index.sense``: sense key -> (Princeton synset id, tagged-corpus count)."""
        table = self.__dict__.get("_sense_table")
        if table is None:
            table = {}
            to_id = {pos: self._offset_to_id(pos) for pos in set(_SENSE_KEY_POS.values())}
            with (self.folder / "index.sense").open(encoding="utf-8") as handle:
                for line in handle:
                    key, offset, _sense_number, count = line.split()
                    table[key] = (to_id[_SENSE_KEY_POS[key.split("%", 1)[1][0]]](offset), int(count))
            self.__dict__["_sense_table"] = table
        return table

    def synset_of_sense_key(self, sense_key: str) -> str | None:
        """Synset id of a sense key (``food%1:13:00::`` -> ``00021265-n``), from ``index.sense``."""
        found = self._sense_index().get(sense_key.lower())
        return found[0] if found else None

    def tag_count(self, lemma: str, synset_id: str) -> int:
        """How often ``lemma`` in ``synset_id`` is tagged in WordNet's sense-tagged corpora (``index.sense``)."""
        counts = self.__dict__.get("_tag_counts")
        if counts is None:
            counts = {}
            for key, (found_id, count) in self._sense_index().items():
                counts[(key.split("%", 1)[0], found_id)] = count
            self.__dict__["_tag_counts"] = counts
        return counts.get((lemma.lower().replace(" ", "_"), synset_id), 0)

    # -- morphology exceptions -------------------------------------------------------------
    def exceptions(self, pos: str) -> dict[str, list[str]]:
        """``base form -> inflected forms`` from ``POS.exc`` (e.g. ``mouse -> [mice]``), in file order."""
        cached = self.__dict__.setdefault("_exceptions", {})
        key = POS_FILES[pos]
        if key not in cached:
            table: dict[str, list[str]] = {}
            with (self.folder / f"{key}.exc").open(encoding="utf-8") as handle:
                for line in handle:
                    inflected, *bases = line.split()
                    for base in bases:
                        table.setdefault(base, []).append(inflected)
            cached[key] = table
        return cached[key]


def parse_data_line(line: str) -> Synset:
    """Parse one line of a ``data.POS`` file."""
    body, _, gloss = line.partition(" | ")
    fields = body.split()
    offset, lex_filenum, pos = fields[0], int(fields[1]), fields[2]
    word_count = int(fields[3], 16)
    lemmas = []
    for index in range(word_count):
        word = fields[4 + 2 * index]
        if pos in "as" and word.endswith(")") and "(" in word:
            word = word[: word.index("(")]  # adjective position markers like "(p)"
        lemmas.append(word)
    position = 4 + 2 * word_count
    pointer_count = int(fields[position])
    pointers = []
    for index in range(pointer_count):
        symbol, target, target_pos, source_target = fields[position + 1 + 4 * index : position + 5 + 4 * index]
        pointers.append(
            Pointer(symbol, f"{target}-{target_pos}", int(source_target[:2], 16), int(source_target[2:], 16))
        )
    return Synset(
        synset_id=f"{offset}-{pos}",
        lexicographer_file=LEXICOGRAPHER_FILES[lex_filenum],
        lemmas=tuple(lemmas),
        gloss=gloss.strip(),
        pointers=tuple(pointers),
    )
