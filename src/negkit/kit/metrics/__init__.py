"""Metric and interval primitives: pure functions, hand-tested."""
