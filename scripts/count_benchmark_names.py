"""Count, for each benchmark, the modules outside its own modules that name it as a string of its own.

A module *names* a benchmark when one of its string constants (docstrings excluded) is exactly one of the
benchmark's names (e.g. ``"scone"``, ``"thunder-nubench"`` or ``"nubench"``). A benchmark's *own* modules are
the ones whose file name (or a folder on their path, below ``negkit``) starts with the benchmark's module stem
(``tind``, ``nubench``, ``nan_nli``, ``scone``, ``condaqa``, ``blimp``, ``negnli``, ``neqa``): its suite module, and its own data reader, task,
metrics and report modules where it has them. Shared modules (e.g. ``data/nli.py``, read by NaN-NLI and ScoNe)
count.

Run from the repository root: ``python scripts/count_benchmark_names.py [--list] [SRC]`` (SRC: ``src/negkit``).
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

#: Benchmark -> (the names it goes by, the stem its own modules start with).
BENCHMARKS: dict[str, tuple[tuple[str, ...], str]] = {
    "tind": (("tind",), "tind"),
    "thunder-nubench": (("thunder-nubench", "nubench"), "nubench"),
    "nan-nli": (("nan-nli",), "nan_nli"),
    "scone": (("scone",), "scone"),
    "condaqa": (("condaqa",), "condaqa"),
    "blimp-negation": (("blimp-negation", "blimp"), "blimp"),
    "negnli": (("negnli", "negation-nli"), "negnli"),
    "neqa": (("neqa",), "neqa"),
}


def string_constants(tree: ast.AST) -> set[str]:
    """Every string constant of a module except docstrings."""
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = getattr(node, "body", [])
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0].value))
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    }


def own(relative: Path, stem: str) -> bool:
    return any(part.startswith(stem) for part in relative.with_suffix("").parts)


def count(src: Path) -> dict[str, list[str]]:
    """Benchmark -> the modules (paths relative to ``src``) outside its own that name it."""
    found: dict[str, list[str]] = {name: [] for name in BENCHMARKS}
    for path in sorted(src.rglob("*.py")):
        relative = path.relative_to(src)
        constants = string_constants(ast.parse(path.read_text(encoding="utf-8")))
        for benchmark, (names, stem) in BENCHMARKS.items():
            if not own(relative, stem) and constants & set(names):
                found[benchmark].append(str(relative))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("src", nargs="?", default="src/negkit", type=Path)
    parser.add_argument("--list", action="store_true", help="also list the modules")
    args = parser.parse_args()
    for benchmark, modules in count(args.src).items():
        print(f"{benchmark}\t{len(modules)}" + (f"\t{' '.join(modules)}" if args.list else ""))


if __name__ == "__main__":
    main()
