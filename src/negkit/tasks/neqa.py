"""NeQA (Inverse Scaling Prize) asked of a language model: each class scored as a continuation of the prompt.

The prompt is the data's ``prompt`` as it is (it ends in ``Answer:``); each class (``" A"``, ``" B"``) is the
continuation exactly as written, with no target delimiter (the LM Evaluation Harness's ``inverse_scaling_neqa``:
``target_delimiter: ""``). ``acc`` takes the class with the highest log-likelihood, ``acc_norm`` the highest per
character. ``--chat`` makes the prompt the user message of the model's chat template.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from negkit.data.locate import locate_dataset
from negkit.data.neqa import NEQA_FILE, NeQAItem, read_neqa
from negkit.errors import NegkitError
from negkit.metrics.multiple_choice import predict, predict_normalised
from negkit.metrics.neqa import neqa_report
from negkit.models.base import AnswerSpace, LoglikelihoodRequest, LoglikelihoodResult
from negkit.tasks.base import TaskData, register_task, resolve_limit, wrap_prompt

#: NeQA's classes (every question of the release offers these two).
DEFAULT_CLASSES: tuple[str, ...] = (" A", " B")


@register_task("neqa", "NeQA: negated two-option questions, each class scored as a continuation (Inverse Scaling)")
class NeQATask:
    """All 300 NeQA questions (a single test set; ``limit`` keeps the first ones)."""

    name = "neqa"
    dataset = "neqa"
    model_kind = "language_model"
    accepts = frozenset({"chat", "system_instruction"})
    uses_seed = False
    splits: tuple[str, ...] = ("test",)

    def __init__(self, chat: bool = False, system_instruction: str | None = None) -> None:
        self.chat = bool(chat)
        self.system_instruction = system_instruction

    def config(self) -> dict[str, Any]:
        return {"task": self.name, "prompt": "{prompt}", "target_delimiter": "", "choices": "classes (as written)",
                "chat": self.chat, "system_instruction": self.system_instruction}

    def prompt_template(self, model: Any) -> str:
        return wrap_prompt("{prompt}", model, self.chat, self.system_instruction)

    def load(self, data: str | Path | None, split: str, limit: int | None, seed: int) -> TaskData:
        folder = locate_dataset(self.dataset, data)
        items = read_neqa(folder)
        total = len(items)
        limit = resolve_limit(limit, total)
        if limit is not None:
            items = items[:limit]
        selection = {"split": split, "limit": limit, "count": len(items), "items_in_split": total}
        return TaskData(items, [folder / NEQA_FILE], selection)

    def requests(self, items: Sequence[NeQAItem], model: Any = None) -> list[tuple[LoglikelihoodRequest, ...]]:
        if self.chat and model is None:
            raise NegkitError("the chat template needs the model")
        requests = []
        for item in items:
            context = wrap_prompt(item.prompt, model, self.chat, self.system_instruction)
            requests.append(tuple(LoglikelihoodRequest(context, choice) for choice in item.classes))
        return requests

    def records(self, items: Sequence[NeQAItem], responses: Sequence[Sequence[LoglikelihoodResult]]) -> list[dict[str, Any]]:
        records = []
        for item, answers in zip(items, responses):
            scores = [answer.logprob for answer in answers]
            records.append({"item_id": item.item_id, "question": item.prompt, "classes": list(item.classes),
                            "loglikelihoods": scores, "prediction": predict(scores),
                            "prediction_norm": predict_normalised(scores, list(item.classes)), "gold": item.answer_index})
        return records

    def answer_space(self, items: Sequence[NeQAItem]) -> AnswerSpace | None:
        """The classes by name (``A`` -> ``" A"``) and the gold class of every question, for the constant and majority
        baselines; None when the questions do not all offer the same classes."""
        offered = {item.classes for item in items} or {DEFAULT_CLASSES}
        if len(offered) != 1:
            return None
        classes = offered.pop()
        return AnswerSpace({choice.strip(): choice for choice in classes},
                           tuple(item.classes[item.answer_index].strip() for item in items))

    def metrics(self, items: Sequence[NeQAItem], records: Sequence[dict[str, Any]]) -> dict[str, Any]:
        return neqa_report(records)

    def intervals(self, items: Sequence[NeQAItem], records: Sequence[dict[str, Any]], settings: Any = None) -> dict[str, Any]:
        """95% intervals of acc, acc_norm and the answer shares, resampling questions (:mod:`negkit.metrics.neqa`)."""
        from negkit.metrics.intervals import intervals_json
        from negkit.metrics.neqa import neqa_estimands

        return intervals_json(neqa_estimands(records), settings)

    def tables(self, metrics: dict[str, Any]) -> str:
        from negkit.report.neqa import neqa_tables

        return neqa_tables(metrics)
