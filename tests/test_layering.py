"""House rules that can be checked mechanically: the layers contract (import-linter), no
import cycles, Qt only under app/ui, no shell anywhere, one module that starts processes, the
process's variables and streams read only at the entry point."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.conftest import ROOT_DIR

APP = ROOT_DIR / "app"
QT = {"PySide6", "pyqtgraph", "shiboken6"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_qt_only_under_app_ui() -> None:
    offenders = [
        str(p.relative_to(ROOT_DIR))
        for p in APP.rglob("*.py")
        if "ui" not in p.relative_to(APP).parts[:1] and _imports(p) & QT
    ]
    assert not offenders


def test_no_shell_in_app() -> None:
    offenders = []
    for path in APP.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.keyword) and node.arg == "shell":
                if not (isinstance(node.value, ast.Constant) and node.value.value is False):
                    offenders.append(f"{path.name}:{node.value.lineno}")
            if isinstance(node, ast.Attribute) and node.attr in {"system", "popen"}:
                if isinstance(node.value, ast.Name) and node.value.id == "os":
                    offenders.append(f"{path.name}:{node.lineno}")
    assert not offenders


def test_only_the_process_module_starts_processes() -> None:
    """Every child process, engines and short commands alike, starts in
    app/engine/process/process.py (an argv list, a resolved binary, a cancel path that ends its
    whole tree, reaped): no other module calls subprocess or os to start one."""
    starters = {"Popen", "run", "call", "check_call", "check_output", "getoutput"}
    spawners = {"system", "popen", "spawnv", "spawnl", "execv", "execvp", "startfile"}
    users = set()
    for path in APP.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                if (node.value.id, node.attr in starters) == ("subprocess", True) or (
                    node.value.id == "os" and node.attr in spawners
                ):
                    users.add(path.relative_to(ROOT_DIR).as_posix())
    assert users == {"app/engine/process/process.py"}


#: Where LinkLab may touch its process's variables and standard streams: the entry point
#: (`python -m app`, and the command line's Environment.from_process), the window, the child
#: processes' environment (an engine inherits the process's variables) and the engines'
#: watchdog (a process of its own, reading its pipe).
PROCESS_ENTRY = {
    Path("__main__.py"),
    Path("cli/environment.py"),
    Path("engine/process/process.py"),
    Path("engine/process/watchdog.py"),
}


def test_only_the_entry_point_reads_the_process() -> None:
    """Every command runs in an Environment (app/cli/environment.py): no other module reads
    os.environ or writes to sys.stdout or sys.stderr (a bare print() does), so that a command
    runs in-process exactly as in a process of its own."""
    offenders = []
    for path in APP.rglob("*.py"):
        relative = path.relative_to(APP)
        if relative.parts[0] == "ui" or relative in PROCESS_ENTRY:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            process = (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and (node.value.id, node.attr)
                in {("os", "environ"), ("os", "getenv"), ("os", "putenv"), ("sys", "stdin")}
                | {("sys", "stdout"), ("sys", "stderr")}
            )
            imported = isinstance(node, ast.ImportFrom) and any(
                (node.module, alias.name)
                in {("os", "environ"), ("os", "getenv")}
                | {("sys", "stdout"), ("sys", "stderr"), ("sys", "stdin")}
                for alias in node.names
            )
            printed = (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and (node.func.id == "input" or node.func.id == "print")
                and not any(keyword.arg == "file" for keyword in node.keywords)
            )
            if process or imported or printed:
                offenders.append(f"{relative}:{getattr(node, 'lineno', '?')}")
    assert not offenders


def test_modules_stay_small() -> None:
    big = {
        p.name: n
        for p in APP.rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 500
    }
    assert not big


#: The layer checks read the source, which is the same on every system; their tools are
#: development dependencies that the Windows test environment (make test-windows) leaves out.
CHECKED_ELSEWHERE = "reads the source, the same on every system: make test checks it on Linux"


def test_layers_contract() -> None:
    """cli > ui > report > study > analysis > store > engine > domain, and the parts inside
    layers (pyproject.toml): no module imports from a layer above its own; in the window, no
    screen imports another beyond the imports listed, and the shared pieces import no screen;
    each contract kept."""
    lint = Path(sys.executable).with_name("lint-imports")
    if sys.platform == "win32" and not lint.with_suffix(".exe").exists():
        pytest.skip(f"import-linter is not installed: the contract {CHECKED_ELSEWHERE}")
    done = subprocess.run([str(lint)], cwd=ROOT_DIR, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-3000:]
    contracts = tomllib.loads((ROOT_DIR / "pyproject.toml").read_text(encoding="utf-8"))
    count = len(contracts["tool"]["importlinter"]["contracts"])
    assert f"Contracts: {count} kept, 0 broken" in done.stdout, done.stdout[-3000:]


def _cycles(graph: dict[str, list[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in graph[node]:
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                other = stack.pop()
                on_stack.discard(other)
                component.append(other)
                if other == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycles() -> None:
    """Not even through imports inside functions or for type checking."""
    grimp = pytest.importorskip("grimp", reason=f"grimp is not installed: this {CHECKED_ELSEWHERE}")
    built = grimp.build_graph("app")
    graph = {m: sorted(built.find_modules_directly_imported_by(m)) for m in built.modules}
    assert _cycles(graph) == []
    assert _cycles({"a": ["b"], "b": ["c"], "c": ["a"], "d": []}) == [["a", "b", "c"]]
