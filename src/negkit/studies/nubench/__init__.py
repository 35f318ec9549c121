"""Thunder-NUBench's prompt sweep (:mod:`.sweep`: paper Tables 11-14)."""
