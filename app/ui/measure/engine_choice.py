"""The engine chosen by LinkLab when the one on the form is not installed (the Windows bundle
carries iperf 2 alone): an installed engine, said once."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from app.domain.plan import Engine
from app.engine.drivers.driver import EngineDriver
from app.ui.common.widgets import ValueCombo
from app.ui.context import AppContext


def choose_installed(
    combo: ValueCombo, missing: Mapping[object, str], drivers: Mapping[Engine, EngineDriver]
) -> str | None:
    """Choose an installed engine in combo when its current one is missing (the one that can
    measure the most: iperf 2 rather than netperf for iperf3); the sentence saying so, or None
    when nothing changed."""
    current = combo.currentData()
    if current not in missing:
        return None
    installed = [engine for engine in drivers if engine not in missing]
    if not installed:
        return None  # nothing to choose: the disabled item says why
    # The one that does most of what a study asks (both directions, every swept variable).
    chosen = max(installed, key=lambda e: (len(drivers[e].directions), len(drivers[e].sweeps)))
    combo.setCurrentIndex(combo.findData(chosen))
    was, now = drivers[current].label, drivers[chosen].label
    return (
        f"{was} is not installed on this computer, so LinkLab chose {now} ({drivers[chosen].about})"
        f"; choose another engine under Engine if you install one. {missing[current]}"
    )


class EngineChooser:
    """Chooses an installed engine whenever asked; says so the first time only (not at every
    change of Settings)."""

    def __init__(self, say: Callable[[str], None]) -> None:
        self._say = say
        self._said = False

    def choose(self, combo: ValueCombo, context: AppContext) -> None:
        said = choose_installed(combo, context.missing_engines(), context.drivers)
        if said and not self._said:
            self._said = True
            self._say(said)
