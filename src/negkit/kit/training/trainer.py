"""transformers' Trainer, with negkit's loss and logits economy.

:class:`WeightedLossTrainer` computes the loss of :func:`negkit.kit.training.batches.weighted_loss` (completion-only, or
the TIND authors' prompt-weighted loss) and asks the model for logits only at the positions that carry weight
(``logits_to_keep``): with left padding and a completion-only loss that is a few positions per row instead of the
whole sequence, which saves most of the language-model head's work.
"""

from __future__ import annotations

import contextlib
import inspect
import math
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import torch
from transformers import Trainer, TrainingArguments

from negkit.engine.causal import expanded_cache
from negkit.engine.kv_cache import output_cache, with_cache
from negkit.kit.training import record
from negkit.kit.training.batches import weighted_loss
from negkit.kit.training.callbacks import (
    DurableCheckpoints,
    EarlyStopping,
    NonFiniteWeights,
    ProgressBar,
    Throughput,
    TimeBudget,
    TrainingLog,
)
from negkit.kit.training.guards import format_guards
from negkit.kit.training.objectives import mix_objectives
from negkit.kit.training.options import FinetuneOptions

#: The tensors a training mix's batches carry besides the model inputs (:func:`negkit.kit.training.batches.mix_tensors`).
MIX_TENSORS = ("choice_ids", "gold_choice", "partner", "answer_offsets", "negated_rows", "replay_rows")


class WeightedLossTrainer(Trainer):
    """A Trainer whose batches carry ``loss_weights``; the loss is the weighted mean over predicted tokens. With
    ``in_order`` the training examples are taken in their given order (a curriculum) instead of shuffled."""

    def __init__(
        self,
        *args: Any,
        in_order: bool = False,
        objectives: Any = None,
        guard_rows: Any = None,
        pad_id: int = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.in_order = in_order
        #: The run's options when a training mix adds losses (unlikelihood, consistency, KL), else None.
        self.objectives = objectives
        #: A mix's development rows, scored per format at every evaluation (the collapse guards), else None.
        self.guard_rows = guard_rows
        self.pad_id = pad_id
        #: The latest batch's extra loss terms, for the training log.
        self.last_terms: dict[str, float] = {}
        # the loss is a per-batch weighted mean: the Trainer divides it by the accumulation steps itself
        self.model_accepts_loss_kwargs = False
        base_model: Any = getattr(self.model, "get_base_model", lambda: self.model)()
        forward = base_model.forward
        self._keeps_logits = "logits_to_keep" in inspect.signature(forward).parameters
        #: Tokens that went through the model this session (a shared prefix counts once per batch).
        self.computed_tokens = 0

    def compute_loss(
        self, model: Any, inputs: dict[str, torch.Tensor], return_outputs: bool = False, num_items_in_batch: Any = None
    ) -> Any:
        weights = inputs.pop("loss_weights")
        labels = inputs.pop("labels")
        prefix = inputs.pop("prefix_ids")
        mix = {name: inputs.pop(name) for name in MIX_TENSORS if name in inputs}
        if "replay_rows" in mix:  # replay text trains only through the KL term
            ce_weights = weights * (~mix["replay_rows"]).to(weights.dtype).unsqueeze(1)
        else:
            ce_weights = weights
        keep = logits_needed(weights) if self._keeps_logits else weights.shape[1]
        extra: dict[str, Any] = {"logits_to_keep": keep} if self._keeps_logits else {}
        if prefix.shape[1] > 0:
            # the shared prefix runs once (with gradients); every row continues from its cache
            shared = model(
                input_ids=prefix,
                attention_mask=torch.ones_like(prefix),
                use_cache=True,
                **({"logits_to_keep": 1} if self._keeps_logits else {}),
            )
            config = getattr(model, "get_base_model", lambda: model)().config
            with_cache(model, extra, expanded_cache(output_cache(shared), len(labels), config))
            extra["use_cache"] = True
        else:
            extra["use_cache"] = False
        self.computed_tokens += prefix.shape[1] + int(inputs["attention_mask"][:, prefix.shape[1] :].sum())
        outputs = model(**inputs, **extra)
        loss = weighted_loss(outputs.logits, labels[:, -keep:], ce_weights[:, -keep:])
        if mix and self.objectives is not None and model.training:
            terms = mix_objectives(model, outputs.logits, mix, {**inputs, **extra}, weights[:, -keep:], self.objectives)
            self.last_terms = {name: float(value.detach()) for name, value in terms.items()}
            loss = loss + sum(terms.values())
        return (loss, outputs) if return_outputs else loss

    def evaluation_loop(self, *args: Any, **kwargs: Any) -> Any:
        """The Trainer's evaluation (the development loss), plus a mix's per-format guards in the same log entry."""
        output = super().evaluation_loop(*args, **kwargs)
        if self.guard_rows:
            prefix = kwargs.get("metric_key_prefix", "eval")
            guards = format_guards(self.model, self.guard_rows, self.pad_id, self.args.per_device_eval_batch_size)
            assert output.metrics is not None  # the Trainer's evaluation loop always computes its metrics
            output.metrics.update({prefix + name[len("eval") :]: value for name, value in guards.items()})
        return output

    def log(self, logs: dict[str, float], *args: Any, **kwargs: Any) -> None:
        if "loss" in logs and self.last_terms:
            logs = {**logs, **{f"loss_{name}": round(value, 6) for name, value in self.last_terms.items()}}
        super().log(logs, *args, **kwargs)

    def _get_train_sampler(self, train_dataset: Any = None) -> Any:
        if self.in_order:
            # torch's Dataset declares no __len__; the training set here is a TokenizedDataset, which has one
            return torch.utils.data.SequentialSampler(
                train_dataset if train_dataset is not None else self.train_dataset  # type: ignore[arg-type]
            )
        return super()._get_train_sampler(train_dataset)

    def prediction_step(
        self, model: Any, inputs: dict[str, torch.Tensor], prediction_loss_only: bool, ignore_keys: Any = None
    ) -> tuple[torch.Tensor, None, None]:
        inputs = self._prepare_inputs(inputs)
        with torch.no_grad():
            loss = self.compute_loss(model, dict(inputs))
        return loss.detach(), None, None


def logits_needed(weights: torch.Tensor) -> int:
    """How many final positions need logits: from the one before the first weighted token to the end."""
    weighted = (weights > 0).any(dim=0).nonzero()
    if len(weighted) == 0:
        return 1
    return min(int(weights.shape[1]), int(weights.shape[1] - weighted[0].item() + 1))


def deterministic_kernels(device: str) -> bool:
    """On a CUDA device, make training reproducible bit for bit on the same machine: cuBLAS's fixed workspace
    (``CUBLAS_WORKSPACE_CONFIG``, unless it is set already) and PyTorch's deterministic kernels (an operation that
    has none warns instead of failing). Call it before the first matrix product on the GPU. The CPU's kernels are
    deterministic at a fixed thread count already: nothing changes there. Returns whether it was switched on."""
    if not device.startswith("cuda"):
        return False
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    torch.use_deterministic_algorithms(True, warn_only=True)
    return True


@contextlib.contextmanager
def padded_attention_kernels(device: str) -> Iterator[None]:
    """Training's attention kernel. The collated rows are left-padded, so a padding position attends to nothing.
    CUDA's fused scaled-dot-product kernels (flash, memory-efficient) can give NaN for such fully masked rows, in
    the forward or the backward pass (pytorch issues 103749 and 109517), and one NaN gradient ruins the adapter: so
    on a CUDA device the math kernel runs, which gives zeros there. Nothing changes on other devices."""
    if not device.startswith("cuda"):
        yield
        return
    from torch.nn.attention import SDPBackend, sdpa_kernel

    with sdpa_kernel([SDPBackend.MATH]):
        yield


def training_arguments(
    options: FinetuneOptions, out: Path, examples: int, has_dev: bool, device: str, learning_rate: float | None = None
) -> TrainingArguments:
    """The Trainer's arguments for ``options`` (checkpoints under ``out/checkpoints``; nothing reported anywhere)."""
    steps_per_epoch = math.ceil(examples / (options.batch_size * options.gradient_accumulation))
    total = options.max_steps or math.ceil(options.epochs * steps_per_epoch)
    on_gpu = device.startswith("cuda")
    rate = learning_rate or options.learning_rate
    if rate is None:
        raise ValueError("training_arguments: no learning rate (the trainers set their default in the options first)")
    # only when asked: transformers 5 warns that the argument is deprecated whenever it is given
    checkpointing: dict[str, Any] = {"gradient_checkpointing": True} if options.gradient_checkpointing else {}
    return TrainingArguments(
        output_dir=str(out / record.CHECKPOINTS),
        seed=options.seed,
        data_seed=options.seed,
        learning_rate=rate,
        num_train_epochs=options.epochs,
        max_steps=options.max_steps or -1,
        per_device_train_batch_size=options.batch_size,
        per_device_eval_batch_size=options.batch_size,
        gradient_accumulation_steps=options.gradient_accumulation,
        lr_scheduler_type=options.scheduler,
        warmup_steps=math.ceil(options.warmup_ratio * total),
        weight_decay=options.weight_decay,
        max_grad_norm=options.max_grad_norm,
        logging_strategy="steps",
        logging_steps=options.logging_steps,
        logging_first_step=True,
        save_strategy="steps",
        save_steps=options.save_steps,
        save_total_limit=None,
        eval_strategy="steps" if has_dev else "no",
        eval_steps=options.eval_steps or options.save_steps,
        report_to="none",
        disable_tqdm=True,
        remove_unused_columns=False,
        label_names=["labels"],
        include_num_input_tokens_seen="non_padding",
        use_cpu=not on_gpu,
        bf16=options.dtype == "bfloat16" and on_gpu,
        fp16=options.dtype == "float16" and on_gpu,
        dataloader_num_workers=0,
        **checkpointing,
    )


def negkit_callbacks(options: FinetuneOptions, out: Path) -> list[Any]:
    """Durable checkpoints, early stopping, the training log and the progress bar."""
    return [
        DurableCheckpoints(
            out / record.CHECKPOINTS,
            options.keep_checkpoints,
            options.save_minutes * 60 if options.save_minutes else None,
        ),
        EarlyStopping(options.early_stopping_patience, options.early_stopping_threshold),
        TimeBudget(options.max_minutes * 60 if options.max_minutes else None),
        TrainingLog(out / record.TRAIN_LOG, out / record.TRAIN_LOG_CSV),
        ProgressBar(options.progress),
        Throughput(),
        NonFiniteWeights(),  # last: no other callback's save outlives a diverged step
    ]


def throughput(trainer: Trainer) -> dict[str, Any]:
    """This session's training tokens, seconds and tokens/s (from the :class:`Throughput` callback), and the
    tokens the model actually computed (fewer when batches share a prompt prefix)."""
    summary: dict[str, Any] = {}
    for callback in trainer.callback_handler.callbacks:
        if isinstance(callback, Throughput):
            summary = callback.summary()
    if hasattr(trainer, "computed_tokens"):
        summary["session_computed_tokens"] = trainer.computed_tokens
    return summary


def quiet(trainer: Trainer) -> None:
    """Remove the Trainer's own printers: they write logs on stdout; negkit's bar and log files replace them."""
    from transformers.trainer_callback import PrinterCallback, ProgressCallback  # heavy: off the start-up path

    for callback in (PrinterCallback, ProgressCallback):
        trainer.remove_callback(callback)
