"""Allow ``python -m negkit`` (also as ``torchrun ... -m negkit`` and ``accelerate launch -m negkit``).

The guard matters: backends that start worker processes with ``spawn`` (vLLM) import the main module again
in each worker, which must not run the command line a second time.
"""

from negkit.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
