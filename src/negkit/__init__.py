"""negkit: measure how language models handle negation.

One toolkit for four lines of work: This is not a Dataset (TIND), Thunder-NUBench, negation cue/scope
resolution (*SEM 2012 and NIS metrics) and the NaN-NLI / ScoNe inference suites.
"""

__version__ = "0.1.0.dev0"

__all__ = ["__version__"]
