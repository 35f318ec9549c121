"""TIND's human evaluation (the paper's Table 3): a stratified sample of sentences, an annotation sheet with four
questions, and the table computed from the filled sheets.

- :func:`sample_for_annotation`: ``per_pattern`` sentences of every pattern (20 x 11 = 220 by default), spread evenly
  over the pattern's four cells (input / distractor x affirmative / negative; 5 each by default), drawn with ``seed``,
  from as many different groups as the pattern allows (a group gives a second sentence only when its pattern has too
  few groups).
- :func:`write_sheet`: the annotation sheet (CSV: ``n``, ``item_id``, ``sentence`` and one empty column per question
  of :data:`QUESTIONS`, rows in a seeded random order so that patterns and cells are mixed) and beside it its key
  (``SHEET.key.json``: item ids, patterns, cells and gold labels, **no sentences**). TIND is distributed encrypted so
  that its sentences stay out of crawled text: the sheet is written only to the path the user names, and never
  inside a git working tree.
- :func:`human_eval_table`: from one or more filled sheets (one per annotator) and the key, per pattern and over all
  sentences: the percentage judged grammatical, judged meaningful, whose negation judgement matches the data (a
  negation iff the sentence is negative) and whose truth judgement matches the gold label; the mean over annotators
  and, with two or more sheets, the percentage of sentences on which every annotator gave the same answer.
"""

from __future__ import annotations

import csv
import io
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from negkit.errors import InputFormatError, NegkitError, quoted
from negkit.io.atomic import atomic_write_json, atomic_write_text
from negkit.io.textfiles import iter_csv, read_text

#: The four questions: column, question, the answers allowed (the first counts as "yes").
QUESTIONS: tuple[tuple[str, str, tuple[str, str]], ...] = (
    ("grammatical", "Is the sentence grammatically correct?", ("yes", "no")),
    ("meaningful", "Does the sentence make sense (can you understand what it states)?", ("yes", "no")),
    ("negation", "Does the sentence contain a negation?", ("yes", "no")),
    ("truth", "Is what the sentence states true or false?", ("true", "false")),
)
#: The four cells a pattern's sample is spread over, in order.
CELLS: tuple[str, ...] = ("input-affirmative", "input-negative", "distractor-affirmative", "distractor-negative")
KEY_SUFFIX = ".key.json"


def cell_of(item: Any) -> str:
    return f"{'distractor' if item.is_distractor else 'input'}-{'negative' if item.is_negated else 'affirmative'}"


def _pick(candidates: list[Any], count: int, used: set[tuple[int, int]]) -> list[Any]:
    """``count`` of ``candidates`` (already shuffled): one per group not yet used first, then the rest in order."""
    chosen: list[Any] = []
    for item in candidates:
        if len(chosen) < count and item.group_key not in used:
            chosen.append(item)
            used.add(item.group_key)
    rest = [item for item in candidates if item not in chosen]
    return chosen + rest[: count - len(chosen)]


def sample_for_annotation(items: Sequence[Any], per_pattern: int = 20, seed: int = 0) -> list[Any]:
    """The stratified sample (see the module documentation), pattern by pattern, cell by cell."""
    if per_pattern < 1:
        raise NegkitError(f"--per-pattern must be at least 1, got {per_pattern}")
    patterns = sorted({item.pattern_id for item in items})
    sample = []
    for pattern in patterns:
        used: set[tuple[int, int]] = set()
        quota = [per_pattern // len(CELLS) + (1 if index < per_pattern % len(CELLS) else 0) for index in range(4)]
        for cell, count in zip(CELLS, quota):
            candidates = [item for item in items if item.pattern_id == pattern and cell_of(item) == cell]
            candidates.sort(key=lambda item: item.item_id)
            random.Random(f"{seed}:{pattern}:{cell}").shuffle(candidates)
            sample += _pick(candidates, count, used)
    return sample


def _inside_git(path: Path) -> Path | None:
    for folder in (path.parent.resolve(), *path.parent.resolve().parents):
        if (folder / ".git").exists():
            return folder
    return None


def key_path(sheet: str | Path) -> Path:
    return Path(f"{sheet}{KEY_SUFFIX}")


def write_sheet(path: str | Path, sample: Sequence[Any], seed: int = 0) -> Path:
    """Write the annotation sheet to ``path`` (CSV) and its key to ``path.key.json``; returns the key's path."""
    path = Path(path)
    repository = _inside_git(path)
    if repository is not None:
        raise NegkitError(
            f"{path}: inside the git working tree {repository}; TIND sentences stay out of repositories: "
            "write the sheet elsewhere"
        )
    order = list(sample)
    random.Random(f"{seed}:sheet").shuffle(order)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["n", "item_id", "sentence", *(column for column, _q, _a in QUESTIONS)])
    for number, item in enumerate(order, start=1):
        writer.writerow([number, item.item_id, item.sentence, *([""] * len(QUESTIONS))])
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, buffer.getvalue())
    key = {
        "negkit_tind_human_eval": 1,
        "seed": seed,
        "questions": [{"column": c, "question": q, "answers": list(a)} for c, q, a in QUESTIONS],
        "rows": [
            {
                "n": number,
                "item_id": item.item_id,
                "pattern_id": item.pattern_id,
                "cell": cell_of(item),
                "negative": item.is_negated,
                "label": item.label,
            }
            for number, item in enumerate(order, start=1)
        ],
    }
    atomic_write_json(key_path(path), key)
    return key_path(path)


def read_key(path: str | Path) -> list[dict[str, Any]]:
    import json

    path = Path(path)
    try:
        key = json.loads(read_text(path, "annotation key"))
    except json.JSONDecodeError as error:
        raise InputFormatError(path, error.lineno, f"not JSON ({error.msg})") from None
    if not isinstance(key, dict) or key.get("negkit_tind_human_eval") != 1 or not isinstance(key.get("rows"), list):
        raise InputFormatError(path, None, "not a key written by negkit tind human-eval-sample")
    return key["rows"]


def read_sheet(path: str | Path, rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, str]]:
    """A filled sheet: item id -> question column -> the answer (lower case); every row of the key answered."""
    path = Path(path)
    lines = list(iter_csv(path))
    if not lines:
        raise InputFormatError(path, 1, "empty file (expected the sheet's header)")
    header = [name.strip() for name in lines[0][1]]
    missing = [name for name in ("item_id", *(c for c, _q, _a in QUESTIONS)) if name not in header]
    if missing:
        raise InputFormatError(path, lines[0][0], f"missing column(s): {', '.join(missing)}")
    wanted = {row["item_id"] for row in rows}
    answers: dict[str, dict[str, str]] = {}
    for line, values in lines[1:]:
        if not any(value.strip() for value in values):
            continue
        record = dict(zip(header, (value.strip() for value in values)))
        item_id = record.get("item_id", "")
        if item_id not in wanted:
            raise InputFormatError(path, line, f"item_id {quoted(item_id, 40)} is not in the sheet's key")
        if item_id in answers:
            raise InputFormatError(path, line, f"item_id {quoted(item_id, 40)} appears twice")
        answers[item_id] = {}
        for column, _question, allowed in QUESTIONS:
            answer = record.get(column, "").lower()
            if answer not in allowed:
                raise InputFormatError(
                    path,
                    line,
                    f"column {column!r}: {quoted(answer, 20) if answer else 'no answer'} (expected "
                    f"{' or '.join(allowed)})",
                )
            answers[item_id][column] = answer
    unanswered = [row["item_id"] for row in rows if row["item_id"] not in answers]
    if unanswered:
        raise InputFormatError(
            path, None, f"{len(unanswered)} sentence(s) of the key not in the sheet, e.g. {unanswered[0]}"
        )
    return answers


def _judged(row: dict[str, Any], answers: dict[str, str]) -> dict[str, bool]:
    """Per question whether the annotator's answer counts: yes to grammatical / meaningful, agreement with the
    data on negation and truth."""
    return {
        "grammatical": answers["grammatical"] == "yes",
        "meaningful": answers["meaningful"] == "yes",
        "negation": (answers["negation"] == "yes") == bool(row["negative"]),
        "truth": (answers["truth"] == "true") == bool(row["label"]),
    }


def _percentages(rows: Sequence[dict[str, Any]], judged: dict[str, dict[str, bool]]) -> dict[str, float]:
    return {
        column: 100.0 * sum(judged[row["item_id"]][column] for row in rows) / len(rows) for column, _q, _a in QUESTIONS
    }


def human_eval_table(key: Sequence[dict[str, Any]], sheets: Sequence[dict[str, dict[str, str]]]) -> dict[str, Any]:
    """Table 3's numbers (see the module documentation): ``annotators`` (per sheet, per pattern and ``all``),
    ``mean`` (over sheets) and, with two or more sheets, ``agreement`` (% of sentences with one answer from all)."""
    if not sheets:
        raise NegkitError("no filled sheet")
    groups: dict[str, list[dict[str, Any]]] = {"all": list(key)}
    for row in sorted(key, key=lambda r: r["pattern_id"]):
        groups.setdefault(f"#{int(row['pattern_id']):02d}", []).append(row)
    per_sheet = []
    for answers in sheets:
        judged = {row["item_id"]: _judged(row, answers[row["item_id"]]) for row in key}
        per_sheet.append({name: _percentages(rows, judged) for name, rows in groups.items()})
    columns = [column for column, _q, _a in QUESTIONS]
    mean = {
        name: {column: sum(sheet[name][column] for sheet in per_sheet) / len(per_sheet) for column in columns}
        for name in groups
    }
    table: dict[str, Any] = {
        "sentences": len(key),
        "groups": {name: len(rows) for name, rows in groups.items()},
        "annotators": per_sheet,
        "mean": mean,
    }
    if len(sheets) > 1:
        table["agreement"] = {
            name: {
                column: 100.0
                * sum(len({answers[row["item_id"]][column] for answers in sheets}) == 1 for row in rows)
                / len(rows)
                for column in columns
            }
            for name, rows in groups.items()
        }
    return table


def human_eval_markdown(table: dict[str, Any]) -> str:
    """Table 3's layout: one row per pattern and ``all``, one column per question (mean over annotators)."""
    titles = {
        "grammatical": "grammatical %",
        "meaningful": "meaningful %",
        "negation": "negation as annotated %",
        "truth": "truth = gold label %",
    }
    lines = [
        f"### TIND human evaluation (Table 3) — {table['sentences']} sentences, {len(table['annotators'])} annotator(s)",
        "",
        "| pattern | sentences | " + " | ".join(titles[c] for c, _q, _a in QUESTIONS) + " |",
        "|---|---|" + "---|" * len(QUESTIONS),
    ]
    for name, values in table["mean"].items():
        cells = " | ".join(f"{values[c]:.1f}" for c, _q, _a in QUESTIONS)
        lines.append(f"| {name} | {table['groups'][name]} | {cells} |")
    if "agreement" in table:
        lines += ["", "Sentences on which every annotator gave the same answer (%):", ""]
        lines += ["| pattern | " + " | ".join(c for c, _q, _a in QUESTIONS) + " |", "|---|" + "---|" * len(QUESTIONS)]
        for name, values in table["agreement"].items():
            lines.append(f"| {name} | " + " | ".join(f"{values[c]:.1f}" for c, _q, _a in QUESTIONS) + " |")
    lines += [
        "",
        "Questions: "
        + "; ".join(f"{column}: {question} ({' / '.join(answers)})" for column, question, answers in QUESTIONS)
        + ". The negation and truth columns count agreement with the data.",
    ]
    return "\n".join(lines) + "\n"
