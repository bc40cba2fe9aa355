"""A series' range over its sweep, in words that agree with its figures: the quoted means are
the highest and lowest, at the points named; equal figures are said to be equal; a difference
within the runs' noise is said to be so (Hypothesis over random sweeps)."""

from __future__ import annotations

import math
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from app.analysis.pair_words import format_value
from app.analysis.range_findings import range_finding
from app.analysis.significance import ALPHA, welch_test
from app.domain.plan import Variable

NUMBER = r"\d+(?:\.\d+)?"
RATE = rf"{NUMBER} [kMG]?bit/s"
HIGH_LOW = re.compile(
    rf"^S reached its highest mean throughput, (?P<high>{RATE}), at parallel streams "
    rf"(?P<top>\d+); its lowest was (?P<low>{RATE}) at (?P<bottom>\d+) \(a difference larger "
    rf"than the runs' noise, p = (?P<p>[\d.e-]+)\)\.$"
)
RANGED = re.compile(
    rf"^S: the mean throughput ranged from (?P<low>{RATE}) at parallel streams (?P<bottom>\d+) "
    rf"to (?P<high>{RATE}) at (?P<top>\d+)(?P<why>, a difference within the runs' noise "
    rf"\(Welch's t-test, p = (?P<p>[\d.e-]+)\)\.|; with a single run at one of them, that "
    rf"difference cannot be told from the runs' noise\.)$"
)
SAME = re.compile(
    rf"^S: the mean throughput was (?P<both>{RATE}) at every point measured \(parallel streams "
    rf"(?P<values>[\d, and]+)\); the highest and the lowest are the same to the figures shown\.$"
)
ONE = re.compile(
    rf"^S: a mean throughput of (?P<mean>{RATE}) at parallel streams (?P<at>\d+), the one "
    rf"point measured\.$"
)


def mean(values: list[float]) -> float:
    return math.fsum(values) / len(values)


#: Throughputs around one level, a point shifted from it or not, some runs identical: equal,
#: near-equal, noisy and clearly different means all come up.
level = st.sampled_from([35.4e6, 1e3, 940e6])
factors = st.lists(
    st.one_of(st.floats(0.99, 1.01), st.sampled_from([1.0, 1.001]), st.floats(0.5, 1.5)),
    min_size=0,
    max_size=5,
)
runs = st.tuples(st.sampled_from([0.6, 1.0, 1.0, 1.4]), factors).map(
    lambda shifted: [shifted[0] * f for f in shifted[1]]
)


@settings(max_examples=300, deadline=None)
@given(
    level=level,
    sweep=st.dictionaries(st.sampled_from([1, 2, 4, 8, 16]), runs, min_size=1, max_size=5),
)
def test_the_sentence_agrees_with_the_figures(level: float, sweep: dict[int, list[float]]) -> None:
    data = {float(k): [level * f for f in v] for k, v in sweep.items()}
    sentence = range_finding("S", "throughput_bps", Variable.PARALLEL, data)
    means = {k: mean(v) for k, v in data.items() if v}
    if not means:
        assert sentence is None
        return
    assert sentence is not None
    shown = {k: format_value("throughput_bps", m) for k, m in means.items()}
    highest, lowest = max(means.values()), min(means.values())
    if len(means) == 1:
        match = ONE.match(sentence)
        assert match, sentence
        assert match["mean"] == next(iter(shown.values()))
        assert float(match["at"]) in means
        return
    if (same := SAME.match(sentence)) is not None:
        assert same["both"] == format_value("throughput_bps", highest)
        assert same["both"] == format_value("throughput_bps", lowest)
        listed = [float(v) for v in re.split(r", | and ", same["values"])]
        assert listed == list(means)
        return
    match = HIGH_LOW.match(sentence) or RANGED.match(sentence)
    assert match, sentence
    top, bottom = float(match["top"]), float(match["bottom"])
    # The points named hold the highest and the lowest mean, quoted as the table shows them.
    assert means[top] == highest and means[bottom] == lowest
    assert match["high"] == shown[top] and match["low"] == shown[bottom]
    assert match["high"] != match["low"]
    test = welch_test(data[bottom], data[top])
    if HIGH_LOW.match(sentence):
        assert test.p_value is not None and test.p_value < ALPHA
        assert float(match["p"]) < ALPHA
    elif match["p"] is not None:
        assert test.p_value is not None and test.p_value >= ALPHA
        assert float(match["p"]) >= ALPHA
    else:
        assert min(len(data[top]), len(data[bottom])) < 2


def test_equal_means_are_not_called_highest_and_lowest() -> None:
    """The issue's sentence: 35.4 Mbit/s at 1 and at 8 stream(s) is the same figure."""
    sentence = range_finding(
        "TCP · IPv4 · up",
        "throughput_bps",
        Variable.PARALLEL,
        {1.0: [35.41e6, 35.39e6], 4.0: [35.38e6, 35.40e6], 8.0: [35.37e6, 35.42e6]},
    )
    assert sentence == (
        "TCP · IPv4 · up: the mean throughput was 35.4 Mbit/s at every point measured "
        "(parallel streams 1, 4 and 8); the highest and the lowest are the same to the figures "
        "shown."
    )


def test_an_acronym_keeps_its_capitals() -> None:
    """The access categories are named 'DSCP / …' in the sentence, as in the form."""
    sentence = range_finding("UDP · IPv4", "out_of_order", Variable.DSCP, {"VO": [48.0, 52.0]})
    assert sentence == (
        "UDP · IPv4: a mean out of order of 50 datagrams at DSCP / access category VO, the one "
        "point measured."
    )
