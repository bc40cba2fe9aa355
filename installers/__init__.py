"""Building LinkLab's installers: `make dist` (Linux) and the Windows workflow."""
