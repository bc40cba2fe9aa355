"""A step of a lab exercise on the Measure tab: the step's plan filled in, the fields it locks
greyed out with the reason, a line above the form saying which step this is, and the session
marked with who measures it."""

from __future__ import annotations

import weakref
from dataclasses import replace

from PySide6.QtWidgets import QWidget

from app.domain.exercise import LOCKABLE, Exercise
from app.domain.plan import Assignment, Plan
from app.domain.plan_fields import PLAN_FIELDS
from app.ui.measure.setup_panel import SetupPanel

#: The set-up form's field keys for each lockable name.
FORM_KEYS: dict[str, tuple[str, ...]] = {
    field.lock: field.locked_keys for field in PLAN_FIELDS if field.lock
}
assert set(FORM_KEYS) == set(LOCKABLE)

#: The form as the user had it before the first step was set up, given back at the end.
_BEFORE: weakref.WeakKeyDictionary[SetupPanel, Plan] = weakref.WeakKeyDictionary()


def _extra_controls(panel: SetupPanel, name: str) -> list[QWidget]:
    """Controls of a locked field that are not form fields of their own."""
    if name == "sizes":
        study = panel.study
        return [study.range_from, study.range_to, study.range_step]
    if name == "metric":
        return list(panel.study.metric_boxes.values())
    return []


def lock_step(panel: SetupPanel, exercise: Exercise, number: int, student: str, group: str) -> Plan:
    """Fill the form with step number's plan (keeping the peer chosen) and lock its fields."""
    current = panel.build_candidate()[0]
    if panel.assignment is None:  # the user's own form: kept for when the exercise closes
        _BEFORE[panel] = current
    _release(panel)
    step = exercise.steps[number - 1]
    assignment = Assignment(exercise.id, exercise.title, number, student, group)
    plan = replace(step.plan, peer=current.peer, name=step.plan.name or step.title)
    reason = f"Locked by the exercise “{exercise.title}”: it sets this for step {number}."
    panel.locks = {key: reason for name in step.locked for key in FORM_KEYS[name]}
    panel.assignment = assignment
    panel.set_plan(plan)
    for name in step.locked:
        for control in _extra_controls(panel, name):
            control.setProperty("unlockedToolTip", control.toolTip())
            control.setEnabled(False)
            control.setToolTip(reason)
    locked = step.locked_text()
    heading = step.heading(number, len(exercise.steps))
    panel.show_notice(
        f"Exercise “{exercise.title}”, {heading[:1].lower()}{heading[1:]}. "
        + (f"Locked by the exercise: {locked}." if locked else "Nothing is locked.")
    )
    return plan


def unlock(panel: SetupPanel) -> None:
    """The form as it was before the exercise (the peer chosen since kept): every field
    free, no one's name on it."""
    if panel.assignment is None and not panel.locks:
        return
    peer = panel.build_candidate()[0].peer
    _release(panel)
    before = _BEFORE.pop(panel, None)
    if before is not None:
        panel.set_plan(replace(before, peer=peer))


def _release(panel: SetupPanel) -> None:
    """Every field free again, the step's plan still in it."""
    if panel.assignment is None and not panel.locks:
        return
    for name in LOCKABLE:
        for control in _extra_controls(panel, name):
            tip = control.property("unlockedToolTip")
            if tip is not None:
                control.setEnabled(True)
                control.setToolTip(str(tip))
                control.setProperty("unlockedToolTip", None)
    panel.locks = {}
    panel.assignment = None
    panel.show_notice("")
    panel.set_plan(panel.build_candidate()[0])  # re-applies what is greyed out and why
