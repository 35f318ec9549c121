"""The leaderboard's scaling figures: per task, the primary metric against the parameter count.

A model's parameter count comes from ``--parameters NAME=COUNT,...`` (``NAME`` a row of the leaderboard or the model
that answered; ``COUNT`` as :func:`~negkit.leaderboard.published.parse_count` reads it), else from negkit's
model catalogue when the run record names a catalogue model (``model.load.catalogue.name``, or the model's name),
else it is unknown and the model is left out of the figures, with a note. Baselines (``random``, ``constant:...``,
``majority``: no parameters) are drawn as horizontal lines; published rows with a ``params`` field on the primary
metric as hollow markers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from negkit.errors import NegkitError, quoted
from negkit.io.atomic import atomic_write_text, make_folder
from negkit.kit.render import plots
from negkit.leaderboard.published import attach_published, parse_count, published_in, read_published
from negkit.models.catalogue import CATALOGUE, catalogue_model, is_catalogue_name

FIGURES_FOLDER = "figures"


def parse_parameters(values: Iterable[str]) -> dict[str, int]:
    """``--parameters`` values (``NAME=COUNT`` items, comma-separated, the option repeatable) as name -> count."""
    counts: dict[str, int] = {}
    for value in values:
        for item in value.split(","):
            if not item.strip():
                continue
            name, sep, count = item.rpartition("=")
            if not sep or not name.strip():
                raise NegkitError(f"--parameters: {quoted(item)} is not NAME=COUNT (e.g. SmolLM2-135M=135M)")
            counts[name.strip()] = parse_count(count)
    return counts


def recorded_parameters(models: Sequence[Mapping[str, Any]]) -> int | None:
    """The parameter count of the catalogue model the run records name (``model`` objects of results files), or
    None when they name none (or several that differ)."""
    found = set()
    for model in models:
        load = model.get("load")
        load = load if isinstance(load, dict) else {}
        entry = load.get("catalogue")
        entry = entry if isinstance(entry, dict) else {}
        name = str(entry.get("name") or model.get("name") or "")
        if name and (is_catalogue_name(name) or name in {item.fingerprint_name for item in CATALOGUE}):
            known = catalogue_model(name) if is_catalogue_name(name) else None
            known = known or next(item for item in CATALOGUE if item.fingerprint_name == name)
            found.add(known.parameters)
    return found.pop() if len(found) == 1 else None


def add_references(data: dict[str, Any], published: Sequence[str | Path], parameters: Mapping[str, int]) -> None:
    """Complete the leaderboard ``data`` of the run models: the parameter counts (``parameters`` over the
    catalogue's), the published rows of the ``published`` files and the scaling panels (``data["scaling"]``)."""
    for model in data["models"]:
        model["parameters_source"] = "catalogue" if model.get("parameters") else None
    apply_parameters(data, parameters)
    labels = {
        (key, m["path"]): m["label"] for cells in data["metrics"].values() for key, ms in cells.items() for m in ms
    }
    rows = [row for file in published for row in read_published(file)]
    attach_published(data, rows, lambda key, path: labels.get((key, path), path))
    for column in data["columns"]:
        column.pop("reported", None)  # every numeric path of the results files: needed only to check the rows
    data["scaling"] = scaling_data(data)


def apply_parameters(data: dict[str, Any], given: Mapping[str, int]) -> None:
    """Set each model's ``parameters`` (and ``parameters_source``) from ``given`` where it names the model (its row
    or the model that answered); a name that is no model's is an error."""
    used = set()
    for model in data["models"]:
        names = [model["name"], *model["model"]]
        chosen = next((name for name in names if name in given), None)
        if chosen is not None:
            model["parameters"], model["parameters_source"] = given[chosen], "--parameters"
            used.add(chosen)
    unknown = [name for name in given if name not in used]
    if unknown:
        rows = ", ".join(model["name"] for model in data["models"])
        raise NegkitError(f"--parameters names no model of the leaderboard: {', '.join(unknown)} (models: {rows})")


def scaling_data(data: dict[str, Any]) -> list[dict[str, Any]]:
    """Per column: the points (run models with a parameter count), the baselines' lines, the published rows with a
    parameter count, and the models left out for want of one."""
    models = {model["name"]: model for model in data["models"]}
    panels = []
    for column in data["columns"]:
        key = column["key"]
        points, baselines, without = [], [], []
        for name, cells in data["cells"].items():
            cell = cells.get(key)
            if cell is None:
                continue
            entry = {"model": name, "estimate": cell["estimate"], "ci": cell["ci"]}
            if models[name].get("baseline"):
                baselines.append(entry)
            elif models[name].get("parameters"):
                points.append({**entry, "parameters": models[name]["parameters"]})
            else:
                without.append(name)
        published = [
            {"model": row["model"], "parameters": row["params"], "value": row["value"], "source": row["source"]}
            for row in published_in(data, key)
            if row["primary"] and row["params"]
        ]
        panels.append(
            {
                "key": key,
                "metric_label": column["metric_label"],
                "points": sorted(points, key=lambda point: (point["parameters"], point["model"])),
                "baselines": baselines,
                "published": published,
                "without_parameters": sorted(without),
            }
        )
    return panels


def scaling_svg(panel: Mapping[str, Any]) -> str | None:
    """The figure of one column as SVG (None when it has no point, or when matplotlib is not installed)."""
    if not plots.available() or not (panel["points"] or panel["published"]):
        return None
    return plots.log_points(
        [(p["model"], p["parameters"], p["estimate"], p["ci"][0], p["ci"][1]) for p in panel["points"]],
        [(b["model"], b["estimate"]) for b in panel["baselines"]],
        [(p["model"], p["parameters"], p["value"]) for p in panel["published"]],
        title=panel["key"],
        xlabel="parameters (log scale)",
        ylabel=f"{panel['metric_label']} (%)",
    )


def figure_name(key: str, slug: Callable[[str], str]) -> str:
    """The file of a column's figure, relative to the site: ``figures/scaling-TASK.svg``."""
    return f"{FIGURES_FOLDER}/scaling-{slug(key)}.svg"


def write_scaling_figures(data: dict[str, Any], out: Path, slug: Callable[[str], str]) -> dict[str, tuple[str, str]]:
    """Draw every panel of ``data["scaling"]`` into ``out/figures/scaling-TASK.svg`` (setting each panel's
    ``figure``, None where nothing is drawn); column key -> (file relative to ``out``, SVG text)."""
    figures: dict[str, tuple[str, str]] = {}
    for panel in data["scaling"]:
        svg = scaling_svg(panel)
        panel["figure"] = figure_name(panel["key"], slug) if svg else None
        if svg:
            make_folder(out / FIGURES_FOLDER)
            atomic_write_text(out / panel["figure"], svg + "\n")
            figures[panel["key"]] = (panel["figure"], svg)
    return figures
