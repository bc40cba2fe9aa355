"""The ground floor: the values every layer shares (plan, peer, conditions, run key, results,
session and run records, units, tags, errors). Imports nothing of LinkLab's above it."""
