"""The Differences table's two means read as the difference beside them: over random pairs of
sessions (runs all alike among them, an SD of exactly 0), the means as shown, subtracted,
agree with the Difference shown within the roundings the table shows, and to two of its
digits wherever a mean's six digits can show it."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import example, given, settings
from hypothesis import strategies as st

from app.analysis.compare import compare_pair, means_text
from app.analysis.pairs import SeriesData
from app.domain.net import IpVersion, Protocol
from app.domain.plan import Peer, Plan, Series
from app.domain.precision import MEAN_DIGITS
from app.domain.units import MINUS
from app.ui.compare.cells import difference_cell
from tests.records_made import session_record

SCALE = {"Tbit/s": 1e12, "Gbit/s": 1e9, "Mbit/s": 1e6, "kbit/s": 1e3, "bit/s": 1.0}
PLAN = Plan(peer=Peer("192.0.2.10"), values=(1408,), repetitions=3)
TCP4 = Series(Protocol.TCP, IpVersion.V4)


def read(cell: str) -> tuple[Decimal, Decimal]:
    """A shown rate in bit/s, with its sign, and half a unit of its last place."""
    number, unit = cell.replace(MINUS, "-").replace("+", "").split(" ")
    places_shown = len(number.partition(".")[2])
    scale = Decimal(SCALE[unit])
    return Decimal(number) * scale, Decimal(10) ** -places_shown * scale / 2


def second_digit(value: Decimal) -> Decimal:
    """The unit of value's second significant digit once value is rounded to two digits."""
    exponent = int(f"{abs(value):.1e}".partition("e")[2])
    return Decimal(10) ** (exponent - 1)


def side(sid: str, runs: list[float]) -> SeriesData:
    return SeriesData(session_record(PLAN, sid), TCP4, {1408: runs})


@st.composite
def sessions(draw: st.DrawFn) -> tuple[list[float], list[float]]:
    """A baseline's runs and another session's, close or far apart, alike or spread."""
    mean = draw(st.floats(1e3, 5e11))
    apart = draw(st.one_of(st.just(0.0), st.floats(-0.5, 0.5), st.floats(-1e-5, 1e-5)))
    sides = []
    for centre in (mean, mean * (1 + apart)):
        n = draw(st.integers(1, 5))
        spread = draw(st.one_of(st.just(0.0), st.floats(0.0, 1e-4), st.floats(0.0, 0.05)))
        offsets = draw(st.lists(st.floats(-1, 1), min_size=n, max_size=n))
        sides.append([centre * (1 + spread * o) for o in offsets])
    return sides[0], sides[1]


@settings(max_examples=500, deadline=None)
@given(sessions())
@example(([1000.0], [1000.9999999999999]))  # found under Windows: the bound met to the last bit
@example(  # its difference, 0.995 Gbit/s, reads "1.0" to two digits: means to 0.1 Gbit/s
    ([278237571862.0] * 3 + [282217571862.0014], [278237571862.0])
)
def test_the_shown_means_differ_by_the_difference_shown(
    runs: tuple[list[float], list[float]],
) -> None:
    (point,) = compare_pair(side("a" * 32, runs[0]), side("b" * 32, runs[1])).points
    assert point.baseline.mean is not None and point.other.mean is not None
    assert point.difference is not None
    baseline, other = means_text("throughput_bps", point.baseline.mean, point.other.mean)
    difference = difference_cell("throughput_bps", point.difference)
    (base, base_half), (oth, other_half) = read(baseline), read(other)
    if difference.startswith("0 "):  # nothing apart: shown alike
        assert baseline == other, (baseline, other, difference)
        return
    said, said_half = read(difference)
    shown = oth - base
    # Consistent within the roundings shown: each mean's, and the difference's.
    slack = base_half + other_half + said_half
    assert abs(shown - said) <= slack * (1 + Decimal("1e-9")), (baseline, other, difference)
    # And not by leaving the means too coarse to show it: to two of its digits at least,
    # unless a mean's six significant digits cannot (a difference a millionth of it).
    true = Decimal(point.difference)
    larger = max(abs(point.baseline.mean), abs(point.other.mean))
    if abs(point.difference) >= 10 * larger * 10.0 ** -(MEAN_DIGITS - 1):
        # Within the float error of the difference itself (1000.9999999999999 − 1000); a
        # difference whose two digits carry (0.995 reads 1.0) has its second digit's unit.
        bound = max(abs(true) / 10, second_digit(true)) * (1 + Decimal("1e-9"))
        assert base_half + other_half <= bound, (baseline, other, difference)
        assert baseline != other, (baseline, other, difference)


def test_the_means_the_issue_met_read_as_their_difference() -> None:
    """As found: an SD of 0 beside one of 0.0006 Mbit/s showed both means as "27.7 Mbit/s"
    beside a Difference of "+667 bit/s"."""
    (point,) = compare_pair(
        side("a" * 32, [27.739033e6] * 3),
        side("b" * 32, [27.7391e6 + 600 + d for d in (-600.0, 0.0, 600.0)]),
    ).points
    assert difference_cell("throughput_bps", point.difference) == "+667 bit/s"
    assert means_text("throughput_bps", point.baseline.mean, point.other.mean) == (
        "27.7390 Mbit/s",
        "27.7397 Mbit/s",
    )
