"""The engine drivers: what a driver is, the registry of every engine, one package per engine."""
