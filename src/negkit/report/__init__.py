"""Reports: Markdown tables that mirror the papers' tables, built from metric dictionaries."""
