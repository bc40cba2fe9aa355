"""LinkLab: measure what a network link really delivers, and what a setting costs."""

__version__ = "0.1.0"
