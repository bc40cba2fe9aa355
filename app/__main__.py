"""`python -m app`: the same entry point as the `linklab` command."""

from __future__ import annotations

import sys

from app.cli import main

if __name__ == "__main__":
    sys.exit(main())
