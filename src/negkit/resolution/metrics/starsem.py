"""The *SEM 2012 CD-SCO scorer (``eval.cd-sco.pl`` v2.2), reproduced number for number.

The official script works on the raw lines of a gold and a system file in three passes; so does this
module (see ``docs/scorer.md`` and the project's metric specification, sections 2-7):

1. line alignment: blank lines and fields 1-4 (chapter, sentence, token number, word) must agree;
2. system format: one field count per sentence, ``8`` or ``7 + 3n``; ``***`` consistency;
3. evaluation: sentences end at a gold blank line *or at the end of either file*, so the last token
   line of a file without a final empty line is never counted (the end-of-file rule); punctuation
   (for scopes only) is decided by the gold POS tag; scope words get the abbreviation rule
   (``Mr.`` -> ``Mr``); instances are paired greedily by cue-position overlap (events by
   event-position overlap for the Negated row, with its last-triple quirk); partial cue matches are
   false negatives only; the "no cue match" rows print the cue-match tp; F1 comes from the rounded
   percentages.

Options of :func:`score_starsem`:

``strict=True`` (default)
    Also rejects input the official script mis-scores silently (spec "Recommendations"): system
    sentences with only the 7 base fields, an 8-field line whose field 8 is not ``***``, empty
    sentences, empty fields, spaces inside negation cells, ``***`` inside negation columns, gold
    sentences with those defects or an instance without a cue. Well-formed files get exactly the
    official numbers either way. ``strict=False`` accepts what the official script accepts and
    scores it as the official script does.
``corrected=True``
    Fixes the known quirks (numbers then differ from the official ones):

    * a cue pair whose cues differ counts a false positive as well as a false negative (Cues, Full
      negation, and the scope rows when the system scope is non-empty); a wrong non-empty system scope
      on a correct cue is a false positive as well as a false negative (Scopes rows) -- so the
      non-B precisions equal the B precisions;
    * the "no cue match" scope rows print the true positives they score (tp_sa);
    * the Negated row pairs instances through the cue pairing (not by event overlap); a different
      event is a false negative (and a false positive when the system event is non-empty), whatever
      the triple order;
    * unpaired instances always count, also when the other side has negation columns but no triple;
    * the last token line of a file without a final empty line is scored (no end-of-file drop);
      empty sentences are skipped;
    * F1 and the sentence percentages come from unrounded values;
    * a gold file without negation is scored (the official script aborts).

Errors are :class:`~negkit.errors.InputFormatError` naming the file, the 1-based line and the problem;
nothing is computed before all checks have passed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields, replace

from negkit.errors import InputFormatError
from negkit.resolution.corpora.cdsco import EMPTY_CELL, NO_NEGATION, CdscoLines
from negkit.resolution.metrics.starsem_lines import (
    NEGATION_START,
    SplitFile,
    field_at,
    perl_split,
    perl_view,
    validate,
    validate_system,
)

_ABBREVIATION = re.compile(r"([A-Za-z0-9_]+)\.")
_WORD_CHARACTER = re.compile(r"[A-Za-z0-9_]")

DASHES_TOP = "---------------------------+------+--------+------+------+------+---------------+------------+---------"
HEADER = "                            | gold | system | tp   | fp   | fn   | precision (%) | recall (%) | F1  (%) "
DASHES_HEADER = (
    "----------------------------+------+--------+------+------+------+---------------+------------+---------"
)
DASHES_END = "-" * 104


def _has_negation(parts: Sequence[str]) -> bool:
    """The official test on a sentence's first line: its packed negation fields are not exactly ``***``."""
    return not (len(parts) == NEGATION_START + 1 and parts[NEGATION_START] == NO_NEGATION)


def _pack_negation_fields(parts: Sequence[str]) -> str:
    """Fields 8 onward joined as the official script stores them: cells by spaces, triples by tabs."""
    last = len(parts) - 1
    packed = ""
    for i in range(NEGATION_START, last + 1):
        cell = parts[i]
        if i == NEGATION_START:
            packed = cell if cell == NO_NEGATION else cell + " "
        elif i == last:
            packed += cell
        elif i % 3 == 0:
            packed += cell + "\t"
        else:
            packed += cell + " "
    return packed


def line_cells(parts: Sequence[str]) -> list[tuple[str, str, str]]:
    """The (cue, scope, event) cells of each triple of a line, read as the official script reads them.

    ``parts`` is the Perl view of the line's fields. Regular lines are cut into triples directly; any
    other line goes through the script's own packing (cells joined by spaces, triples by tabs, split
    again), which is what makes an 8-field non-``***`` line or a cell with a space misparse. A missing
    cell reads as ``""`` (Perl's ``undef``), which is not ``_`` and therefore counts as filled.
    """
    count = len(parts)
    if count >= 10 and (count - NEGATION_START) % 3 == 0 and parts[NEGATION_START] != NO_NEGATION:
        cells = parts[NEGATION_START:]
        if "" not in cells and " " not in "\t".join(cells):
            return [(cells[i], cells[i + 1], cells[i + 2]) for i in range(0, len(cells), 3)]
    result = []
    for triple in perl_split(_pack_negation_fields(parts), "\t"):
        cells = perl_split(triple, " ")
        result.append((field_at(cells, 0), field_at(cells, 1), field_at(cells, 2)))
    return result


def is_punctuation_tag(pos: str) -> bool:
    """A gold POS tag without an ASCII word character, or ``-LRB-``/``-RRB-`` (spec 3.2)."""
    return not _WORD_CHARACTER.search(pos) or pos in ("-LRB-", "-RRB-")


def normalise_scope_word(cell: str) -> str:
    """The abbreviation rule (spec 3.3): ``Mr.`` -> ``Mr``, ``p.m.`` -> ``p``; other cells unchanged."""
    match = _ABBREVIATION.match(cell)
    return match.group(1) if match else cell


#: A component of an instance: its positions and its (normalised) words.
Component = tuple[tuple[int, ...], tuple[str, ...]]


@dataclass(frozen=True)
class Instance:
    """One triple of a sentence: position and word lists of its cue, scope (no punctuation) and event."""

    cue: Component
    scope: Component
    event: Component


def sentence_instances(lines: Sequence[Sequence[tuple[str, str, str]]], punctuation: Sequence[bool]) -> list[Instance]:
    """The instances of one side of a sentence from each line's triples (spec 3.1-3.4).

    The number of instances is the last line's number of triples (lines with more are cut).
    """
    count = len(lines[-1])
    instances = []
    for k in range(count):
        cue_positions: list[int] = []
        cue_words: list[str] = []
        scope_positions: list[int] = []
        scope_words: list[str] = []
        event_positions: list[int] = []
        event_words: list[str] = []
        for position, triples in enumerate(lines):
            if k >= len(triples):
                continue
            cue, scope, event = triples[k]
            if cue != EMPTY_CELL:
                cue_positions.append(position)
                cue_words.append(cue)
            if scope != EMPTY_CELL and not punctuation[position]:
                scope_positions.append(position)
                scope_words.append(normalise_scope_word(scope))
            if event != EMPTY_CELL:
                event_positions.append(position)
                event_words.append(event)
        instances.append(
            Instance(
                (tuple(cue_positions), tuple(cue_words)),
                (tuple(scope_positions), tuple(scope_words)),
                (tuple(event_positions), tuple(event_words)),
            )
        )
    return instances


def greedy_pairs(gold: Sequence[tuple[int, ...]], system: Sequence[tuple[int, ...]]) -> list[int | None]:
    """For each gold position list, the first unpaired system list sharing a position (spec 4), or None."""
    partner: list[int | None] = []
    taken = [False] * len(system)
    for positions in gold:
        found = None
        wanted = set(positions)
        for j, candidate in enumerate(system):
            if not taken[j] and wanted.intersection(candidate):
                found = j
                taken[j] = True
                break
        partner.append(found)
    return partner


# --------------------------------------------------------------------------------------------------
# counting (pass 3)


@dataclass
class StarsemCounts:
    """Every counter of the official script (spec 3.5 and 5); ``_g``/``_s``: gold/system totals."""

    cues_g: int = 0
    cues_s: int = 0
    scopes_g: int = 0
    scopes_s: int = 0
    scope_tokens_g: int = 0
    scope_tokens_s: int = 0
    negated_g: int = 0
    negated_s: int = 0
    tp_cue: int = 0
    fp_cue: int = 0
    fn_cue: int = 0
    tp_scope: int = 0
    fp_scope: int = 0
    fn_scope: int = 0
    tp_sa: int = 0
    fp_sa: int = 0
    fn_sa: int = 0
    tp_tok: int = 0
    fp_tok: int = 0
    fn_tok: int = 0
    tp_ev: int = 0
    fp_ev: int = 0
    fn_ev: int = 0
    tp_full: int = 0
    fp_full: int = 0
    fn_full: int = 0
    sentences: int = 0
    negation_sentences: int = 0
    error_sentences: int = 0
    negation_error_sentences: int = 0


def _pair_outcome(gold: Component, system: Component, corrected: bool) -> tuple[int, int, int]:
    """(tp, fp, fn) for the scope (or, corrected, event) of a pair of instances (spec 5.1, 5.2).

    Gold empty: fp when the system one is not. Equal and non-empty: tp. Different: fn, plus fp in the
    corrected mode when the system one is non-empty. Both empty: nothing.
    """
    gold_present, system_present = bool(gold[0]), bool(system[0])
    if not gold_present:
        return 0, int(system_present), 0
    if gold == system:
        return 1, 0, 0
    return 0, int(corrected and system_present), 1


def _add(counts: tuple[int, int, int], outcome: tuple[int, int, int]) -> tuple[int, int, int]:
    return counts[0] + outcome[0], counts[1] + outcome[1], counts[2] + outcome[2]


class _Counter:
    """Accumulates :class:`StarsemCounts` sentence by sentence, as the official script's pass 3."""

    def __init__(self, system_path: str, corrected: bool) -> None:
        self.counts = StarsemCounts()
        self.corrected = corrected
        self.system_path = system_path
        self.previous_system_instances = 0

    # -- one side of a sentence ---------------------------------------------------------------------
    def _side(self, rows: list[list[str]], punctuation: list[bool], gold: bool) -> list[Instance] | None:
        if not _has_negation(rows[0]):
            return None
        instances = sentence_instances([line_cells(parts) for parts in rows], punctuation)
        c = self.counts
        for instance in instances:
            has_cue, has_scope, has_event = bool(instance.cue[0]), bool(instance.scope[0]), bool(instance.event[0])
            if gold:
                c.cues_g += has_cue
                c.scopes_g += has_scope
                c.negated_g += has_event
                c.scope_tokens_g += len(instance.scope[0])
            else:
                c.cues_s += has_cue
                c.scopes_s += has_scope
                c.negated_s += has_event
                c.scope_tokens_s += len(instance.scope[0])
        return instances

    def empty_sentence(self, line_number: int) -> None:
        """An evaluation with no line (two blank lines, or the end-of-file rule on a one-token sentence)."""
        if self.corrected:
            return
        if self.previous_system_instances > 0:
            raise InputFormatError(
                self.system_path,
                line_number,
                "empty sentence after a sentence with negation: the official scorer stops here "
                "(sentence lacks at least a negation cue)",
            )
        # The official script sees an empty first line (not ***): a sentence "with negation" and no instance.
        self.counts.sentences += 1
        self.counts.negation_sentences += 1

    def sentence(self, gold_rows: list[list[str]], system_rows: list[list[str]], first_line: int) -> None:
        """Count one sentence from the tab-split fields of its gold and system token lines."""
        c = self.counts
        gold_rows = [parts if parts[-1] != "" else perl_view(parts) for parts in gold_rows]
        system_rows = [parts if parts[-1] != "" else perl_view(parts) for parts in system_rows]
        if _has_negation(gold_rows[0]) or _has_negation(system_rows[0]):
            punctuation = [is_punctuation_tag(field_at(parts, 5)) for parts in gold_rows]
        else:
            punctuation = []
        gold = self._side(gold_rows, punctuation, gold=True)
        system = self._side(system_rows, punctuation, gold=False)
        c.sentences += 1
        if gold is not None:
            c.negation_sentences += 1
        if system is not None:
            for k, instance in enumerate(system):
                if not instance.cue[0]:
                    raise InputFormatError(
                        self.system_path,
                        first_line,
                        f"negation instance {k + 1} of this sentence lacks a negation cue "
                        f"(fields {8 + 3 * k}-{10 + 3 * k} have no cue cell)",
                    )
        self.previous_system_instances = len(system) if system else 0
        error = False
        if gold is not None and system is None:
            error = True
            for instance in gold:
                self._unpaired(instance, "fn")
        elif gold is None and system is not None:
            error = True
            for instance in system:
                self._unpaired(instance, "fp")
        elif gold is not None and system is not None:
            error = self._both(gold, system)
        if error:
            c.error_sentences += 1
            if gold is not None:
                c.negation_error_sentences += 1

    # -- counting rules -----------------------------------------------------------------------------
    def _unpaired(self, instance: Instance, kind: str, *, events: bool = True) -> None:
        """Count an instance left without partner: ``kind`` is ``"fn"`` (gold) or ``"fp"`` (system)."""
        c = self.counts
        scope_size = len(instance.scope[0])
        increments = {
            "cue": bool(instance.cue[0]),
            "scope": bool(scope_size),
            "sa": bool(scope_size),
            "tok": scope_size,
            "ev": bool(instance.event[0]) if events else 0,
            "full": 1,
        }
        for name, increment in increments.items():
            counter = f"{kind}_{name}"
            setattr(c, counter, getattr(c, counter) + increment)

    def _both(self, gold: list[Instance], system: list[Instance]) -> bool:
        c = self.counts
        corrected = self.corrected
        error = False
        partners = greedy_pairs([g.cue[0] for g in gold], [s.cue[0] for s in system])
        paired_system = {j for j in partners if j is not None}
        for g, j in zip(gold, partners):
            if j is None:
                if system or corrected:  # the official loops never run without a system triple
                    error = True
                    # officially the Negated row is counted apart, by event pairing (_official_events)
                    self._unpaired(g, "fn", events=corrected)
                continue
            s = system[j]
            self._scope_tokens(g, s)
            if g == s:
                c.tp_full += 1
            else:
                error = True
                c.fn_full += 1
                c.fp_full += corrected
            scope = _pair_outcome(g.scope, s.scope, corrected)
            if g.cue == s.cue:
                c.tp_cue += 1
                c.tp_scope, c.fp_scope, c.fn_scope = _add((c.tp_scope, c.fp_scope, c.fn_scope), scope)
            else:  # partial cue match: a false negative only (officially)
                c.fn_cue += 1
                c.fp_cue += corrected
                c.fn_scope += bool(g.scope[0])
                c.fp_scope += corrected and bool(s.scope[0])
            c.tp_sa, c.fp_sa, c.fn_sa = _add((c.tp_sa, c.fp_sa, c.fn_sa), scope)
            if corrected:  # the Negated row through the cue pairs
                c.tp_ev, c.fp_ev, c.fn_ev = _add((c.tp_ev, c.fp_ev, c.fn_ev), _pair_outcome(g.event, s.event, True))
        for j, s in enumerate(system):
            if j not in paired_system and (gold or corrected):
                error = True
                self._unpaired(s, "fp", events=corrected)
        if not corrected:
            self._official_events(gold, system)
        return error

    def _scope_tokens(self, g: Instance, s: Instance) -> None:
        c = self.counts
        gold_words = dict(zip(*g.scope))
        system_words = dict(zip(*s.scope))
        for position, word in gold_words.items():
            if system_words.get(position) == word:
                c.tp_tok += 1
            else:
                c.fn_tok += 1
        for position, word in system_words.items():
            if gold_words.get(position) != word:
                c.fp_tok += 1

    def _official_events(self, gold: list[Instance], system: list[Instance]) -> None:
        """The Negated row: event-overlap pairing and the last-triple quirk (spec 5.4)."""
        c = self.counts
        partners = greedy_pairs([g.event[0] for g in gold], [s.event[0] for s in system])
        last = len(system) - 1
        for g, j in zip(gold, partners):
            if j is None:
                if system and g.event[0]:
                    c.fn_ev += 1
            elif g.event == system[j].event:
                c.tp_ev += 1
            elif j < last:
                c.fn_ev += 1
        paired = {j for j in partners if j is not None}
        if gold:
            c.fp_ev += sum(1 for j, s in enumerate(system) if j not in paired and s.event[0])


def _count(
    gold: SplitFile, system: SplitFile, corrected: bool, per_sentence: list[StarsemCounts] | None = None
) -> StarsemCounts:
    """The counters of the whole file; ``per_sentence`` (when given) receives the counters after each sentence."""
    counter = _Counter(system.path, corrected)
    last_gold, last_system = len(gold.lines) - 1, len(system.lines) - 1
    gold_rows: list[list[str]] = []
    system_rows: list[list[str]] = []
    first_line = 1
    for index, gold_line in enumerate(gold.lines):
        at_end = index == last_gold or index == last_system
        if gold_line and (corrected or not at_end):
            if not gold_rows:
                first_line = index + 1
            gold_rows.append(gold.raw[index])
            system_rows.append(system.raw[index])
            if not at_end:
                continue
        if gold_rows:
            counter.sentence(gold_rows, system_rows, first_line)
        elif gold_line == "" or not corrected:
            counter.empty_sentence(index + 1)
        if per_sentence is not None:
            per_sentence.append(replace(counter.counts))
        gold_rows, system_rows = [], []
    return counter.counts


def count_starsem(gold: CdscoLines, system: CdscoLines, *, corrected: bool = False) -> StarsemCounts:
    """Pass 3 on files that passed :func:`validate_system`: the counters of every row and the sentence totals."""
    gold_fields = SplitFile(gold)
    return _count(gold_fields, SplitFile(system, like=gold_fields), corrected)


def count_starsem_by_sentence(gold: CdscoLines, system: CdscoLines, *, corrected: bool = False) -> list[StarsemCounts]:
    """What each sentence adds to the counters of :func:`count_starsem` (files that passed validation); the
    sentences' counters sum to the file's. Used for intervals that resample sentences."""
    gold_fields = SplitFile(gold)
    snapshots: list[StarsemCounts] = []
    _count(gold_fields, SplitFile(system, like=gold_fields), corrected, snapshots)
    names = [item.name for item in fields(StarsemCounts)]
    previous = StarsemCounts()
    increments = []
    for snapshot in snapshots:
        increments.append(StarsemCounts(**{n: getattr(snapshot, n) - getattr(previous, n) for n in names}))
        previous = snapshot
    return increments


# --------------------------------------------------------------------------------------------------
# rows and arithmetic (spec 6)


def _percentage(numerator: int, denominator: int) -> float:
    return (numerator / denominator) * 100 if denominator else 0.0


@dataclass(frozen=True)
class StarsemRow:
    """One printed row: counts, the printed tp, and precision/recall/F1 as printed (two decimals)."""

    label: str
    gold: int
    system: int
    tp: int
    fp: int
    fn: int
    precision: str
    recall: str
    f1: str
    tp_scored: int

    def format(self) -> str:
        """The row laid out as the official script prints it."""
        return (
            f"{self.label} {self.gold:>{33 - len(self.label)}d} | {self.system:6d} | {self.tp:4d} | {self.fp:4d} | "
            f"{self.fn:4d} | {self.precision:>13} | {self.recall:>10} | {self.f1:>7}"
        )


def _row(
    label: str,
    gold: int,
    system: int,
    tp: int,
    fp: int,
    fn: int,
    precision_denominator: int,
    tp_scored: int,
    corrected: bool,
) -> StarsemRow:
    precision = _percentage(tp_scored, precision_denominator)
    recall = _percentage(tp_scored, tp_scored + fn)
    precision_text, recall_text = f"{precision:.2f}", f"{recall:.2f}"
    if not corrected:  # F1 from the rounded strings
        precision, recall = float(precision_text), float(recall_text)
    f1 = ((2 * precision) * recall) / (precision + recall) if precision + recall else 0.0
    return StarsemRow(label, gold, system, tp, fp, fn, precision_text, recall_text, f"{f1:.2f}", tp_scored)


@dataclass(frozen=True)
class StarsemResult:
    """The official scorer's output: the eleven rows, the sentence statistics and the raw counters."""

    rows: tuple[StarsemRow, ...]
    counts: StarsemCounts
    percent_correct_sentences: str
    percent_correct_negation_sentences: str
    corrected: bool = False
    strict: bool = True
    gold_path: str = ""
    system_path: str = ""

    def row(self, label: str) -> StarsemRow:
        """The row whose label is ``label`` (with or without the trailing colon)."""
        for row in self.rows:
            if row.label.rstrip(":") == label.rstrip(":"):
                return row
        raise KeyError(label)

    def format_table(self) -> str:
        """The table exactly as ``eval.cd-sco.pl`` prints it (spec 6.2 and 6.3), ending with a line feed."""
        c = self.counts
        lines = [DASHES_TOP, HEADER, DASHES_HEADER]
        lines += [row.format() for row in self.rows[:6]]
        lines.append(DASHES_TOP)
        lines += [row.format() for row in self.rows[6:]]
        lines += [
            DASHES_TOP,
            f" # sentences: {c.sentences}",
            f" # negation sentences: {c.negation_sentences}",
            f" # negation sentences with errors: {c.negation_error_sentences}",
            f" % correct sentences: {self.percent_correct_sentences}",
            f" % correct negation sentences: {self.percent_correct_negation_sentences}",
            DASHES_END,
        ]
        return "\n".join(lines) + "\n"

    def to_dict(self) -> dict:
        """A JSON-ready dictionary (layout in ``docs/scorer.md``)."""
        c = self.counts
        return {
            "gold": self.gold_path,
            "system": self.system_path,
            "corrected": self.corrected,
            "strict": self.strict,
            "rows": [
                {
                    "row": row.label.rstrip(":"),
                    "gold": row.gold,
                    "system": row.system,
                    "tp": row.tp,
                    "fp": row.fp,
                    "fn": row.fn,
                    "tp_scored": row.tp_scored,
                    "precision": float(row.precision),
                    "recall": float(row.recall),
                    "f1": float(row.f1),
                }
                for row in self.rows
            ],
            "sentences": {
                "sentences": c.sentences,
                "negation_sentences": c.negation_sentences,
                "error_sentences": c.error_sentences,
                "negation_sentences_with_errors": c.negation_error_sentences,
                "percent_correct_sentences": float(self.percent_correct_sentences),
                "percent_correct_negation_sentences": float(self.percent_correct_negation_sentences),
            },
            "counts": asdict(c),
        }


def _percent_correct(errors: int, total: int, corrected: bool) -> str:
    error_percent = (errors * 100) / total if total else 0.0
    if corrected:
        return f"{100 - error_percent:.2f}"
    return f"{100 - float(f'{error_percent:.2f}'):.2f}"


def starsem_rows(counts: StarsemCounts, *, corrected: bool = False) -> tuple[StarsemRow, ...]:
    """The eleven rows of the table from the counters (spec 6.1)."""
    c = counts
    printed_sa = c.tp_sa if corrected else c.tp_scope
    plain = [
        ("Cues:", c.cues_g, c.cues_s, c.tp_cue, c.fp_cue, c.fn_cue, c.tp_cue),
        ("Scopes(cue match):", c.scopes_g, c.scopes_s, c.tp_scope, c.fp_scope, c.fn_scope, c.tp_scope),
        ("Scopes(no cue match):", c.scopes_g, c.scopes_s, printed_sa, c.fp_sa, c.fn_sa, c.tp_sa),
        ("Scope tokens(no cue match):", c.scope_tokens_g, c.scope_tokens_s, c.tp_tok, c.fp_tok, c.fn_tok, c.tp_tok),
        ("Negated(no cue match):", c.negated_g, c.negated_s, c.tp_ev, c.fp_ev, c.fn_ev, c.tp_ev),
        ("Full negation:", c.cues_g, c.cues_s, c.tp_full, c.fp_full, c.fn_full, c.tp_full),
    ]
    rows = [
        _row(label, gold, system, tp, fp, fn, scored + fp, scored, corrected)
        for label, gold, system, tp, fp, fn, scored in plain
    ]
    b_rows = [  # same columns, precision = tp / system count of that kind
        ("Cues B:", plain[0]),
        ("Scopes B (cue match):", plain[1]),
        ("Scopes B (no cue match):", plain[2]),
        ("Negated B (no cue match):", plain[4]),
        ("Full negation B:", plain[5]),
    ]
    for label, (_, gold, system, tp, fp, fn, scored) in b_rows:
        rows.append(_row(label, gold, system, tp, fp, fn, system, scored, corrected))
    return tuple(rows)


def score_starsem(
    gold: CdscoLines, system: CdscoLines, *, strict: bool = True, corrected: bool = False
) -> StarsemResult:
    """Score a system file against a gold file as ``eval.cd-sco.pl`` v2.2 does (see the module docstring).

    ``gold`` and ``system`` are raw files from :func:`negkit.resolution.corpora.cdsco.read_lines`. Raises
    :class:`InputFormatError` for input the official script rejects (and, with ``strict``, for input it
    silently mis-scores), and for a gold file without any sentence with negation (the official script
    dies with a division by zero) unless ``corrected``.
    """
    gold_fields = SplitFile(gold)
    system_fields = SplitFile(system, like=gold_fields)
    validate(gold_fields, system_fields, strict)
    counts = _count(gold_fields, system_fields, corrected)
    if counts.negation_sentences == 0 and not corrected:
        raise InputFormatError(
            gold.path, None, "gold file has no sentence with negation (the official scorer aborts: division by zero)"
        )
    return StarsemResult(
        rows=starsem_rows(counts, corrected=corrected),
        counts=counts,
        percent_correct_sentences=_percent_correct(counts.error_sentences, counts.sentences, corrected),
        percent_correct_negation_sentences=_percent_correct(
            counts.negation_error_sentences, counts.negation_sentences, corrected
        ),
        corrected=corrected,
        strict=strict,
        gold_path=gold.path,
        system_path=system.path,
    )


__all__ = [
    "Instance",
    "StarsemCounts",
    "StarsemResult",
    "StarsemRow",
    "count_starsem",
    "count_starsem_by_sentence",
    "greedy_pairs",
    "is_punctuation_tag",
    "normalise_scope_word",
    "score_starsem",
    "sentence_instances",
    "starsem_rows",
    "validate_system",
]
