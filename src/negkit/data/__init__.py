"""Readers and writers of benchmark files and corpora. Readers return typed items and never touch a model."""
