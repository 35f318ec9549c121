"""Fine-tuning a sequence-pair (NLI) classifier, for NaN-NLI's Table 5 comparison of models trained on different
NLI data.

Input: JSON Lines or CSV/TSV with ``premise``, ``hypothesis``, ``label`` (or MNLI/SNLI's ``sentence1``,
``sentence2``, ``gold_label``), or one of NegNLI's ``MNLI.txt``/``SNLI.txt``/``RTE.txt`` (:mod:`negkit.benchmarks.negnli.data`); rows whose label is ``-`` or empty (no annotator consensus in MNLI/SNLI) are skipped
and counted; integer labels index ``--labels``. The whole model is fine-tuned (as the NLI models compared in the
paper were), with a new classification head unless the model already names its labels.

Label order: the model's own ``config.id2label`` when it names its labels; else ``--labels``; else MNLI's
``entailment, neutral, contradiction`` when the data uses those names (the convention of the NaN-NLI authors'
checkpoints: 0 entailment, 1 neutral, 2 contradiction); else the labels sorted. Data mixing those names with
others (``entailment``, ``entailmnet``) is refused unless ``--labels`` names the label set. The order is written into the saved
model's config (``id2label``), so ``negkit eval --model nli:OUT`` reads it, and into the run record.
"""

from __future__ import annotations

import csv
import os
import random
import re
import shutil
import tempfile
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy

from negkit.errors import InputFormatError, NegkitError
from negkit.io.atomic import atomic_write_json
from negkit.io.textfiles import iter_json_objects
from negkit.kit.suites import all_suites, training_source
from negkit.kit.training import record
from negkit.kit.training.options import FinetuneOptions, command_line
from negkit.kit.training.run import claim, output_folder, status, train_resumably
from negkit.kit.training.sources import held_out
from negkit.models.fingerprints import weights_sha256

DEFAULT_LEARNING_RATE = 2e-5
MNLI_ORDER = ("entailment", "neutral", "contradiction")
_COLUMNS = (("premise", "hypothesis", "label"), ("sentence1", "sentence2", "gold_label"))
_GENERIC = re.compile(r"label_\d+")
#: One labelled pair: premise, hypothesis, label name.
NliPair = tuple[str, str, str]


def read_nli_pairs(path: str | Path, labels: tuple[str, ...] | None = None) -> tuple[list[NliPair], int]:
    """``(premise, hypothesis, label)`` rows of a JSONL/CSV/TSV file and how many were skipped (label ``-`` or
    empty); labels are lower-cased; an integer label indexes ``labels``."""
    path = Path(path)
    if not path.is_file():
        raise NegkitError(f"NLI training file not found: {path}")
    for suite in all_suites():  # a benchmark's own file layout (e.g. NegNLI's tab-separated files), read by its reader
        if suite.nli_pairs is not None:
            pairs = suite.nli_pairs(path)
            if pairs is not None:
                return pairs, 0
    rows: list[tuple[str, str, str]] = []
    skipped = 0
    for line, record_ in _records(path):
        names = next((names for names in _COLUMNS if all(name in record_ for name in names)), None)
        if names is None:
            raise InputFormatError(
                path, line, "expected fields premise, hypothesis, label (or sentence1, sentence2, gold_label)"
            )
        premise, hypothesis, label = (record_[name] for name in names)
        if (
            not isinstance(premise, str)
            or not isinstance(hypothesis, str)
            or not premise.strip()
            or not hypothesis.strip()
        ):
            raise InputFormatError(path, line, "premise and hypothesis must be non-empty text")
        if isinstance(label, bool) or label is None or (isinstance(label, str) and label.strip() in ("", "-")):
            skipped += 1
            continue
        rows.append((premise, hypothesis, _label_name(path, line, label, labels)))
    if not rows:
        raise InputFormatError(path, None, "no labelled pairs")
    return rows, skipped


def _records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    if path.suffix in (".jsonl", ".json"):
        yield from iter_json_objects(path)
        return
    if path.suffix not in (".csv", ".tsv"):
        raise InputFormatError(path, None, f"unsupported file type {path.suffix!r} (use .jsonl, .csv or .tsv)")
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            reader = csv.DictReader(handle, delimiter="\t" if path.suffix == ".tsv" else ",")
            for row in reader:
                if None in row or None in row.values():
                    raise InputFormatError(path, reader.line_num, f"expected {len(reader.fieldnames or [])} columns")
                yield reader.line_num, row
    except UnicodeDecodeError:
        raise InputFormatError(path, None, "not UTF-8 text") from None


def _label_name(path: Path, line: int, label: Any, labels: tuple[str, ...] | None) -> str:
    text = str(label).strip()
    if re.fullmatch(r"\d+", text):
        if not labels:
            raise InputFormatError(path, line, f"integer label {text}: give the label names in order with --labels")
        if int(text) >= len(labels):
            raise InputFormatError(path, line, f"label {text} is out of range for --labels {','.join(labels)}")
        return labels[int(text)]
    return text.lower()


def label_order(
    config: Any, data_labels: set[str], labels: tuple[str, ...] | None, source: str = ""
) -> tuple[tuple[str, ...], bool]:
    """The output order of the labels and whether the model's own head is kept (see the module doc); ``source``
    (the data file) begins error messages."""
    source = f"{source}: " if source else ""
    id2label = getattr(config, "id2label", None) or {}
    own = tuple(str(id2label[key]).lower() for key in sorted(id2label, key=int))
    if own and not any(_GENERIC.fullmatch(name) for name in own) and getattr(config, "num_labels", 0) == len(own):
        if labels and tuple(label.lower() for label in labels) != own:
            raise NegkitError(f"--labels {','.join(labels)} differ from the model's own labels {','.join(own)}")
        missing = data_labels - set(own)
        if missing:
            raise NegkitError(f"the data has labels {sorted(missing)} that the model's head lacks ({', '.join(own)})")
        return own, True
    if labels:
        order = tuple(label.lower() for label in labels)
    elif data_labels <= set(MNLI_ORDER):
        order = MNLI_ORDER
    elif data_labels & set(MNLI_ORDER):  # NLI labels and others: a typo, or a label set that --labels must name
        raise NegkitError(
            f"{source}the data has labels {sorted(data_labels - set(MNLI_ORDER))} next to the NLI labels "
            f"{', '.join(sorted(data_labels & set(MNLI_ORDER)))}; to train that label set, name it with --labels"
        )
    else:
        order = tuple(sorted(data_labels))
    missing = data_labels - set(order)
    if missing:
        raise NegkitError(f"{source}the data has labels {sorted(missing)} not in --labels {','.join(order)}")
    if len(order) < 2:
        raise NegkitError(
            f"{source}one label only ({', '.join(order)}): a new classification head needs at least two "
            "(name them with --labels)"
        )
    return order, False


def finetune_classifier(model: str, options: FinetuneOptions) -> dict[str, Any]:
    """Fine-tune the sequence-classification model ``nli:PATH`` on ``options.train`` (an NLI file); the output
    folder becomes a complete model loadable with ``negkit eval --model nli:OUT``."""
    import torch  # heavy: off the start-up path
    import transformers  # heavy: off the start-up path

    options = replace(options, learning_rate=options.learning_rate or DEFAULT_LEARNING_RATE)
    options.validate()
    if training_source(options.train) is not None:
        raise NegkitError(f"nli: models train on an NLI file (premise, hypothesis, label), not {options.train}")
    out = output_folder(options.out)
    started = time.perf_counter()
    name = model.split(":", 1)[1]
    rows, skipped = read_nli_pairs(options.train, options.labels)
    rows, dev_rows, dev_skipped = _split(rows, options)
    try:
        config = transformers.AutoConfig.from_pretrained(name)
    except (OSError, ValueError) as error:
        raise NegkitError(f"cannot load model {name!r}: {error}") from None
    order, keep_head = label_order(config, {label for _, _, label in rows}, options.labels, str(options.train))
    plan: dict[str, Any] = {
        "base_model": {"name": name, "weights_sha256": _weights_sha(name)},
        "train": {"files": record.file_entries([Path(options.train)]), "pairs": len(rows), "skipped": skipped},
        "dev": None if dev_rows is None else {"pairs": len(dev_rows)},
        "labels": list(order),
        "options": options.plan(),
    }
    finished = claim(out, plan)
    if finished is not None:
        return finished
    tokenizer = transformers.AutoTokenizer.from_pretrained(name)
    head = (
        {}
        if keep_head
        else {
            "num_labels": len(order),
            "id2label": dict(enumerate(order)),
            "label2id": {label: index for index, label in enumerate(order)},
            "ignore_mismatched_sizes": True,
        }
    )
    torch.manual_seed(options.seed)  # the new head's initial weights
    classifier = transformers.AutoModelForSequenceClassification.from_pretrained(name, dtype=torch.float32, **head)
    trainer = _trainer(classifier, tokenizer, rows, dev_rows, order, options, out)
    summary = train_resumably(trainer, out, dev_rows is not None, options.early_stopping_threshold, started)
    if summary["best_step"] is not None and summary["best_step"] != summary["global_step"]:
        best = out / record.CHECKPOINTS / f"checkpoint-{summary['best_step']}"
        trainer.model.load_state_dict(_checkpoint_weights(best), strict=False)
    _save_model(trainer.model, tokenizer, out)
    run = {
        "negkit_training": 1,
        "status": status(summary),
        "kind": "nli-classifier",
        "command": command_line(model, options),
        "base_model": plan["base_model"],
        "labels": list(order),
        "kept_head": keep_head,
        "data": {
            "train": {**plan["train"], "source": str(options.train)},
            "dev": None if dev_rows is None else {"pairs": len(dev_rows), "skipped": dev_skipped},
        },
        "options": options.plan(),
        "plan_sha256": record.canonical_sha256(plan),
        "result": summary,
        "model": {"weights_sha256": _weights_sha(str(out))},
        "versions": record.library_versions(),
        "environment": record.environment(),
    }
    run = record.jsonable(run)
    atomic_write_json(out / record.TRAINING_RECORD, run)
    return run


def _split(rows: list[NliPair], options: FinetuneOptions) -> tuple[list[NliPair], list[NliPair] | None, int]:
    """Training rows (``--limit`` of them, drawn with the seed), development rows and how many dev rows were
    skipped."""
    dev: list[NliPair] | None = None
    dev_skipped = 0
    if options.dev is not None:
        try:
            fraction = float(options.dev)
        except ValueError:
            dev, dev_skipped = read_nli_pairs(options.dev, options.labels)
        else:
            held = held_out(len(rows), fraction, options.seed)
            dev = [row for index, row in enumerate(rows) if index in held]
            rows = [row for index, row in enumerate(rows) if index not in held]
    if options.limit is not None and options.limit < len(rows):
        rows = [rows[index] for index in sorted(random.Random(options.seed).sample(range(len(rows)), options.limit))]
    if dev is not None and options.dev_limit is not None:
        dev = dev[: options.dev_limit]
    return rows, dev, dev_skipped


def _trainer(
    model: Any,
    tokenizer: Any,
    rows: list[NliPair],
    dev_rows: list[NliPair] | None,
    order: tuple[str, ...],
    options: FinetuneOptions,
    out: Path,
) -> Any:
    from transformers import DataCollatorWithPadding, Trainer  # heavy: off the start-up path

    from negkit.kit.training.trainer import (  # loads torch: off the start-up path
        negkit_callbacks,
        quiet,
        training_arguments,
    )

    index = {label: number for number, label in enumerate(order)}

    def encode(pairs: list[NliPair]) -> list[dict[str, Any]]:
        encoded = tokenizer(
            [p for p, _, _ in pairs], [h for _, h, _ in pairs], truncation=True, max_length=options.max_length
        )
        return [
            {**{key: encoded[key][row] for key in encoded}, "labels": index[label]}
            for row, (_, _, label) in enumerate(pairs)
        ]

    def accuracy(prediction: Any) -> dict[str, float]:
        return {"accuracy": float(numpy.mean(numpy.argmax(prediction.predictions, axis=-1) == prediction.label_ids))}

    device = "cuda" if options.device and options.device.startswith("cuda") else "cpu"
    arguments = training_arguments(options, out, len(rows), dev_rows is not None, device)
    trainer = Trainer(
        model=model,
        args=arguments,
        train_dataset=encode(rows),
        eval_dataset=encode(dev_rows) if dev_rows else None,
        data_collator=DataCollatorWithPadding(tokenizer),
        compute_metrics=accuracy,
        callbacks=negkit_callbacks(options, out),
    )
    quiet(trainer)
    return trainer


def _checkpoint_weights(checkpoint: Path) -> dict[str, Any]:
    from safetensors.torch import load_file  # optional library, imported when used

    weights = checkpoint / "model.safetensors"
    if not weights.is_file():
        raise NegkitError(f"the best checkpoint {checkpoint} has no model.safetensors")
    return load_file(str(weights))


def _save_model(model: Any, tokenizer: Any, out: Path) -> None:
    """The model and tokenizer files, each moved into ``out`` atomically from a temporary folder beside them."""
    temporary = Path(tempfile.mkdtemp(prefix=".model-", dir=out))
    try:
        model.save_pretrained(str(temporary), safe_serialization=True)
        tokenizer.save_pretrained(str(temporary))
        for file in sorted(temporary.iterdir()):
            if file.is_file():
                with open(file, "rb+") as handle:
                    os.fsync(handle.fileno())
                os.replace(file, out / file.name)
    finally:
        shutil.rmtree(temporary, ignore_errors=True)


def _weights_sha(name: str) -> str | None:
    return weights_sha256(name) if Path(name).is_dir() else None
