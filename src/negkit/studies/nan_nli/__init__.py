"""NaN-NLI's analyses: :mod:`.analysis` (chi-squared tests by negation type), :mod:`.gender_swap` (premises with
swapped gender words), :mod:`.similarity` (BERTScore of premise and hypothesis)."""
