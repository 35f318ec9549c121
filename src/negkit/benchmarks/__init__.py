"""negkit's benchmarks: one package (or module) each, registered with the suite registry when imported.
No benchmark imports another; nothing outside a benchmark names it."""
