"""Metrics: pure functions from predictions and items to numbers. No I/O, no models."""
