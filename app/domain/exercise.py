"""Lab exercises: what an instructor hands out (aims, steps with their plans, locked fields,
instructions and questions) and who measured a session for which step.

An exercise file (.linklab-exercise) is JSON; reading one checks every field and says in one
sentence what is wrong. Field names that can be locked are the `linklab run` options without
their dashes, so that an instructor, a student and the command line use the same words."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any

from app.domain.collector import Collector, collector_from_dict
from app.domain.errors import BadOption
from app.domain.metrics import COMPARABLE, POINT_METRICS
from app.domain.plan import Assignment, Metric, Peer, Plan, Variable, clean_text
from app.domain.plan_fields import PLAN_FIELDS

EXERCISE_FORMAT = "linklab-exercise"
EXERCISE_VERSION = 1
EXERCISE_SUFFIX = ".linklab-exercise"
MAX_EXERCISE_BYTES = 2 * 1024 * 1024
MAX_STEPS = 20
MAX_QUESTIONS = 30
MAX_TEXT = 20_000
MAX_TITLE = 200
#: A student's or a group's name: room for any real name, never a page of text.
MAX_NAME = 200
MAX_ANSWER = 50_000

#: The fields an exercise can lock: name (as `linklab run --NAME`) -> (what it is called in
#: sentences, the plan attributes it covers), from the plan's field table.
LOCKABLE: dict[str, tuple[str, tuple[str, ...]]] = {
    field.lock: (field.lock_words, field.attributes) for field in PLAN_FIELDS if field.lock
}
#: What a hand-in may carry of the environment snapshot only when the exercise asks.
PRIVATE_FACTS = ("ssid", "mac", "user")


@dataclass(frozen=True)
class Step:
    title: str
    instructions: str
    plan: Plan  # with a placeholder peer: the student measures against their own
    locked: tuple[str, ...] = ()  # names from LOCKABLE
    questions: tuple[str, ...] = ()

    def locked_text(self) -> str:
        return ", ".join(LOCKABLE[name][0] for name in self.locked)

    def heading(self, number: int, total: int) -> str:
        """ "Step 1 of 2: the open network", whether or not the title says "Step 1:" itself."""
        title = _STEP_PREFIX.sub("", self.title, count=1) or self.title
        return f"Step {number} of {total}: {title}"

    def short_title(self) -> str:
        """The title without a "Step N:" of its own (a list numbers the steps already)."""
        return _STEP_PREFIX.sub("", self.title, count=1) or self.title


_STEP_PREFIX = re.compile(r"^\s*step\s+\d+\s*[:.\-–—]\s*", re.IGNORECASE)

#: Words by which a question asks about a measured figure, and the point metrics they name.
_ASKED: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(m.asked_by, re.IGNORECASE), m.name) for m in POINT_METRICS if m.asked_by
)
#: What can be charted and compared, in the metric table's order (idle latency before loaded).
_ORDER = {m.name: rank for rank, m in enumerate(POINT_METRICS) if m in COMPARABLE}


def _latencies(text: str) -> tuple[str, ...]:
    """Latency asked about: idle, loaded (working), or, named without either, both."""
    if not re.search(r"latenc", text, re.IGNORECASE):
        return ()
    idle = re.search(r"\bidle\b", text, re.IGNORECASE) is not None
    loaded = re.search(r"\bload|\bworking\b|\bunder\b", text, re.IGNORECASE) is not None
    if idle == loaded:
        return ("latency_idle_ms", "latency_ms")
    return ("latency_idle_ms",) if idle else ("latency_ms",)


def asked_metrics(step: Step) -> tuple[str, ...]:
    """The point metrics a step's questions ask about (with its instructions for context),
    then the ones its plan measures beyond throughput, in the order the metric table lists
    them; throughput where nothing else is named. What the step sweeps is not asked about
    (a sweep over emulated loss asks how throughput falls, not what loss was measured)."""
    asked: set[str] = set()
    for text in (*step.questions, step.instructions):
        asked.update(_latencies(text))
        asked.update(name for pattern, name in _ASKED if pattern.search(text))
    if step.plan.variable is Variable.LOSS:
        asked.discard("loss_pct")
    if Metric.LATENCY in step.plan.metrics:
        asked.update(("latency_idle_ms", "latency_ms"))
    if Metric.RTT in step.plan.metrics:
        asked.add("rtt_ms")
    return tuple(sorted(asked, key=_ORDER.__getitem__)) or ("throughput_bps",)


@dataclass(frozen=True)
class Exercise:
    id: str
    title: str
    aims: str
    steps: tuple[Step, ...]
    questions: tuple[str, ...] = ()  # about the exercise as a whole, answered at the end
    reveal: tuple[str, ...] = ()  # of PRIVATE_FACTS: what the hand-in may carry
    #: The class's collector, when the instructor collects runs live (else hand-ins only).
    collector: Collector | None = None

    def question_ids(self) -> list[tuple[str, str]]:
        """(id, text) of every question: "2.1" is step 2's first, "E.1" the exercise's."""
        found = [
            (f"{n}.{q}", text)
            for n, step in enumerate(self.steps, 1)
            for q, text in enumerate(step.questions, 1)
        ]
        found += [(f"E.{q}", text) for q, text in enumerate(self.questions, 1)]
        return found


def student_name(value: str, what: str = "Your name") -> str:
    """A student's name as entered; BadOption when it is empty or longer than MAX_NAME (never
    cut silently: a name is how the instructor tells two students apart)."""
    name = clean_text(value, len(value) + 1).replace("\n", " ")
    if not name:
        raise BadOption("Type your name (as your instructor will know it) before you start.")
    return _bounded(name, what)


def group_name(value: str) -> str:
    """A group's name as entered (empty when none); BadOption when longer than MAX_NAME."""
    return _bounded(clean_text(value, len(value) + 1).replace("\n", " "), "The group's name")


def _bounded(name: str, what: str) -> str:
    if len(name) > MAX_NAME:
        raise BadOption(
            f"{what} is {len(name):,} characters long; a name is at most {MAX_NAME}: shorten it."
        )
    return name


# -- locked fields -------------------------------------------------------------------------------
def one_owner(plans: Sequence[Plan]) -> tuple[str, str] | None:
    """The (exercise id, student) every plan was measured for, or None when one was measured
    outside an exercise, or they belong to more than one student or exercise."""
    owners = {(p.assignment.exercise_id, p.assignment.student) for p in plans if p.assignment}
    if len(owners) != 1 or any(p.assignment is None for p in plans):
        return None
    ((exercise_id, student),) = owners
    return exercise_id, student


def _get(plan: Plan, attribute: str) -> object:
    target: object = plan
    for part in attribute.split("."):
        target = getattr(target, part)
    return target


def locked_differences(step: Step, plan: Plan) -> list[str]:
    """The locked fields where plan differs from the step's plan, by name."""
    return [
        name
        for name in step.locked
        if any(_get(plan, a) != _get(step.plan, a) for a in LOCKABLE[name][1])
    ]


def refuse_locked(exercise: Exercise, step: Step, names: Sequence[str]) -> None:
    """BadOption naming the locked fields a student tried to change."""
    wanted = [n for n in dict.fromkeys(names) if n in step.locked]
    if not wanted:
        return
    what = ", ".join(
        f"{LOCKABLE[n][0]}, --{n} (its value: "
        f"{'; '.join(_shown(_get(step.plan, a)) for a in LOCKABLE[n][1])})"
        for n in wanted
    )
    raise BadOption(
        f"The exercise “{exercise.title}” locks {what} for this step: leave "
        f"{'it' if len(wanted) == 1 else 'them'} as the exercise sets, or ask your instructor."
    )


def _shown(value: object) -> str:
    """A locked field's value as a sentence shows it (as `linklab run` takes it)."""
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, tuple | list):
        return ", ".join(_shown(v) for v in value) or "none"
    if value is None:
        return "none"
    return str(value)


def step_plan(step: Step, peer: Peer, assignment: Assignment) -> Plan:
    return replace(step.plan, peer=peer, assignment=assignment, name=step.plan.name or step.title)


# -- the file ------------------------------------------------------------------------------------
def new_exercise_id() -> str:
    return uuid.uuid4().hex


def exercise_to_dict(exercise: Exercise) -> dict[str, Any]:
    return {
        "format": EXERCISE_FORMAT,
        "format_version": EXERCISE_VERSION,
        "id": exercise.id,
        "title": exercise.title,
        "aims": exercise.aims,
        "reveal": list(exercise.reveal),
        "steps": [
            {
                "title": s.title,
                "instructions": s.instructions,
                "plan": _plan_without_peer(s.plan),
                "locked": list(s.locked),
                "questions": list(s.questions),
            }
            for s in exercise.steps
        ],
        "questions": list(exercise.questions),
    } | (
        {"collector": _collector_dict(exercise.collector)} if exercise.collector is not None else {}
    )


def _collector_dict(collector: Collector) -> dict[str, str]:
    # No token: the exercise as a student's database keeps it (the token is kept apart).
    return {"url": collector.url} | ({"token": collector.token} if collector.token else {})


def _plan_without_peer(plan: Plan) -> dict[str, Any]:
    data = plan.to_dict()
    data.pop("peer", None)
    data.pop("assignment", None)
    return data


def exercise_json(exercise: Exercise) -> str:
    return json.dumps(exercise_to_dict(exercise), indent=1, ensure_ascii=False) + "\n"


def exercise_from_text(text: str, name: str = "the exercise") -> Exercise:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as err:
        raise BadOption(
            f"{name} cannot be read as a LinkLab exercise (it is not valid JSON: {err}): ask "
            f"your instructor for the file again."
        ) from None
    return exercise_from_dict(data, name)


def exercise_from_dict(data: object, name: str = "the exercise") -> Exercise:
    """Check and build an exercise; BadOption with one sentence for the first fault."""
    from app.domain.plan_codec import plan_from_dict

    def bad(problem: str) -> BadOption:
        return BadOption(f"{name} {problem}: ask your instructor for the file again.")

    if not isinstance(data, dict) or data.get("format") != EXERCISE_FORMAT:
        raise bad("is not a LinkLab exercise")
    version = data.get("format_version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise bad("has no valid format_version")
    if version > EXERCISE_VERSION:
        raise BadOption(
            f"{name} was written by a newer LinkLab (exercise format {version}): update "
            f"LinkLab, then open it again."
        )
    title = clean_text(data.get("title"), MAX_TITLE)
    if not title:
        raise bad("has no title")
    steps_data = data.get("steps")
    if not isinstance(steps_data, list) or not 1 <= len(steps_data) <= MAX_STEPS:
        raise bad(f"must have 1 to {MAX_STEPS} steps")
    steps = []
    for n, item in enumerate(steps_data, 1):
        if not isinstance(item, dict):
            raise bad(f"has a step {n} that is not an object")
        plan_data = item.get("plan")
        if not isinstance(plan_data, dict):
            raise bad(f"has no plan for step {n}")
        try:
            plan = plan_from_dict({**plan_data, "peer": {"host": "localhost"}})
        except BadOption as err:
            raise bad(f"has a plan for step {n} that LinkLab cannot use ({err.sentence})") from None
        locked = _texts(item.get("locked", []), 40, len(LOCKABLE), bad, f"step {n}'s locked")
        unknown = [x for x in locked if x not in LOCKABLE]
        if unknown:
            raise bad(f"locks fields LinkLab does not know in step {n} ({', '.join(unknown)})")
        questions = _texts(
            item.get("questions", []), MAX_TEXT, MAX_QUESTIONS, bad, f"step {n}'s questions"
        )
        steps.append(
            Step(
                clean_text(item.get("title"), MAX_TITLE) or f"Step {n}",
                clean_text(item.get("instructions", ""), MAX_TEXT),
                plan,
                tuple(dict.fromkeys(locked)),
                tuple(questions),
            )
        )
    reveal = _texts(data.get("reveal", []), 20, len(PRIVATE_FACTS), bad, "reveal")
    if any(x not in PRIVATE_FACTS for x in reveal):
        raise bad(f"asks to reveal something other than {', '.join(PRIVATE_FACTS)}")
    ident = clean_text(data.get("id"), 64)
    if not ident.isalnum():
        raise bad("has no valid id")
    try:
        collector = collector_from_dict(data.get("collector"))
    except BadOption:
        raise bad("names a collector whose address or class token is malformed") from None
    return Exercise(
        ident,
        title,
        clean_text(data.get("aims", ""), MAX_TEXT),
        tuple(steps),
        tuple(_texts(data.get("questions", []), MAX_TEXT, MAX_QUESTIONS, bad, "questions")),
        tuple(reveal),
        collector,
    )


def _texts(value: object, cap: int, most: int, bad: Any, what: str) -> list[str]:
    if not isinstance(value, list) or len(value) > most:
        raise bad(f"has {what} that are not a list of at most {most} texts")
    if not all(isinstance(v, str) for v in value):
        raise bad(f"has {what} that are not all texts")
    return [t for t in (clean_text(v, cap) for v in value) if t]


def with_id(exercise: Exercise, ident: str | None = None) -> Exercise:
    return replace(exercise, id=ident or new_exercise_id())


__all__ = [
    "EXERCISE_SUFFIX",
    "LOCKABLE",
    "MAX_ANSWER",
    "MAX_NAME",
    "PRIVATE_FACTS",
    "Assignment",
    "Exercise",
    "Step",
    "asked_metrics",
    "exercise_from_dict",
    "exercise_from_text",
    "exercise_json",
    "exercise_to_dict",
    "group_name",
    "locked_differences",
    "new_exercise_id",
    "refuse_locked",
    "step_plan",
    "student_name",
    "with_id",
]
