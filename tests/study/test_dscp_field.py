"""The DSCP mark through the plan-field table: its names (the access categories RFC 8325
maps, the DSCP classes, a number), the command line's option and sweep, the plan codec, an
exercise's lock, the descriptions and the comparisons' confounds."""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.analysis.pair_findings import where
from app.cli import build_parser
from app.cli.study_cmds import plan_from_args
from app.domain.exercise import LOCKABLE, Step, locked_differences
from app.domain.field_table import dscp_code, dscp_name
from app.domain.plan import Peer, Plan, Variable
from app.domain.plan_codec import plan_from_json
from app.domain.plan_fields import BY_KEY, SWEPT, categorical
from app.study.sweep.describe import default_name, describe_plan

PLAN = Plan(Peer("198.18.0.2"), variable=Variable.DSCP, values=("BK", "BE", "VI", "VO"))


@pytest.mark.parametrize(
    ("text", "name", "code"),
    [
        ("bk", "BK", 8),
        ("BE", "BE", 0),
        ("vi", "VI", 34),
        ("VO", "VO", 46),
        ("ef", "EF", 46),
        ("af41", "AF41", 34),
        ("cs1", "CS1", 8),
        ("AF21", "AF21", 18),
        (" 63", "63", 63),
        ("007", "7", 7),
    ],
)
def test_a_mark_is_read_by_its_name_or_number(text: str, name: str, code: int) -> None:
    assert dscp_name(text) == name and dscp_code(name) == code


@pytest.mark.parametrize("text", ["64", "-1", "voice", "AF44", "", "4.5"])
def test_what_is_no_mark_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="access category"):
        dscp_name(text)


def test_the_field_is_swept_as_categories() -> None:
    field = BY_KEY["dscp"]
    assert SWEPT[Variable.DSCP] is field and categorical(Variable.DSCP)
    assert field.examples == ("BK", "BE", "VI", "VO")
    assert field.label == "DSCP / access category" and field.cli is not None


def test_the_command_line_sets_and_sweeps_it() -> None:
    args = build_parser().parse_args(["run", "--peer", "h", "--dscp", "ef"])
    assert plan_from_args(args).dscp == "EF"
    args = build_parser().parse_args(
        ["run", "--peer", "h", "--vary", "dscp", "--values", "bk,vo,46"]
    )
    plan = plan_from_args(args)
    assert plan.variable is Variable.DSCP and plan.values == ("BK", "VO", "46")
    with pytest.raises(SystemExit):
        build_parser().parse_args(["run", "--peer", "h", "--dscp", "voice"])


def test_the_plan_file_keeps_it() -> None:
    marked = replace(PLAN, dscp="AF21")
    again = plan_from_json(marked.to_json())
    assert again == marked and again.values == ("BK", "BE", "VI", "VO")
    unmarked = replace(PLAN, variable=Variable.LENGTH, values=(1408,))
    assert "dscp" not in unmarked.to_dict()  # as earlier LinkLabs wrote and read it
    assert plan_from_json(unmarked.to_json()) == unmarked


def test_an_exercise_locks_it() -> None:
    assert LOCKABLE["dscp"] == ("the DSCP mark", ("dscp",))
    step = Step("marked", "", replace(PLAN, variable=Variable.LENGTH, values=(1408,), dscp="VO"))
    step = replace(step, locked=("dscp",))
    assert locked_differences(step, replace(step.plan, dscp="BK")) == ["dscp"]
    assert locked_differences(step, step.plan) == []


def test_the_descriptions_name_it() -> None:
    assert default_name(PLAN) == "TCP · IPv4 · DSCP / access category BK vs BE vs VI vs VO"
    fixed = replace(PLAN, variable=Variable.LENGTH, values=(1408,), dscp="VO")
    assert describe_plan(fixed).endswith(" · DSCP / access category VO")
    assert "DSCP" not in describe_plan(PLAN).split("·")[-1]  # swept: the points name it


def test_findings_name_the_categories() -> None:
    assert where(["VO", "BK"], "", "DSCP / access category") == "DSCP / access category VO and BK"
    assert where(["cubic", "bbr"], "", "Congestion control") == "congestion control cubic and bbr"
