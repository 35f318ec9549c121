"""Train a DP system into a model folder in time-limited, resumable slices (``negkit resolution train --system dp-*``).

While a training is unfinished the model folder holds ``checkpoint/``: ``settings.json`` (the settings it started
with) and ``loop/`` (the state of the loop). A call with ``resume=True`` continues it with those settings; when the
last epoch is done (or patience runs out) the model is written and ``checkpoint/`` removed. The UD stage of the
-synt systems resumes from its own cache folder in the same way.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from negkit.errors import InputFormatError, NegkitError
from negkit.io.atomic import atomic_write_json
from negkit.resolution.parsing.loop import LoopReport
from negkit.resolution.parsing.parser import CONFIG_FILE, NegationParser
from negkit.resolution.parsing.settings import ParserSettings
from negkit.resolution.splits import load_split

CHECKPOINT = "checkpoint"


@dataclass
class TrainingOutcome:
    """What :func:`train_parser` did: the report of this slice and whether the model folder is complete."""

    report: LoopReport
    finished: bool
    settings: ParserSettings
    parser: NegationParser


def train_parser(
    settings: ParserSettings,
    out: str | Path,
    *,
    corpus: str = "cd-sco",
    data: str | Path | None = None,
    minutes: float | None = None,
    resume: bool = False,
    ud_cache: str | Path | None = None,
    log: Callable[[str], None] = lambda message: None,
) -> TrainingOutcome:
    """Train (or, with ``resume``, continue training) a DP system on ``corpus``'s train split (dev for selection)."""
    out = Path(out)
    checkpoint = out / CHECKPOINT
    saved = checkpoint / "settings.json"
    if out.exists() and not out.is_dir():
        raise NegkitError(f"{out}: a file is in the way of the model folder")
    if resume:
        if not saved.exists():
            raise NegkitError(f"{out}: no unfinished training to resume (no {CHECKPOINT}/settings.json)")
        try:
            stored = json.loads(saved.read_text(encoding="utf-8"))
            settings, corpus = ParserSettings.from_json(stored["settings"]), stored["corpus"]
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise InputFormatError(saved, None, f"not the settings of a DP training ({error})") from None
    elif saved.exists():
        raise NegkitError(
            f"{out}: holds an unfinished training; add --resume to continue it, or delete {checkpoint} to start over"
        )
    elif (out / CONFIG_FILE).exists():
        raise NegkitError(f"{out}: already holds a trained model; choose another --out")
    else:
        checkpoint.mkdir(parents=True, exist_ok=True)
        atomic_write_json(saved, {"corpus": corpus, "settings": asdict(settings)})
    train = load_split(corpus, "train", data)
    dev = load_split(corpus, "dev", data)
    parser = NegationParser(settings)
    report = parser.fit(
        train,
        dev,
        log=log,
        corpus=corpus,
        checkpoint=checkpoint / "loop",
        time_limit_s=None if minutes is None else minutes * 60,
        data=data,
        ud_cache=None if ud_cache is None else Path(ud_cache),
    )
    if not report.finished:
        return TrainingOutcome(report, False, settings, parser)
    parser.save(out)
    shutil.rmtree(checkpoint, ignore_errors=True)
    return TrainingOutcome(report, True, settings, parser)
