"""Engines own everything about themselves (STYLE: "No `if engine == ...` elsewhere"): outside
an engine's own package (app/engine/drivers/<engine>/) and the registry
(app/engine/drivers/registry.py), no code names an engine or one of its programs: no string
that is one ("iperf3", "netserver.exe") or holds one joined to other words by `_`, `-`, `.` or
`/` ("IPERF3_PASSWORD", "netperf-rr"), no Engine.<MEMBER>, no identifier or import naming
one.

What still does is listed below, each with why, and the lists must match the source exactly:
a new use fails, and so does one removed without its line here (the lists only shrink).
Prose that names an engine in a sentence (help, tooltips, error sentences) is counted per
file the same way; a sentence built from a driver's label or phrases (EngineDriver.phrases,
read through app.engine.drivers.registry.phrase and phrased) names none."""

from __future__ import annotations

import ast
import re
from collections import Counter

from tests.conftest import ROOT_DIR

APP = ROOT_DIR / "app"
#: An engine's own package and the registry: where engines are named.
OWN = re.compile(r"^app/engine/drivers/((iperf3|iperf2|netperf)/\w+|registry)\.py$")
PROGRAMS = r"iperf3|iperf2|iperf|netperf|netserver"
#: A string that is an engine's or program's name (Windows' .exe too).
NAME = re.compile(rf"^({PROGRAMS})(\.exe)?$", re.IGNORECASE)
#: An identifier or module path that names one (Iperf3Options, start_iperf3,
#: app.engine.drivers.iperf3.driver).
IDENTIFIER = re.compile(r"iperf|netperf|netserver", re.IGNORECASE)
#: Where a name stands as a word of its own or joined to others: not inside a longer word.
WORD = rf"(?<![a-z0-9])({PROGRAMS})(?![a-z0-9])"
#: A string of one token that holds one, joined by `_`, `-`, `.` or `/` to other words: a
#: variable's name ("IPERF3_PASSWORD"), a value ("netperf-rr"), a module path.
JOINED = re.compile(rf"^[\w.:/-]*{WORD}[\w.:/-]*$", re.IGNORECASE)
#: A sentence that names one as a word (or joined: "its netperf-rr method").
PROSE = re.compile(WORD, re.IGNORECASE)
MEMBERS = {"IPERF3", "IPERF2", "NETPERF"}

#: Where an engine is named on purpose, and why.
ALLOWED: dict[str, set[str]] = {
    # The registry's keys: the Engine enum's members and their values, the default engine,
    # and the names formats of the past stored (plan format 1, the window's old port list).
    "app/domain/plan.py": {"IPERF3", "NETPERF", "IPERF2", "Engine.IPERF3", "iperf3", "netperf"}
    | {"iperf2", "iperf3_port", "netperf_port"},
    # A latency method stored with runs ("netperf-rr"): a value of the database's.
    "app/engine/latency/probe_results.py": {"netperf-rr"},
}

#: Code that still names an engine outside its driver: to move into the drivers (none left;
#: a new entry needs its why, and the list only shrinks).
DEBT: dict[str, set[str]] = {}

#: Strings outside the drivers that name an engine as a word on purpose, counted per file, and
#: why. They are not sentences a person reads, so no driver's phrase stands in for them.
ALLOWED_PROSE: dict[str, int] = {
    # The first schema's peers table, with a port column per engine (iperf3_port,
    # netperf_port), and schema 6's migration: SQL that reads those columns into rows keyed by
    # the engine's name, then drops them. A migration replays what the database held then; it
    # must not follow the registry as it is now.
    "app/store/schema.py": 5,
}

#: Sentences that name an engine, per file (help and tooltips citing an engine's flags, the
#: engines' error sentences): to be built from the drivers (their phrases and labels, read
#: through app.engine.drivers.registry); none left, a new one fails.
PROSE_DEBT: dict[str, int] = {}


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _identifier(node: ast.AST) -> str | None:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return node.name
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.alias):
        return node.asname or node.name
    if isinstance(node, ast.ImportFrom):
        return node.module
    if isinstance(node, ast.arg):
        return node.arg
    if isinstance(node, ast.keyword):
        return node.arg
    return None


def engine_names(source: str) -> tuple[set[str], int]:
    """What code in source names an engine (strings that are one, Engine members,
    identifiers and imports), and how many of its sentences name one."""
    tree = ast.parse(source)
    docstrings = _docstrings(tree)
    named: set[str] = set()
    prose = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) in docstrings:
                continue
            if NAME.match(node.value) or JOINED.match(node.value):
                named.add(node.value)
            elif PROSE.search(node.value):
                prose += 1
            continue
        if (
            isinstance(node, ast.Attribute)
            and node.attr in MEMBERS
            and isinstance(node.value, ast.Name)
        ):
            named.add(f"{node.value.id}.{node.attr}")
            continue
        name = _identifier(node)
        if name and IDENTIFIER.search(name):
            named.add(name)
    return named, prose


def _outside_the_drivers() -> dict[str, tuple[set[str], int]]:
    found = {}
    for path in sorted(APP.rglob("*.py")):
        relative = path.relative_to(ROOT_DIR).as_posix()
        if OWN.match(relative):
            continue
        named, prose = engine_names(path.read_text(encoding="utf-8"))
        if named or prose:
            found[relative] = (named, prose)
    return found


def test_no_engine_is_named_in_code_outside_its_driver_and_the_registry() -> None:
    found = {path: named for path, (named, _) in _outside_the_drivers().items() if named}
    expected = {
        path: ALLOWED.get(path, set()) | DEBT.get(path, set()) for path in set(ALLOWED) | set(DEBT)
    }
    new = {path: sorted(names - expected.get(path, set())) for path, names in found.items()}
    assert not {path: names for path, names in new.items() if names}, (
        "ask the registry (app.engine.drivers.registry) or the driver instead of naming the engine"
    )
    gone = {path: sorted(names - found.get(path, set())) for path, names in expected.items()}
    assert not {path: names for path, names in gone.items() if names}, (
        "no longer named there: take it off ALLOWED/DEBT"
    )


def test_sentences_naming_an_engine_only_become_fewer() -> None:
    counts = Counter({path: prose for path, (_, prose) in _outside_the_drivers().items()})
    expected = Counter(ALLOWED_PROSE) + Counter(PROSE_DEBT)
    assert +counts == +expected, "build the sentence from the driver's phrases or label"


def test_the_check_sees_what_it_must() -> None:
    """The leftover-server bug this rule came from: a list of server programs by name."""
    named, prose = engine_names(
        '"""A docstring may say iperf3."""\n'
        'NAMES = frozenset({"iperf3", "netserver.exe"})  # a comment may too\n'
        "if driver.engine == Engine.IPERF2:\n"
        "    from app.engine.drivers.iperf2.driver import probe_iperf2\n"
        'WORDS = f"start netserver on port {port}"\n'
        'LABEL = f"start the {driver.server_label}"\n'
    )
    assert named == {
        "iperf3",
        "netserver.exe",
        "Engine.IPERF2",
        "app.engine.drivers.iperf2.driver",
    } | {"probe_iperf2"}
    assert prose == 1


def test_the_check_sees_a_name_joined_to_other_words() -> None:
    """A variable's name, a stored value or a path that holds an engine's name joined by `_`,
    `-`, `.` or `/` names it; so does a sentence that holds one; a longer word does not."""
    named, prose = engine_names(
        'password = env.variables["IPERF3_PASSWORD"]\n'
        'WORDS = {"netperf-rr": "round trips", "LINKLAB_NETSERVER": "", "bin/iperf": ""}\n'
        'SENTENCE = f"measured by netperf-rr, {count} runs"\n'
        'OTHER = ["iperfx", "netperfs", "udp-echo", "tcp_connect", "an iperfish word"]\n'
    )
    assert named == {"IPERF3_PASSWORD", "netperf-rr", "LINKLAB_NETSERVER", "bin/iperf"}
    assert prose == 1
