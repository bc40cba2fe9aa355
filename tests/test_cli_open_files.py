"""`linklab FILE...` (how a desktop opens a .linklab file) opens the window with those files;
commands, options and mistyped names still go to argparse."""

from __future__ import annotations

from pathlib import Path

import pytest

import app.ui.app
from app import __version__
from app.cli import build_parser, files_to_open, main
from app.domain.plan import Peer, Plan
from app.domain.records import SessionStatus
from app.store.db import Database
from app.store.sessions import SessionStore


@pytest.fixture(autouse=True)
def _keep_signals(monkeypatch: pytest.MonkeyPatch) -> None:
    """main() turns SIGTERM into an exit; not in the test process."""
    monkeypatch.setattr("app.cli.install_exit_handlers", lambda: None)


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[list[Path]]:
    """Records what the window would have been opened with, instead of opening it."""
    calls: list[list[Path]] = []

    def fake_run_app(argv: list[str] | None = None, open_files: list[Path] | None = None) -> int:
        calls.append(list(open_files or []))
        return 0

    monkeypatch.setattr(app.ui.app, "run_app", fake_run_app)
    return calls


def test_existing_files_open_the_window_with_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, opened: list[list[Path]]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "lab2-group4.linklab").write_text("{}", encoding="utf-8")
    (tmp_path / "older.json").write_text("{}", encoding="utf-8")
    assert main(["lab2-group4.linklab", str(tmp_path / "older.json")]) == 0
    assert opened == [[tmp_path / "lab2-group4.linklab", tmp_path / "older.json"]]
    assert all(p.is_absolute() for p in opened[0])


def test_any_file_name_is_handed_on(tmp_path: Path) -> None:
    plain = tmp_path / "handed-in"  # no ending: the content decides on import
    plain.write_text("{}", encoding="utf-8")
    assert files_to_open(build_parser(), [str(plain)]) == [plain]


def test_no_arguments_open_an_empty_window(opened: list[list[Path]]) -> None:
    assert main([]) == 0
    assert opened == [[]]


@pytest.mark.parametrize("name", ["missing.linklab", "folder/missing.json"])
def test_missing_file_is_an_argparse_error_and_opens_nothing(
    name: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    opened: list[list[Path]],
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as caught:
        main([name])
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: linklab")
    assert f"linklab: error: cannot open {Path(name)}: there is no such file" in err
    assert opened == []


def test_one_missing_among_existing_opens_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], opened: list[list[Path]]
) -> None:
    good = tmp_path / "good.linklab"
    good.write_text("{}", encoding="utf-8")
    with pytest.raises(SystemExit):
        main([str(good), str(tmp_path / "gone.linklab")])
    assert "gone.linklab: there is no such file" in capsys.readouterr().err
    assert opened == []


def test_folder_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], opened: list[list[Path]]
) -> None:
    with pytest.raises(SystemExit):
        main([str(tmp_path)])
    assert "it is a folder, not a file" in capsys.readouterr().err
    assert opened == []


def test_mistyped_command_still_lists_the_commands(
    capsys: pytest.CaptureFixture[str], opened: list[list[Path]]
) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["sesions"])
    assert caught.value.code == 2
    assert "invalid choice: 'sesions'" in capsys.readouterr().err
    assert opened == []


def test_commands_win_over_files_of_the_same_name(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    opened: list[list[Path]],
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sessions").write_text("{}", encoding="utf-8")
    assert main(["sessions", "--db", str(tmp_path / "none.sqlite3")]) == 0
    assert "No sessions yet" in capsys.readouterr().out
    assert opened == []


def test_version_and_help_unchanged(
    capsys: pytest.CaptureFixture[str], opened: list[list[Path]]
) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["--version"])
    assert caught.value.code == 0
    assert capsys.readouterr().out.strip() == f"LinkLab {__version__}"
    with pytest.raises(SystemExit) as caught:
        main(["--help"])
    assert caught.value.code == 0
    assert "COMMAND" in capsys.readouterr().out
    assert opened == []


def test_export_keeps_a_name_without_ending_and_help_names_linklab(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for command in ("export", "import"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        assert ".linklab" in capsys.readouterr().out
    source, target = tmp_path / "source.sqlite3", tmp_path / "target.sqlite3"
    with Database(source) as db:
        store = SessionStore(db)
        sid = store.create_session(Plan(peer=Peer("127.0.0.1"), values=(128,), name="Handed in"))
        store.finish(sid, SessionStatus.STOPPED, "stopped early")
    out = tmp_path / "handin"  # a script's own name, no ending
    assert main(["export", sid, "--format", "json", "--out", str(out), "--db", str(source)]) == 0
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("handin")] == ["handin"]
    assert main(["import", str(out), "--db", str(target)]) == 0
    assert "Imported 1 session" in capsys.readouterr().out
