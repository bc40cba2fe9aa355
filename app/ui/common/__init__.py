"""Shared pieces of the window: form controls, charts, the results table, rendering."""
