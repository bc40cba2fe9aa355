"""Exports: CSV, JSON (and later PNG, HTML, PDF and session exchange files)."""
