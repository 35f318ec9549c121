"""NLI suites asked two ways: a language model scored on label words, or an NLI sequence classifier.

Language model (lm-eval's multiple-choice style: each answer word is scored as the continuation ``" " + word``
of the prompt, and the arg-max of the log-likelihoods is the prediction): a suite gives the prompt (with
``{premise}`` and ``{hypothesis}``) and its answer words with the label each stands for (the ScoNe and NaN-NLI
suites: :mod:`negkit.benchmarks.scone`, :mod:`negkit.benchmarks.nan_nli`).

Classifier: each pair goes to the model as ``(premise, hypothesis)`` (the backend encodes it; see
:mod:`negkit.models.hf_nli` for ``pair_encoding``); the label names come from the model's configuration
(``id2label``) or an explicit ``--model-args labels=[...]`` map, and are mapped onto entailment / neutral /
contradiction by name with the backend's :func:`negkit.models.hf_nli.map_labels` (a clear error names any label
that cannot be mapped). A suite whose gold labels are only entailment and neutral maps a contradiction prediction
to neutral (not entailed) in ``_fit_label``, as the ScoNe paper did with MNLI models.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from negkit.kit.data.locate import locate_dataset
from negkit.kit.data.nli import NLI_LABELS, NLIItem
from negkit.errors import NegkitError
from negkit.kit.metrics.choice import argmax
from negkit.models.base import AnswerSpace, ClassifyRequest, LoglikelihoodRequest
from negkit.kit.tasks.base import TaskData, resolve_limit, wrap_prompt


class NLITask:
    """An NLI suite asked with label words or a classifier: reading items, building requests, turning answers into
    labelled records. A suite subclasses it with its ``name``, ``dataset``, ``prompt``, ``answers`` and
    ``read(folder, split)`` / ``files(folder, split)`` (and its ``metrics``, ``intervals``, ``tables``)."""

    name = ""
    dataset = ""
    prompt = ""
    answers: dict[str, str] = {}
    uses_seed = False

    def __init__(self, model_kind: str = "language_model", chat: bool = False,
                 system_instruction: str | None = None) -> None:
        if model_kind not in ("language_model", "classifier"):
            raise NegkitError(f"model_kind must be 'language_model' or 'classifier', not {model_kind!r}")
        if model_kind == "classifier" and (chat or system_instruction):
            raise NegkitError(f"{self.name}: a classifier reads (premise, hypothesis) pairs; there is no prompt to "
                              "put a chat template or a system instruction on")
        self.model_kind = model_kind
        #: With the chat template the prompt is the user message and the answer words follow the generation
        #: prompt directly (no target delimiter), as the LM Evaluation Harness does with --apply_chat_template.
        self.chat = bool(chat)
        self.system_instruction = system_instruction

    @property
    def accepts(self) -> frozenset[str]:
        return frozenset() if self.model_kind == "classifier" else frozenset({"chat", "system_instruction"})

    @property
    def target_delimiter(self) -> str:
        return "" if self.chat else " "

    def config(self) -> dict[str, Any]:
        if self.model_kind == "classifier":
            return {"task": self.name, "model_kind": self.model_kind, "input": "(premise, hypothesis)"}
        return {
            "task": self.name,
            "model_kind": self.model_kind,
            "prompt": self.prompt,
            "answers": self.answers,
            "target_delimiter": self.target_delimiter,
            "chat": self.chat,
            "system_instruction": self.system_instruction,
        }

    def prompt_template(self, model: Any) -> str | None:
        """The context with ``{premise}`` and ``{hypothesis}`` in place of the pair (None for a classifier)."""
        if self.model_kind == "classifier":
            return None
        return wrap_prompt(self.prompt, model, self.chat, self.system_instruction)

    def read(self, folder: Path, split: str) -> list[NLIItem]:
        raise NotImplementedError

    def load(self, data: str | Path | None, split: str, limit: int | None, seed: int) -> TaskData:
        """Read ``split``; ``limit`` keeps about that many items (see :meth:`limit_items`)."""
        folder = locate_dataset(self.dataset, data)
        items = self.read(folder, split)
        total = len(items)
        limit = resolve_limit(limit, total)
        if limit is not None:
            items = self.limit_items(items, limit)
        selection = {"split": split, "limit": limit, "count": len(items), "items_in_split": total}
        return TaskData(items, self.files(folder, split), selection)

    def files(self, folder: Path, split: str) -> list[Path]:
        """The data files :meth:`read` reads (hashed into the results)."""
        raise NotImplementedError

    def limit_items(self, items: list[NLIItem], limit: int) -> list[NLIItem]:
        """The first ``limit`` items."""
        return items[:limit]

    def requests(self, items: Sequence[NLIItem], model: Any = None) -> list[tuple[Any, ...]]:
        if self.model_kind == "classifier":
            return [(ClassifyRequest(item.premise, item.hypothesis),) for item in items]
        if self.chat and model is None:
            raise NegkitError("the chat template needs the model")
        requests = []
        for item in items:
            text = self.prompt.format(premise=item.premise, hypothesis=item.hypothesis)
            context = wrap_prompt(text, model, self.chat, self.system_instruction)
            requests.append(tuple(LoglikelihoodRequest(context, self.target_delimiter + answer) for answer in self.answers))
        return requests

    def records(self, items: Sequence[NLIItem], responses: Sequence[Sequence[Any]]) -> list[dict[str, Any]]:
        records = []
        for item, answers in zip(items, responses):
            if self.model_kind == "classifier":
                scores = self._classifier_scores(answers[0])
            else:
                scores = {word: answer.logprob for word, answer in zip(self.answers, answers)}
            words = list(scores)
            best = words[argmax([scores[word] for word in words])]
            label = best if self.model_kind == "classifier" else self.answers[best]
            record = {"item_id": item.item_id, "premise": item.premise, "hypothesis": item.hypothesis,
                      **({} if self.model_kind == "classifier" else {"choices": list(self.answers)}),
                      "scores": scores, "prediction": self._fit_label(label), "gold": item.label}
            # the unit intervals resample (premise; ScoNe base pair), so that runs can be compared from samples alone
            record.update({"premise_id": item.premise_id} if item.premise_id else {})
            record.update({"condition": item.condition, "row": item.row} if item.condition else {})
            records.append(record)
        return records

    def answer_space(self, items: Sequence[NLIItem]) -> AnswerSpace:
        """Label -> answer word (the label itself for a classifier) and the gold labels, for the baselines."""
        if self.model_kind == "classifier":
            return AnswerSpace({label: label for label in NLI_LABELS}, tuple(item.label for item in items))
        return AnswerSpace({label: word for word, label in self.answers.items()}, tuple(item.label for item in items))

    def _classifier_scores(self, probabilities: dict[str, float]) -> dict[str, float]:
        """The classifier's probabilities under NLI label names (its labels are mapped by name)."""
        from negkit.models.hf_nli import map_labels  # only a classifier's answers come here

        mapping = map_labels(list(probabilities), NLI_LABELS)
        return {label: probabilities[model_label] for label, model_label in mapping.items()}

    def _fit_label(self, label: str) -> str:
        return label

    def predictions(self, records: Sequence[dict[str, Any]]) -> list[str]:
        return [record["prediction"] for record in records]
