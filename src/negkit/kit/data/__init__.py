"""Data helpers every benchmark uses: where data lives, predictions files made elsewhere, statistics tables."""
