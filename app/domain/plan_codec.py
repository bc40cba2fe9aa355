"""Plans from JSON (stored sessions, plan files, presets, exchange files): every field's type
checked, enums by value, a sentence for whatever is wrong."""

from __future__ import annotations

import json
import math
from typing import Any

from app.domain.errors import BadOption
from app.domain.net import Direction, IpVersion, Protocol
from app.domain.plan import (
    OLD_PORT_FIELDS,
    PLAN_FORMAT,
    Conditions,
    EarlyStop,
    Engine,
    Medium,
    Metric,
    Order,
    Peer,
    Plan,
    Security,
    Variable,
    assignment_from_dict,
    clean_text,
)
from app.domain.plan_fields import BY_NAME, NAME, Kind, categorical


def _enum_tuple(kind: type[Any], value: object, name: str) -> tuple[Any, ...]:
    items = value if isinstance(value, list | tuple) else [value]
    return tuple(kind(int(str(v))) if kind is IpVersion else kind(v) for v in items)


def _number(value: object, name: str, whole: bool = True) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{name} must be a number")
    try:
        finite = math.isfinite(value)
    except OverflowError:  # an integer beyond any float
        finite = False
    if not finite:
        raise ValueError(f"{name} must be finite")
    if whole:
        if int(value) != value:
            raise ValueError(f"{name} must be a whole number")
        return int(value)
    return float(value)


def decode_field(key: str, value: Any) -> Any:
    """One plan field from its JSON value; ValueError/TypeError say what is wrong."""
    decoders: dict[str, Any] = {
        "peer": peer_from_dict,
        "engine": Engine,
        "protocols": lambda v: _enum_tuple(Protocol, v, key),
        "ip_versions": lambda v: _enum_tuple(IpVersion, v, key),
        "direction": Direction,
        "variable": Variable,
        "values": lambda v: tuple(
            _name(x, "a value") if isinstance(x, str) else _number(x, "value")
            for x in (v if isinstance(v, list | tuple) else [v])
        ),
        "order": Order,
        "metrics": lambda v: _enum_tuple(Metric, v, key),
        "early_stop": lambda v: None if v is None else EarlyStop(**_fields(EarlyStop, v)),
        "conditions": conditions_from_dict,
        "assignment": assignment_from_dict,
    }
    if key in decoders:
        return decoders[key](value)
    field = BY_NAME.get(key)
    kind = field.kind if field is not None else Kind.COUNT
    if kind is Kind.DECIMAL:
        return _number(value, key, whole=False)
    if kind is Kind.SIZE:
        return None if value is None else _number(value, key)
    if kind is Kind.FLAG:
        return _flag(value, key)
    if kind is Kind.TEXT:
        return str(value)[:200]
    if kind is Kind.NAME:
        return None if value is None else _name(value, key)
    return _number(value, key)


def _fields(kind: type[Any], value: object) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"{kind.__name__.lower()} must be an object")
    allowed = set(kind.__dataclass_fields__)
    extra = set(value) - allowed
    if extra:
        raise ValueError(f"unknown {kind.__name__.lower()} fields {sorted(extra)}")
    return dict(value)


def peer_from_dict(value: object) -> Peer:
    """A peer, its ports by engine (format 1's iperf3_port and netperf_port read into them)."""
    if isinstance(value, dict) and set(OLD_PORT_FIELDS) & set(value):
        value = dict(value)
        ports = dict(value.get("ports") or {})
        for old, key in OLD_PORT_FIELDS.items():
            if old in value:
                ports.setdefault(key, value.pop(old))
        value["ports"] = ports
    fields = _fields(Peer, value)
    ports = fields.get("ports", {})
    if not isinstance(ports, dict):
        raise ValueError("a peer's ports must be an object of engine: port")
    fields["ports"] = {str(k): int(_number(v, f"{k} port")) for k, v in ports.items()}
    return Peer(**fields)


def conditions_from_dict(value: object) -> Conditions:
    fields = _fields(Conditions, value)
    tags = fields.get("tags", {})
    if isinstance(tags, dict):
        pairs = tuple(sorted((str(k), str(v)) for k, v in tags.items()))
    elif isinstance(tags, list):
        pairs = tuple(sorted((str(k), str(v)) for k, v in tags))
    else:
        raise ValueError("tags must be an object of key: value")
    return Conditions(
        security=Security(fields.get("security", Security.UNKNOWN)),
        medium=Medium(fields.get("medium", Medium.UNKNOWN)),
        tags=pairs,
        notes=str(fields.get("notes", ""))[:10000],
        security_detected=bool(fields.get("security_detected", False)),
        link_rate_bps=_optional_whole(fields.get("link_rate_bps"), "link_rate_bps"),
        frame_overhead=_optional_whole(fields.get("frame_overhead"), "frame_overhead"),
        # What detected them, as a sentence names it: text from outside, on one line.
        medium_detected_by=" ".join(clean_text(fields.get("medium_detected_by"), 200).split()),
        link_rate_detected_by=" ".join(
            clean_text(fields.get("link_rate_detected_by"), 200).split()
        ),
    )


def _optional_whole(value: object, name: str) -> int | None:
    return None if value is None else int(_number(value, name))


def _flag(value: object, name: str) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be true or false")
    return value


def _name(value: object, name: str) -> str:
    if not isinstance(value, str) or not NAME.match(value):
        raise ValueError(f"{name} must be a name such as cubic (letters, digits, _ . -)")
    return value


def plan_from_json(text: str) -> Plan:
    try:
        data = json.loads(text)
    except ValueError as err:
        raise BadOption(f"The plan file is not valid JSON ({err}): check the file.") from None
    return plan_from_dict(data)


def plan_from_dict(data: object) -> Plan:
    """Build a plan from stored or hand-written JSON, with a sentence for what is wrong."""
    if not isinstance(data, dict):
        raise BadOption("The plan must be a JSON object: check the file.")
    fmt = data.get("format", PLAN_FORMAT)
    if not isinstance(fmt, int) or fmt > PLAN_FORMAT:
        raise BadOption(f"The plan was written by a newer LinkLab (format {fmt}): update LinkLab.")
    known = set(Plan.__dataclass_fields__)
    unknown = sorted(set(data) - known - {"format"})
    if unknown:
        raise BadOption(f"The plan has unknown fields: {', '.join(unknown)}: remove them.")
    try:
        kwargs = {k: decode_field(k, v) for k, v in data.items() if k != "format"}
        if "peer" not in kwargs:
            raise BadOption('The plan names no peer: add "peer": {"host": ...}.')
        plan = Plan(**kwargs)
        names = [v for v in plan.values if isinstance(v, str)]
        if names and not categorical(plan.variable):
            raise ValueError(f"{names[0]!r} where {plan.variable.value} takes numbers")
        return plan
    except BadOption:
        raise
    except (TypeError, ValueError, KeyError) as err:
        raise BadOption(
            f"The plan has a value LinkLab cannot use ({err}): check the file."
        ) from None
