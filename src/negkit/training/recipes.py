"""Fine-tuning recipes (``negkit finetune --recipe NAME``): a paper's hyper-parameters, declared by its benchmark
(:class:`negkit.kit.suites.Recipe`), filled into the options a user left at negkit's defaults."""

from __future__ import annotations

from dataclasses import fields, replace

from negkit.errors import NegkitError
from negkit.kit.training_data.declaration import training_recipes
from negkit.training.options import FinetuneOptions


def apply_recipe(options: FinetuneOptions, name: str) -> FinetuneOptions:
    """``options`` with the recipe ``name`` filled into every option still at negkit's default."""
    recipes = training_recipes()
    if name not in recipes:
        raise NegkitError(f"unknown --recipe {name!r}; choose one of {', '.join(recipes) or 'none (no suite has one)'}")
    defaults = {item.name: getattr(FinetuneOptions(), item.name) for item in fields(FinetuneOptions)}
    values = recipes[name].values
    return replace(options, **{key: value for key, value in values.items() if getattr(options, key) == defaults[key]})
