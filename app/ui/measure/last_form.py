"""The set-up form kept from one start of LinkLab to the next: the form as it was on screen (a
preset chosen, a field typed, even a problem still in it), never an exercise step's plan."""

from __future__ import annotations

from app.domain.errors import LinkLabError
from app.domain.plan_codec import plan_from_json
from app.ui.context import AppContext
from app.ui.measure.setup_panel import SetupPanel


class LastForm:
    def __init__(self, setup: SetupPanel, context: AppContext) -> None:
        self._setup = setup
        self._context = context
        self._restored = False  # until then, the form kept is not overwritten by the defaults

    def restore(self) -> None:
        """Fill the form as it was left; a plan of another version leaves the defaults."""
        text = self._context.last_plan_json()
        try:
            if text:
                self._setup.set_plan(plan_from_json(text))
        except LinkLabError:
            pass  # a plan from another version: start from the defaults
        self._restored = True

    def remember(self) -> None:
        """Keep the form on screen now (called at every change, so a crash keeps it too)."""
        if self._restored and self._setup.assignment is None:
            self._context.remember_plan_json(self._setup.build_candidate()[0].to_json())
