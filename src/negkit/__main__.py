"""Allow ``python -m negkit``."""

from negkit.cli import main

raise SystemExit(main())
