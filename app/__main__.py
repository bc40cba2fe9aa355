"""`python -m app`: the same entry point as the `linklab` command."""

from __future__ import annotations

import sys

if __name__ == "__main__":
    if sys.argv[1:2] == ["--linklab-watchdog"]:
        # A frozen LinkLab starts its engines' watchdog as itself (app/engine/process/watchdog.py).
        from app.engine.process.watchdog import main as watchdog

        sys.exit(watchdog(sys.argv[2:]))
    from app.cli import main

    sys.exit(main())
