"""Rendering: Markdown tables, figures (matplotlib to inline SVG), HTML pieces."""
