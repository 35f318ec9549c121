"""What makes scoring fast and safe: batching, shared-prefix reuse, the run store."""
