"""``python -m negkit.kit.runlog FOLDER``: write the run files' JSON Schemas into ``FOLDER`` (``docs/schema``)."""

from __future__ import annotations

import sys

from negkit.kit.runlog.schema import write_schemas


def main(argv: list[str]) -> int:
    """Write the schemas into the one folder named; 2 (with usage) for anything else."""
    if len(argv) != 1:
        print("usage: python -m negkit.kit.runlog FOLDER", file=sys.stderr)
        return 2
    for path in write_schemas(argv[0]):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
