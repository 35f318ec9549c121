"""Task kinds: how a benchmark's items become model requests, and the answers per-sample records."""
