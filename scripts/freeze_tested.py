"""Write constraints-tested.txt: the exact versions of the environment the test suite ran in (``pip freeze``).

    .venv/bin/python scripts/freeze_tested.py [--python .venv/bin/python] [--out constraints-tested.txt]

negkit itself (an editable install) and comments are left out; local version labels (``torch==2.13.0+cpu``) are
cut to the release (``torch==2.13.0``), so the file pins torch exactly as constraints.txt does and also suits a
machine whose torch wheel carries another label. scripts/setup.sh installs with both files as constraints. Run it
after the whole test suite passed in that environment (scripts/test.sh), and commit the file with the change that
moved a version.
"""

from __future__ import annotations

import argparse
import platform
import re
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def frozen(python: str) -> list[str]:
    """``NAME==VERSION`` of every installed distribution but negkit, sorted by name, local labels cut."""
    listing = subprocess.run(
        [python, "-m", "pip", "freeze", "--exclude-editable", "--disable-pip-version-check"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    lines = []
    for line in listing.splitlines():
        match = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([^+\s]+)(\+\S+)?", line.strip())
        if match and match.group(1).lower() != "negkit":
            lines.append(f"{match.group(1)}=={match.group(2)}")
    return sorted(lines, key=str.lower)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable, help="the environment's Python (default: this one)")
    parser.add_argument("--out", default=str(ROOT / "constraints-tested.txt"))
    args = parser.parse_args()
    version = subprocess.run(
        [args.python, "-c", "import platform; print(platform.python_version())"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    header = [
        "# The exact versions negkit's test suite (scripts/test.sh) passed with, written by scripts/freeze_tested.py",
        f"# from pip freeze on {datetime.now(timezone.utc):%Y-%m-%d} (Python {version}, {platform.system()} "
        f"{platform.machine()}). scripts/setup.sh installs with it as a constraint file beside constraints.txt;",
        "# pyproject.toml declares the ranges these sit in.",
    ]
    Path(args.out).write_text("\n".join(header + frozen(args.python)) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
