"""Reading plan fields from JSON: types checked, enums by value, a reason for what is wrong."""

from __future__ import annotations

import math
from typing import Any

from app.models import Direction, IpVersion, Protocol
from app.study.plan import (
    Conditions,
    EarlyStop,
    Engine,
    Medium,
    Metric,
    Order,
    Peer,
    Security,
    Variable,
)


def _enum_tuple(kind: type[Any], value: object, name: str) -> tuple[Any, ...]:
    items = value if isinstance(value, list | tuple) else [value]
    return tuple(kind(int(str(v))) if kind is IpVersion else kind(v) for v in items)


def _number(value: object, name: str, whole: bool = True) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{name} must be a number")
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite")
    if whole:
        if int(value) != value:
            raise ValueError(f"{name} must be a whole number")
        return int(value)
    return float(value)


def decode_field(key: str, value: Any) -> Any:
    """One plan field from its JSON value; ValueError/TypeError say what is wrong."""
    decoders: dict[str, Any] = {
        "peer": lambda v: Peer(**_fields(Peer, v)),
        "engine": Engine,
        "protocols": lambda v: _enum_tuple(Protocol, v, key),
        "ip_versions": lambda v: _enum_tuple(IpVersion, v, key),
        "direction": Direction,
        "variable": Variable,
        "values": lambda v: (
            tuple(_number(x, "value") for x in v) if isinstance(v, list) else (_number(v, "value"),)
        ),
        "order": Order,
        "metrics": lambda v: _enum_tuple(Metric, v, key),
        "early_stop": lambda v: None if v is None else EarlyStop(**_fields(EarlyStop, v)),
        "conditions": conditions_from_dict,
        "name": lambda v: str(v)[:200],
        "pause_s": lambda v: _number(v, key, whole=False),
        "interval_s": lambda v: _number(v, key, whole=False),
        "length": lambda v: None if v is None else _number(v, key),
        "window": lambda v: None if v is None else _number(v, key),
        "concurrent": _flag,
    }
    if key in decoders:
        return decoders[key](value)
    return _number(value, key)


def _fields(kind: type[Any], value: object) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"{kind.__name__.lower()} must be an object")
    allowed = set(kind.__dataclass_fields__)
    extra = set(value) - allowed
    if extra:
        raise ValueError(f"unknown {kind.__name__.lower()} fields {sorted(extra)}")
    return dict(value)


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
    )


def _flag(value: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError("concurrent must be true or false")
    return value
