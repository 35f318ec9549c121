"""LoRA supervised fine-tuning of a causal language model: ``negkit finetune`` as a library function.

transformers' Trainer runs the optimisation (AdamW, warm-up and schedule, gradient accumulation, evaluation,
checkpoints with optimizer, scheduler and RNG states); negkit adds the examples (rendered like the evaluation's
prompts), the weighted loss, durable checkpoints, the training log and the run record. The output folder holds the
PEFT adapter (``adapter_config.json``, ``adapter_model.safetensors``), ``negkit_training.json``,
``train_log.jsonl``/``.csv`` and ``checkpoints/``. Running the same command again resumes from the last complete
checkpoint (or does nothing when the run is complete); the result equals an uninterrupted run's.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from negkit.errors import NegkitError
from negkit.io.atomic import atomic_write_json
from negkit.io.locks import RunLock
from negkit.kit.suites import training_source
from negkit.kit.training import record
from negkit.kit.training.batches import PaddingCollator, TokenizedDataset, tokenize_examples
from negkit.kit.training.examples import TrainingData
from negkit.kit.training.guards import answer_priors, format_guards
from negkit.kit.training.mix import build_mix, content_free_examples, is_mix
from negkit.kit.training.options import FinetuneOptions, command_line, layer_list
from negkit.kit.training.run import claim, output_folder, status, train_resumably
from negkit.kit.training.sources import (
    affirmative_first,
    check_source,
    describe_counts,
    jsonl_examples,
    sample_examples,
    split_dev,
)
from negkit.models.adapter import adapter_weights_sha256
from negkit.models.conversation import conversation_template, use_conversation_template
from negkit.models.spec import parse_model_spec

#: LoRA's learning rate when none is given (classifiers, fully fine-tuned, default to 2e-5).
DEFAULT_LEARNING_RATE = 2e-4


def finetune(model: str, options: FinetuneOptions | None = None) -> dict[str, Any]:
    """Fine-tune ``model`` (a spec: ``default``, ``hf:PATH``, ``gguf:FILE``; ``nli:PATH`` trains a classifier)
    with LoRA on ``options.train``; return the run record (also written to ``OUT/negkit_training.json``)."""
    options = options or FinetuneOptions()
    # one training per output folder: a second run waits for nothing and is refused (it would resume from, and
    # then delete, the first one's checkpoints)
    with RunLock(output_folder(options.out), info={"command": "negkit finetune", "model": model}, wait_flag=None):
        if parse_model_spec(model).is_classifier:
            if options.conversation_template is not None:
                raise NegkitError(f"--conversation-template renders prompts; {model} is a classifier, sent none")
            from negkit.kit.training.classifier import finetune_classifier  # loads torch: off the start-up path

            return finetune_classifier(model, options)
        return _finetune_lm(model, options)


def _finetune_lm(model: str, options: FinetuneOptions) -> dict[str, Any]:
    options = replace(options, learning_rate=options.learning_rate or DEFAULT_LEARNING_RATE)
    if options.conversation_template is not None:  # its own name; and a named template is there to be used
        chat = True if options.chat is None else options.chat
        options = replace(
            options, conversation_template=conversation_template(options.conversation_template).name, chat=chat
        )
    options.validate()
    out = output_folder(options.out)
    started = time.perf_counter()
    check_source(options.train, options)
    if options.dev is not None and options.dev != "split" and not _is_number(options.dev):
        check_source(options.dev, options)
    lm = load_language_model(model, options)
    train_data, dev_data = training_data(lm, options)
    plan = {
        "base_model": lm.fingerprint.as_dict(),
        "train": data_plan(train_data),
        "dev": data_plan(dev_data) if dev_data else None,
        "options": options.plan(),
    }
    finished = claim(out, plan)
    if finished is not None:
        return finished
    trainer, counts = build_trainer(lm, train_data, dev_data, options, out)
    priors = content_free_rows(lm, options)
    before = answer_priors(trainer.model, priors[0], priors[1], lm.rules.pad_id) if priors else None
    summary = train_resumably(
        trainer, out, dev_data is not None, options.early_stopping_threshold, started, selection(options)
    )
    if summary["best_step"] is not None and summary["best_step"] != summary["global_step"]:
        restore_adapter(trainer.model, out / record.CHECKPOINTS / f"checkpoint-{summary['best_step']}")
    weights_sha = save_adapter(trainer.model, out)
    run = {
        "negkit_training": 1,
        "status": status(summary),
        "kind": "lora-seq2seq-lm" if is_seq2seq(lm) else "lora-causal-lm",
        "command": command_line(model, options),
        "base_model": {"spec": model, **lm.fingerprint.as_dict(), "key": lm.fingerprint.key()},
        "data": {
            "train": data_record(train_data, counts["train"]),
            "dev": data_record(dev_data, counts["dev"]) if dev_data else None,
        },
        "options": options.plan(),
        "lora": lora_record(trainer.model),
        "plan_sha256": record.canonical_sha256(plan),
        "result": summary,
        "adapter": {"weights_sha256": weights_sha},
        **mix_record(trainer, options, priors, before, lm.rules.pad_id),
        "versions": record.library_versions(),
        "environment": record.environment(),
    }
    if options.merge_out:
        from negkit.kit.training.merge import save_merged  # loads torch: off the start-up path

        run["merged"] = save_merged(trainer.model, lm, Path(options.merge_out), out)
    run = record.jsonable(run)
    atomic_write_json(out / record.TRAINING_RECORD, run)
    return run


def selection(options: FinetuneOptions) -> str:
    """How the kept checkpoint is chosen: ``worst-format`` by default for a mix with a development set per format."""
    return options.select_by or ("worst-format" if options.dev_per_format else "dev-loss")


def content_free_rows(lm: Any, options: FinetuneOptions) -> tuple[list[Any], list[tuple[str, ...]]] | None:
    """A mix's content-free prompts, tokenized, and their answers' texts (None when the run is not a mix)."""
    if not is_mix(options.train) or is_seq2seq(lm):
        return None
    examples = content_free_examples(lm, options)
    rows, _ = tokenize_examples(lm.rules, lm.tokenizer, examples, options.max_length)
    return rows, [example.choices for example in examples]


def mix_record(trainer: Any, options: FinetuneOptions, priors: Any, before: Any, pad_id: int) -> dict[str, Any]:
    """A mix run's losses and guards for the training record: the extra loss weights, how the checkpoint was
    chosen, the guards at every evaluation (in the log) and at the kept step, the answer priors before and after."""
    if not is_mix(options.train):
        return {}
    guards: dict[str, Any] = {"checkpoint_selection": selection(options)}
    if trainer.guard_rows:
        guards["kept_checkpoint"] = format_guards(trainer.model, trainer.guard_rows, pad_id, options.batch_size)
    if priors:
        guards["content_free_answer_priors"] = {
            "before": before,
            "after": answer_priors(trainer.model, priors[0], priors[1], pad_id),
        }
    losses = {name: getattr(options, name) for name in ("unlikelihood_weight", "consistency_weight", "kl_weight")}
    return {"losses": {"cross_entropy": 1.0, **losses}, "guards": guards}


def load_language_model(model: str, options: FinetuneOptions) -> Any:
    """The negkit language model for ``model`` (its tokenizer rules and chat template are the evaluation's)."""
    from negkit.models.registry import load_model  # loads torch: off the start-up path

    if not parse_model_spec(model).fine_tunable:
        raise NegkitError(
            f"{model}: negkit fine-tunes local models (default, hf:, gguf:; nli: classifiers whole), not a "
            "server or a baseline"
        )
    extra = {key: value for key, value in (("device", options.device), ("quantize", options.quantize)) if value}
    lm = load_model(model, dtype=options.dtype, **extra, **options.model_args)
    if options.conversation_template is not None:
        use_conversation_template(lm, options.conversation_template)
    if not hasattr(lm, "rules") or not hasattr(lm, "model"):
        raise NegkitError(
            f"{model}: negkit fine-tunes local transformers language models (causal or "
            "encoder-decoder) and nli: classifiers; this model is not one"
        )
    if is_seq2seq(lm) and is_mix(options.train):
        raise NegkitError(f"{model} is an encoder-decoder model: a training mix trains causal language models")
    if is_seq2seq(lm) and options.prompt_loss_weight > 0:
        raise NegkitError(
            f"{model} is an encoder-decoder model: its decoder never predicts the prompt, so "
            "--prompt-loss-weight does not apply (leave it at 0)"
        )
    return lm


def is_seq2seq(lm: Any) -> bool:
    """True for an encoder-decoder model (T5, Flan-T5, BART): the prompt is the encoder's input."""
    return bool(getattr(lm, "is_encoder_decoder", False))


def training_data(lm: Any, options: FinetuneOptions) -> tuple[TrainingData, TrainingData | None]:
    """The training examples and the development examples (if asked for)."""
    if is_mix(options.train):
        return build_mix(lm, options)
    source = training_source(options.train)
    if source is not None:
        train = source.build(lm, options, options.split, options.limit if source.own_limit else None)
        if not source.own_limit:
            train = sample_examples(train, options.limit, options.seed)
        if options.affirmative_first is not None:
            train = affirmative_first(train, options.affirmative_first, options.seed)
        if options.dev == "split":
            if not source.dev_split:
                raise NegkitError(
                    f"--dev split: {source.name} has no development split; give a fraction (e.g. "
                    "0.05) or a JSON Lines file"
                )
            return train, source.build(lm, options, "validation", options.dev_limit)
    else:
        if options.dev == "split":
            raise NegkitError(
                "--dev split reads a suite's validation split; give a fraction (e.g. 0.05) or a JSON Lines file"
            )
        train = jsonl_examples(options.train, lm, chat=bool(options.chat))
        train = sample_examples(train, options.limit, options.seed)
    if options.dev is None:
        return train, None
    if not _is_number(options.dev):
        dev = sample_examples(jsonl_examples(options.dev, lm, chat=bool(options.chat)), options.dev_limit, options.seed)
        return train, dev
    train, dev = split_dev(train, float(options.dev), options.seed)
    return train, sample_examples(dev, options.dev_limit, options.seed)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def data_plan(data: TrainingData) -> dict[str, Any]:
    return {
        "files": record.file_entries(data.files),
        "examples": len(data.examples),
        "examples_sha256": data.content_sha256(),
        "description": {k: v for k, v in data.description.items() if k not in ("source", "group_keys")},
    }


def data_record(data: TrainingData, tokens: dict[str, int]) -> dict[str, Any]:
    return {
        **data_plan(data),
        "source": data.description.get("source"),
        "tokens": tokens,
        "completions": describe_counts(data.examples),
        **({"group_keys": data.description["group_keys"]} if "group_keys" in data.description else {}),
    }


def build_trainer(
    lm: Any, train: TrainingData, dev: TrainingData | None, options: FinetuneOptions, out: Path
) -> tuple[Any, dict[str, Any]]:
    """The Trainer for this run: LoRA-wrapped model, tokenized data, arguments and negkit's callbacks."""
    import torch  # heavy: off the start-up path

    from negkit.kit.training.trainer import (  # loads torch: off the start-up path
        WeightedLossTrainer,  # loads torch: off the start-up path
        deterministic_kernels,
        negkit_callbacks,
        quiet,
        training_arguments,
    )

    deterministic_kernels(str(lm._device()))  # before the first matrix product on a GPU
    torch.manual_seed(options.seed)  # LoRA's initial weights
    base = lm.model
    if options.quantize:
        from peft import prepare_model_for_kbit_training  # heavy: off the start-up path

        base = prepare_model_for_kbit_training(base, use_gradient_checkpointing=options.gradient_checkpointing)
    seq2seq = is_seq2seq(lm)
    model = apply_lora(base, options, "SEQ_2_SEQ_LM" if seq2seq else "CAUSAL_LM")
    rows, dropped = tokenize_examples(
        lm.rules, lm.tokenizer, train.examples, options.max_length, options.prompt_loss_weight
    )
    if not rows:
        raise NegkitError(f"every training example is longer than --max-length {options.max_length} tokens")
    train_set = TokenizedDataset(rows)
    counts: dict[str, Any] = {"train": {"tokens": train_set.token_count(), "dropped_too_long": dropped}, "dev": {}}
    dev_set = None
    if dev is not None:
        dev_rows, dev_dropped = tokenize_examples(
            lm.rules, lm.tokenizer, dev.examples, options.max_length, options.prompt_loss_weight
        )
        dev_set = TokenizedDataset(dev_rows)
        counts["dev"] = {"tokens": dev_set.token_count(), "dropped_too_long": dev_dropped}
    arguments = training_arguments(options, out, len(train_set), dev_set is not None, str(lm._device()))
    trainer_class: type[WeightedLossTrainer]
    collator: Callable[[Sequence[dict[str, Any]]], dict[str, Any]]
    if seq2seq:
        from negkit.kit.training.seq2seq import (  # torch, transformers: off the start-up path
            Seq2SeqCollator,
            Seq2SeqLossTrainer,
        )

        trainer_class, collator = Seq2SeqLossTrainer, Seq2SeqCollator(lm.rules.pad_id)
    else:
        # the KL term's reference pass runs whole rows: no shared prefix then
        sharing = options.share_prefix and not options.gradient_checkpointing and not options.kl_weight
        trainer_class, collator = WeightedLossTrainer, PaddingCollator(lm.rules.pad_id, sharing)
    mix = is_mix(options.train)
    extra: dict[str, Any] = {}
    if mix and not seq2seq:
        losses = options.unlikelihood_weight or options.consistency_weight or options.kl_weight
        extra = {"objectives": options if losses else None, "guard_rows": dev_set.rows if dev_set else None}
        extra["pad_id"] = lm.rules.pad_id
    trainer = trainer_class(
        model=model,
        args=arguments,
        train_dataset=train_set,
        eval_dataset=dev_set,
        # a curriculum and a mix are trained in their order
        in_order=options.affirmative_first is not None or mix,
        data_collator=collator,
        callbacks=negkit_callbacks(options, out),
        **extra,
    )
    quiet(trainer)
    return trainer, counts


def apply_lora(model: Any, options: FinetuneOptions, task_type: str = "CAUSAL_LM") -> Any:
    """``model`` with fresh LoRA layers (only they train); ``task_type`` is PEFT's (``SEQ_2_SEQ_LM`` for
    encoder-decoder models, whose ``--lora-layers`` name blocks of the encoder and of the decoder alike)."""
    from peft import LoraConfig, get_peft_model  # heavy: off the start-up path

    targets: Any = options.lora_targets
    if targets == "peft-default":
        targets = None
    elif targets != "all-linear":
        targets = [name.strip() for name in targets.split(",") if name.strip()]
    layers: dict[str, Any] = {}
    if options.lora_layers is not None:
        layers["layers_to_transform"] = list(checked_layers(model, layer_list(options.lora_layers)))
        if targets == "all-linear":  # PEFT takes a layer list only with module names
            targets = linear_module_names(model)
        if task_type == "SEQ_2_SEQ_LM":  # T5 numbers its blocks `block.N` (and sub-layers `layer.N`), BART `layers.N`
            names = [name for name, _ in model.named_modules()]
            layers["layers_pattern"] = "block" if any(".block." in name for name in names) else "layers"
    config = LoraConfig(
        r=options.lora_r,
        # peft declares an int; a float alpha works the same (its scaling is lora_alpha / r)
        lora_alpha=options.lora_alpha,  # type: ignore[arg-type]
        lora_dropout=options.lora_dropout,
        target_modules=targets,
        bias="none",
        task_type=task_type,
        **layers,
    )
    try:
        return get_peft_model(model, config)
    except ValueError as error:
        raise NegkitError(
            f"cannot put LoRA on this model with --lora-targets {options.lora_targets}: {error}"
        ) from None


def checked_layers(model: Any, layers: tuple[int, ...]) -> tuple[int, ...]:
    """``layers``, after checking that the model has them."""
    count = getattr(getattr(model, "config", None), "num_hidden_layers", None)
    if count is not None and layers[-1] >= count:
        raise NegkitError(
            f"--lora-layers: this model has {count} layers, numbered 0 to {count - 1}; got layer {layers[-1]}"
        )
    return layers


def linear_module_names(model: Any) -> list[str]:
    """The names (last part) of the model's linear layers, without the output head: what ``all-linear`` means."""
    import torch  # heavy: off the start-up path

    head = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    return sorted(
        {
            name.rsplit(".", 1)[-1]
            for name, module in model.named_modules()
            if isinstance(module, torch.nn.Linear) and module is not head and name
        }
    )


def lora_record(model: Any) -> dict[str, Any]:
    config = model.peft_config["default"].to_dict()
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    total = sum(p.numel() for p in model.parameters())
    keep = ("r", "lora_alpha", "lora_dropout", "target_modules", "layers_to_transform", "bias", "task_type")
    targets = config.get("target_modules")
    config["target_modules"] = sorted(targets) if isinstance(targets, (set, list, tuple)) else targets
    return {**{key: config.get(key) for key in keep}, "trainable_parameters": trainable, "parameters": total}


def restore_adapter(model: Any, checkpoint: Path) -> None:
    """Load the adapter weights of ``checkpoint`` (the best step by development loss) into ``model``."""
    from peft import set_peft_model_state_dict  # heavy: off the start-up path
    from safetensors.torch import load_file  # optional library, imported when used

    weights = checkpoint / "adapter_model.safetensors"
    if not weights.is_file():
        raise NegkitError(f"the best checkpoint {checkpoint} has no adapter weights")
    set_peft_model_state_dict(model, load_file(str(weights)))


def save_adapter(model: Any, out: Path) -> str:
    """Write the adapter into ``out`` file by file atomically (saved to a temporary folder, then renamed);
    return its weights hash."""
    temporary = Path(tempfile.mkdtemp(prefix=".adapter-", dir=out))
    try:
        model.save_pretrained(str(temporary), safe_serialization=True)
        (temporary / "README.md").unlink(missing_ok=True)  # PEFT's model-card template
        for file in sorted(temporary.iterdir()):
            with open(file, "rb+") as handle:
                os.fsync(handle.fileno())
            os.replace(file, out / file.name)
    finally:
        shutil.rmtree(temporary, ignore_errors=True)
    return adapter_weights_sha256(out)
