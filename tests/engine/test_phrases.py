"""The engines' parts of sentences said elsewhere (EngineDriver.phrases): every {key} the
plan-field and metric tables leave is said by some engine, joined in the registry's order, and
a setting's cited option is the one the driver passes."""

from __future__ import annotations

import string

import pytest

from app.domain.metrics import POINT_METRICS
from app.domain.plan_fields import PLAN_FIELDS
from app.engine.drivers.arguments import Absent, Argument
from app.engine.drivers.driver import EngineDriver
from app.engine.drivers.registry import DRIVERS, SLOTS, main_server, phrase, phrased

TABLE_TEXTS = [f.tip for f in PLAN_FIELDS if f.tip] + [
    f.cli.help for f in PLAN_FIELDS if f.cli is not None and f.cli.help
]
TABLE_TEXTS += [m.shown.results[3] for m in POINT_METRICS if m.shown.results]


def _keys(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_every_key_the_tables_leave_is_said_by_an_engine() -> None:
    keys = set().union(*(_keys(text) for text in TABLE_TEXTS))
    assert {"omit", "window", "congestion", "owd_engine"} <= keys
    said = {key for d in DRIVERS.values() for key in d.phrases}
    assert keys <= said | set(SLOTS)
    for text in TABLE_TEXTS:
        assert "{" not in phrased(text) and "}" not in phrased(text)


def test_phrases_join_in_the_registry_order() -> None:
    order = [d for d in DRIVERS.values() if "congestion" in d.phrases]
    assert len(order) == len(DRIVERS)
    assert phrase("congestion") == ", ".join(d.phrases["congestion"] for d in order)
    both = [d.phrases["cpu"] for d in DRIVERS.values() if "cpu" in d.phrases]
    assert phrased("CPU ({cpu:; }).") == f"CPU ({'; '.join(both)})."
    with pytest.raises(KeyError):
        phrased("{no_engine_says_this}")


@pytest.mark.parametrize("driver", DRIVERS.values(), ids=lambda d: d.name)
def test_a_cited_option_is_the_one_the_driver_passes(driver: EngineDriver) -> None:
    for key, how in driver.arguments.items():
        if key not in driver.phrases:
            continue
        assert not isinstance(how, Absent), f"{key}: cited, yet the engine has none"
        assert isinstance(how, Argument) and driver.phrases[key].endswith(f" {how.flag}"), key


def test_a_slot_is_said_by_the_registry() -> None:
    assert phrased("its own {main_server}.") == f"its own {main_server().server_label}."
