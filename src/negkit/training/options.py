"""The options of ``negkit finetune`` (one dataclass, shared by the command line and Python), and the command line
that reproduces a run."""

from __future__ import annotations

import math
import shlex
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from negkit.errors import NegkitError
from negkit.kit.training_data.declaration import default_training_source, training_source, training_sources
from negkit.kit.training_data.task_source import REPLAY
from negkit.models.conversation import conversation_template
from negkit.training.mix import BALANCE_BY, is_mix, parse_mix, parse_phases

SCHEDULERS = ("cosine", "linear", "constant", "constant_with_warmup")


@dataclass
class FinetuneOptions:
    """Everything ``negkit finetune`` takes besides the model. Defaults are negkit's; see docs/finetuning.md for the
    papers' settings."""

    out: str | Path = "negkit-finetune"
    #: A suite's training set (``tind``, ``nubench``, ...; default: the first suite's), or a JSON Lines file of
    #: prompt/completion pairs (or, for ``nli:`` models, an NLI file: see :mod:`negkit.training.classifier`).
    train: str = field(default_factory=default_training_source)
    data: str | None = None
    split: str = "train"
    #: The seed of a source's own split into train, validation and test (TIND: its group-level split of the raw
    #: release): evaluate with ``negkit eval --seed`` equal to it.
    split_seed: int = 0
    #: The training source's own options, built by the source from its flags (:attr:`TrainingSource.options`;
    #: e.g. TIND's subset filters): an object with ``flags()`` (the flags that select it again) and optionally
    #: ``check(options)``; None: the source's defaults.
    subset: Any = None
    #: At most this many training examples (a source may count them its own way, e.g. TIND in whole groups).
    limit: int | None = None
    #: A training mix's phases (``a;b,c``: parts of ``--train`` separated by ``,``, phases by ``;``; None: one).
    phases: str | None = None
    #: A training mix's development set: this many held-out examples of every source (the collapse guards).
    dev_per_format: int | None = None
    #: What a mix's counts are balanced over within each part: ``answer`` (the format's answers) or ``negation``
    #: (answer x negated input, so that a negation cue does not predict the answer).
    balance_by: str = "answer"
    #: Weights of the extra losses of a mix (0: off): unlikelihood of wrong answers on negated examples,
    #: consistency over minimal pairs, KL to the base model (:mod:`negkit.training.objectives`).
    unlikelihood_weight: float = 0.0
    consistency_weight: float = 0.0
    kl_weight: float = 0.0
    #: The checkpoint kept: ``dev-loss`` (the lowest development loss) or ``worst-format`` (the highest
    #: worst-format development accuracy of a mix; its default with ``--dev-per-format``).
    select_by: str | None = None
    #: A curriculum for sources that have one (``TrainingSource.curriculum``; TIND: first this many affirmative
    #: sentences, then all of them, in a fixed order).
    affirmative_first: int | None = None
    #: Use the chat template (None: when the model has one; Thunder-NUBench and JSONL default to no template).
    chat: bool | None = None
    #: A named conversation template (:mod:`negkit.models.conversation`) that renders the chat prompts in place of
    #: the tokenizer's chat template (implies ``chat``).
    conversation_template: str | None = None
    #: Development data: ``split`` (TIND's validation split), a fraction such as ``0.05`` of the training
    #: examples, or a JSON Lines file; None for no evaluation during training.
    dev: str | None = None
    dev_limit: int | None = None
    seed: int = 0
    #: None: 2e-4 for LoRA on a language model, 2e-5 for a fully fine-tuned classifier.
    learning_rate: float | None = None
    epochs: float = 1.0
    max_steps: int | None = None
    #: Stop after this many minutes of training in one session (the schedule stays planned for the full run).
    max_minutes: float | None = None
    batch_size: int = 8
    gradient_accumulation: int = 1
    scheduler: str = "cosine"
    warmup_ratio: float = 0.03
    weight_decay: float = 0.0
    max_grad_norm: float = 1.0
    max_length: int = 512
    #: Share of the loss given to prompt tokens (TIND authors: 0.05); 0 trains on the completion only.
    prompt_loss_weight: float = 0.0
    lora_r: int = 8
    lora_alpha: float = 16.0
    lora_dropout: float = 0.05
    #: ``all-linear``, ``peft-default`` (PEFT's per-architecture default, e.g. q_proj,v_proj) or module names.
    lora_targets: str = "all-linear"
    #: LoRA on these transformer layers only (``12-29``, ``0,2,4``; None: every layer). Layers below the lowest
    #: one need no backward pass, so a run on the upper layers is faster per step.
    lora_layers: str | None = None
    #: Evaluate on the development data every N optimizer steps (default: every save).
    eval_steps: int | None = None
    early_stopping_patience: int | None = None
    early_stopping_threshold: float = 0.0
    save_steps: int = 50
    #: Also checkpoint at least this often, in minutes (a kill loses at most this much work).
    save_minutes: float | None = 5.0
    keep_checkpoints: int = 2
    logging_steps: int = 5
    dtype: str = "float32"
    device: str | None = None
    #: ``4bit`` or ``8bit``: the frozen base weights quantized with bitsandbytes (QLoRA, as TIND's authors trained;
    #: needs a CUDA GPU).
    quantize: str | None = None
    gradient_checkpointing: bool = False
    #: Run the prompt prefix common to a batch once (same loss; LoRA dropout then shares its mask over the
    #: prefix within a batch); off with gradient checkpointing.
    share_prefix: bool = True
    #: Also write the base model with the adapter merged into its weights here.
    merge_out: str | None = None
    #: NLI classifiers: the label names in output order (default: the model's own, else entailment, neutral,
    #: contradiction as in MNLI).
    labels: tuple[str, ...] | None = None
    progress: bool = True
    model_args: dict[str, Any] = field(default_factory=dict)

    def validate(self) -> None:
        """Clear errors for impossible values, before any model loads."""
        for name, value in asdict(self).items():
            if isinstance(value, float) and not math.isfinite(value):  # nan passes every comparison below
                raise NegkitError(f"{flag(name)} must be a finite number, got {value}")
        positive = {
            "batch_size": self.batch_size,
            "gradient_accumulation": self.gradient_accumulation,
            "max_length": self.max_length,
            "lora_r": self.lora_r,
            "save_steps": self.save_steps,
            "logging_steps": self.logging_steps,
            "keep_checkpoints": self.keep_checkpoints,
        }
        for name, value in positive.items():
            if value < 1:
                raise NegkitError(f"{flag(name)} must be at least 1, got {value}")
        for name in (
            "limit",
            "dev_limit",
            "max_steps",
            "eval_steps",
            "early_stopping_patience",
            "affirmative_first",
            "dev_per_format",
        ):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise NegkitError(f"{flag(name)} must be at least 1, got {value}")
        if (self.learning_rate is not None and self.learning_rate <= 0) or self.epochs <= 0:
            raise NegkitError("--learning-rate and --epochs must be positive")
        if not 0 <= self.lora_dropout < 1 or not 0 <= self.warmup_ratio < 1:
            raise NegkitError("--lora-dropout and --warmup-ratio must be in [0, 1)")
        if not 0 <= self.prompt_loss_weight < 1:
            raise NegkitError(f"--prompt-loss-weight must be in [0, 1), got {self.prompt_loss_weight}")
        if self.scheduler not in SCHEDULERS:
            raise NegkitError(f"unknown --scheduler {self.scheduler!r}; choose one of {', '.join(SCHEDULERS)}")
        if self.early_stopping_patience is not None and self.dev is None:
            raise NegkitError("--early-stopping needs development data (--dev split|FRACTION|FILE)")
        self._validate_mix()
        source = training_source(self.train)
        if self.affirmative_first is not None and (source is None or not source.curriculum):
            having = [name for name, each in training_sources().items() if each.curriculum]
            raise NegkitError(
                f"--affirmative-first is the curriculum of a training source that has one "
                f"({', '.join('--train ' + name for name in having) or 'none has'}); --train {self.train} "
                "has none"
            )
        if self.conversation_template is not None:
            conversation_template(self.conversation_template)  # an unknown name lists the names
            if self.chat is False:
                raise NegkitError(
                    f"--conversation-template {self.conversation_template} renders chat prompts and --no-chat turns "
                    "them off; give one of them"
                )
        check = getattr(self.subset, "check", None)
        if check is not None:
            check(self)
        if self.lora_layers is not None:
            layer_list(self.lora_layers)
        for name in ("save_minutes", "max_minutes"):
            if getattr(self, name) is not None and getattr(self, name) <= 0:
                raise NegkitError(f"{flag(name)} must be positive")

    def _validate_mix(self) -> None:
        mix = is_mix(self.train)
        weights = {"unlikelihood_weight": self.unlikelihood_weight, "consistency_weight": self.consistency_weight}
        weights["kl_weight"] = self.kl_weight
        for name, value in weights.items():
            if value < 0:
                raise NegkitError(f"{flag(name)} must be 0 or more, got {value}")
            if value and not mix:
                raise NegkitError(f"{flag(name)} needs a training mix (--train SOURCE=COUNT,...)")
        for name in ("phases", "dev_per_format"):
            if getattr(self, name) is not None and not mix:
                raise NegkitError(f"{flag(name)} needs a training mix (--train SOURCE=COUNT,...)")
        if self.balance_by not in BALANCE_BY:
            raise NegkitError(f"--balance-by: choose {' or '.join(BALANCE_BY)}, not {self.balance_by!r}")
        if self.balance_by != "answer" and not mix:
            raise NegkitError("--balance-by needs a training mix (--train SOURCE=COUNT,...)")
        if self.select_by not in (None, "dev-loss", "worst-format"):
            raise NegkitError(f"--select-by: choose dev-loss or worst-format, not {self.select_by!r}")
        if self.select_by == "worst-format" and not self.dev_per_format:
            raise NegkitError("--select-by worst-format needs --dev-per-format N (a development set per format)")
        if mix:
            if self.affirmative_first is not None:
                raise NegkitError("--affirmative-first: in a mix, put tind:affirmative=N in a first phase instead")
            if self.dev is not None:
                raise NegkitError("a training mix takes --dev-per-format N, not --dev")
            parts = parse_mix(self.train)
            parse_phases(self.phases, parts)
            if any(part.source == REPLAY for part in parts) and not self.kl_weight:
                raise NegkitError("replay text trains only through the KL term: give --kl-weight W with replay=N")

    def plan(self) -> dict[str, Any]:
        """The options that decide the trained weights (not where files go, nor how often they are saved)."""
        # --max-minutes only says where a session stops: a larger budget (or none) continues the same run
        skipped = {
            "out",
            "progress",
            "save_steps",
            "save_minutes",
            "keep_checkpoints",
            "merge_out",
            "logging_steps",
            "max_minutes",
        }
        defaults = FinetuneOptions()
        # a mix's options enter the plan only when set, so that runs planned before they existed still resume
        skipped |= {name for name in MIX_OPTIONS if getattr(self, name) == getattr(defaults, name)}
        values = {name: value for name, value in asdict(self).items() if name not in skipped}
        values["data"] = None if self.data is None else str(self.data)
        if self.conversation_template is None:  # the plans of runs without one stay as they were
            del values["conversation_template"]
        else:
            values["conversation_template"] = conversation_template(self.conversation_template).name
        return values


#: The options of a training mix (absent from a run's plan and command line while at their defaults).
MIX_OPTIONS = (
    "phases",
    "dev_per_format",
    "balance_by",
    "unlikelihood_weight",
    "consistency_weight",
    "kl_weight",
    "select_by",
)

#: Options whose command-line flag is not their name with dashes.
_FLAGS = {"early_stopping_patience": "--early-stopping"}


def layer_list(text: str) -> tuple[int, ...]:
    """Layer numbers from ``12-29`` (both ends included), ``0,2,4`` or a mix such as ``0,10-12``."""
    numbers: list[int] = []
    for part in (piece.strip() for piece in text.split(",")):
        first, dash, last = part.partition("-")
        if not first.isdigit() or (dash and not last.isdigit()):
            raise NegkitError(f"--lora-layers: expected layer numbers such as 12-29 or 0,2,4, got {text!r}")
        low, high = int(first), int(last) if dash else int(first)
        if high < low:
            raise NegkitError(f"--lora-layers: {part!r} runs backwards")
        numbers.extend(range(low, high + 1))
    return tuple(sorted(set(numbers)))


def flag(name: str) -> str:
    return _FLAGS.get(name) or "--" + name.replace("_", "-")


def command_line(model: str, options: FinetuneOptions, adapter_out: str | None = None) -> str:
    """The ``negkit finetune`` command that reproduces a run, every option spelled out."""
    words = ["negkit", "finetune", "--model", model, "--train", options.train, "--out", str(adapter_out or options.out)]
    defaults = FinetuneOptions()
    for item in fields(FinetuneOptions):
        name = item.name
        value = getattr(options, name)
        if name in ("out", "train", "progress", "model_args", "chat", "labels", "subset"):
            continue  # spelled below (a subset by its own flags)
        if name in MIX_OPTIONS and value == getattr(defaults, name):
            continue
        if isinstance(value, bool):
            if value != getattr(defaults, name):
                words.append(flag(name) if value else f"--no-{name.replace('_', '-')}")
        elif value is not None:
            words += [flag(name), str(value)]
    if options.chat is not None:
        words.append("--chat" if options.chat else "--no-chat")
    if options.labels:
        words += ["--labels", ",".join(options.labels)]
    if options.model_args:
        words += ["--model-args", ",".join(f"{key}={value}" for key, value in options.model_args.items())]
    if options.subset is not None:
        words += options.subset.flags()
    if not options.progress:
        words.append("--no-progress")
    return shlex.join(words)
