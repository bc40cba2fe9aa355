"""A warning or finding that sends the user to a field names it as the form shows it: every
"the … field" in the analysis's sentences is a label a person can see on the Measure tab."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from app.domain.plan_fields import BY_KEY, where_set
from app.ui.main_window import MainWindow
from app.ui.measure.form_fields import PAGE_NAMES
from tests.ui.user import User

SOURCES = [p for part in ("analysis", "study", "report") for p in (Path("app") / part).glob("*.py")]
#: "the UDP bitrate field", "(Bitrate field, or --bitrate)": a field named in a sentence.
NAMED = re.compile(r"(?:the |\()([A-Z][\w -]*?(?: \([\w ]+\))?) field\b")


def named_fields() -> dict[str, str]:
    """Each field name the sentences quote, with the file quoting it: literal text, and the
    labels where_set(key) gives."""
    found: dict[str, str] = {}
    for path in SOURCES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                for name in NAMED.findall(node.value):
                    found[name] = path.name
            is_call = isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            if is_call and node.func.id == "where_set":  # type: ignore[union-attr]
                key = node.args[0]
                assert isinstance(key, ast.Constant), f"{path.name}: where_set of a variable"
                found[BY_KEY[key.value].label] = path.name
    return found


def test_where_set_names_the_label_and_the_option() -> None:
    assert where_set("bitrate") == "the UDP bitrate field, or --bitrate"
    assert where_set("repetitions") == "the Runs per point field, or --runs"


def test_every_field_a_sentence_names_is_a_label_on_the_form(
    window: MainWindow, user: User
) -> None:
    named = named_fields()
    assert {"UDP bitrate", "Runs per point"} <= set(named), named  # the warnings' own
    user.tab("Measure")
    seen: set[str] = set()
    for page in PAGE_NAMES:
        user.tab(page)
        seen |= {name for name in named if user.can_see(name)}
    missing = {name: where for name, where in named.items() if name not in seen}
    assert not missing, f"fields named in sentences that the form does not show: {missing}"
