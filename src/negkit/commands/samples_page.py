"""``samples.html``: a run's items, one self-contained offline page beside ``report.html`` (``negkit eval``,
``negkit report``), linked from it.

Every task's per-sample records as a table: the item's id, its group (the suite's condition, paradigm, pattern,
negation type, ...), the gold answer, the prediction, whether it was right, and the prompt; a row opens to the whole
record (scores, every part of a paired item). Filters: task, right or wrong, group; a search over ids, prompts and
the items' text. The records travel as JSON inside the page and the table is drawn one page of rows at a time, so a
whole run (BLiMP's 14,000 scored sentences, TIND at full size) opens without freezing the browser.

The page shows what the run's samples files hold and nothing more: a run written inside a git working tree holds
TIND's sentences and prompts as SHA-256 hashes (:mod:`negkit.io.privacy`), and so does the page.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from negkit.commands.samples_page_script import SAMPLES_CSS, SAMPLES_SCRIPT
from negkit.io.atomic import atomic_write_text
from negkit.io.privacy import HASH_SUFFIX
from negkit.kit.render.html import page

SAMPLES_FILE = "samples.html"
#: Record fields that name an item's group, in the order they are looked for (the first one a task's records have).
GROUP_FIELDS = (
    "condition",
    "negation_type",
    "paradigm",
    "pattern",
    "edit",
    "polarity",
    "negation",
    "tag",
    "rule",
    "relation",
    "topic",
    "dataset",
    "choice2_type",
    "family",
    "kind",
)
#: Fields shown in their own columns (the rest of a record is shown when its row is opened).
SHOWN = ("item_id", "prompt", "gold", "prediction", "correct")


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(_finite(value), ensure_ascii=False)


def _answer(record: Mapping[str, Any], key: str) -> str:
    """``gold`` or ``prediction`` as text: a choice index as its choice's text."""
    value = record.get(key)
    choices = record.get("choices")
    if (
        isinstance(value, int)
        and not isinstance(value, bool)
        and isinstance(choices, list)
        and 0 <= value < len(choices)
    ):
        return f"{value}: {str(choices[value]).strip()}"
    return _text(value)


def _parts(record: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """The scored parts of a paired item (``original``/``negated``, ``affirmative``/``negated``, ...)."""
    return [(name, part) for name, part in record.items() if isinstance(part, dict) and "prediction" in part]


def _finite(value: Any) -> Any:
    """``value`` with NaN and infinities as strings: the page reads the record with ``JSON.parse``, which has none."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


def _number(value: Any) -> str:
    return f"{value:.3g}" if isinstance(value, float) else str(value)


def _scores_of(record: Mapping[str, Any]) -> list[str]:
    """``name value`` pairs of a record's (or a part's) scores: ``scores`` by choice, else its log-probability and
    probability fields."""
    scores = record.get("scores")
    choices = record.get("choices")
    if isinstance(scores, dict):
        return [f"{str(name).strip()} {_number(value)}" for name, value in scores.items()]
    if isinstance(scores, list):
        names = [str(choice).strip() for choice in choices] if isinstance(choices, list) else []
        return [
            f"{names[index] if index < len(names) else index} {_number(value)}" for index, value in enumerate(scores)
        ]
    return [
        f"{key} {_number(value)}"
        for key, value in record.items()
        if key.startswith(("logprob", "p_", "loglikelihood")) and isinstance(value, (int, float))
    ]


def scores_text(record: Mapping[str, Any]) -> str:
    """A short line of a record's scores (a paired item's per part), for the table; the whole record has them all."""
    own = _scores_of(record)
    if own:
        return ", ".join(own)
    return "; ".join(f"{name}: {', '.join(_scores_of(part))}" for name, part in _parts(record) if _scores_of(part))


def correctness(record: Mapping[str, Any]) -> bool | None:
    """Whether the item was answered right: its ``correct`` (``both_correct`` for a paired item), else gold (or
    TIND's ``label``) equal to the prediction; None when the record does not say (e.g. a ranking or a hit rate)."""
    for key in ("correct", "both_correct"):
        if isinstance(record.get(key), bool):
            return record[key]
    if "prediction" in record:
        gold = record.get("gold", record.get("label"))
        if gold is not None:
            return _text(gold).strip().lower() == _text(record["prediction"]).strip().lower()
    return None


def _prompt(record: Mapping[str, Any]) -> tuple[str, bool]:
    """The prompt as text (several prompts one after the other), and whether the run holds it (False: only its
    SHA-256, as a run inside a git working tree writes TIND's prompts)."""
    prompt = record.get("prompt")
    if prompt is None and f"prompt{HASH_SUFFIX}" in record:
        return f"not held by this run (SHA-256 {_text(record[f'prompt{HASH_SUFFIX}'])})", False
    if isinstance(prompt, list):
        return "\n\n".join(f"[{index + 1}] {_text(part)}" for index, part in enumerate(prompt)), True
    if not prompt:  # scored without a prompt (BLiMP's whole sentences): the item's sentences instead
        texts = [f"{key}: {value}" for key, value in record.items() if _is_sentence(key, value)]
        return "\n".join(texts), True
    return _text(prompt), True


def _is_sentence(key: str, value: Any) -> bool:
    return isinstance(value, str) and " " in value.strip() and key not in ("item_id", "prompt", "unit")


def group_field(records: Sequence[Mapping[str, Any]]) -> str | None:
    """The field that groups a task's items (:data:`GROUP_FIELDS`), or None."""
    present = set().union(*(record.keys() for record in records[:50])) if records else set()
    return next((name for name in GROUP_FIELDS if name in present), None)


def sample_rows(task: str, records: Sequence[Mapping[str, Any]]) -> list[list[Any]]:
    """One compact row per record: ``[id, group, gold, prediction, correct (1/0/null), prompt, held (1/0), the rest
    of the record as JSON, its scores in short]`` (the page searches the id, a held prompt and the rest)."""
    field = group_field(records)
    rows = []
    for record in records:
        parts = _parts(record)
        if parts and "prediction" not in record:
            gold = "; ".join(f"{name}: {_answer(part, 'gold')}" for name, part in parts)
            prediction = "; ".join(f"{name}: {_answer(part, 'prediction')}" for name, part in parts)
        else:
            gold = _answer(record, "gold") if "gold" in record else _text(record.get("label"))
            prediction = _answer(record, "prediction")
        correct = correctness(record)
        prompt, held = _prompt(record)
        rest = {key: value for key, value in record.items() if key not in SHOWN}
        rows.append(
            [
                _text(record.get("item_id")),
                _text(record.get(field)) if field else "",
                gold,
                prediction,
                None if correct is None else int(correct),
                prompt,
                int(held),
                json.dumps(_finite(rest), ensure_ascii=False, sort_keys=True, allow_nan=False),
                scores_text(record),
            ]
        )
    return rows


def samples_data(results: Sequence[tuple[str, Sequence[Mapping[str, Any]]]]) -> dict[str, Any]:
    """What the page's script reads: per task its group field and rows (:func:`sample_rows`)."""
    return {
        "tasks": [
            {"task": task, "group": group_field(records) or "", "rows": sample_rows(task, records)}
            for task, records in results
        ]
    }


def _script_json(data: Any) -> str:
    """JSON safe inside a ``<script>`` element: every ``<`` escaped (no ``</script>`` that would end it, no HTML
    comment opener), and the two line separators JavaScript once refused in strings."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def samples_html(results: Sequence[tuple[str, Sequence[Mapping[str, Any]]]], title: str = "negkit samples") -> str:
    """The page (see the module's docstring) of ``results``: ``(task, records)`` pairs."""
    data = samples_data(results)
    count = sum(len(task["rows"]) for task in data["tasks"])
    tasks = "".join(f"<option>{html.escape(task['task'])}</option>" for task in data["tasks"])
    body = [
        f"<style>{SAMPLES_CSS}</style>",
        f"<h1>{html.escape(title)}</h1>",
        f'<p class="meta">{count:,} items of {len(data["tasks"])} tasks; <a href="report.html">report</a>. '
        "Click a row for the whole record.</p>",
        '<div id="controls">'
        f'<label>task <select id="task"><option value="">all tasks</option>{tasks}</select></label>'
        '<label>answer <select id="correct"><option value="">right and wrong</option>'
        '<option value="1">right</option><option value="0">wrong</option><option value="n">not scored right/wrong'
        "</option></select></label>"
        '<label>group <select id="group"><option value="">all groups</option></select></label>'
        '<label>search <input id="search" type="search" placeholder="id, prompt or text"></label>'
        '<span id="count"></span></div>',
        '<table id="samples"><thead><tr><th>task</th><th>item</th><th>group</th><th>gold</th><th>prediction</th>'
        '<th>right</th><th>scores</th><th class="prompt">prompt</th></tr></thead><tbody></tbody></table>',
        '<div id="pager"><button id="previous">&larr; previous</button> <span id="page"></span> '
        '<button id="next">next &rarr;</button></div>',
        f'<script type="application/json" id="negkit-samples">{_script_json(data)}</script>',
        f"<script>{SAMPLES_SCRIPT}</script>",
    ]
    return page(title, body)


def write_samples_page(
    results: Sequence[Mapping[str, Any]], out: str | Path, records_of: Any, title: str = "negkit samples"
) -> Path:
    """Write ``samples.html`` into ``out`` (atomically) from task results; ``records_of(result)`` gives a result's
    records. Returns its path."""
    pairs = [(str(result["task"].get("task", "?")), records_of(result)) for result in results]
    path = Path(out) / SAMPLES_FILE
    atomic_write_text(path, samples_html(pairs, title))
    return path
