"""Offscreen Qt on Windows is pointed at Windows' fonts folder, and at nothing elsewhere."""

from __future__ import annotations

from pathlib import Path

from app.ui.qt_fonts import point_offscreen_at_fonts


def _windows(tmp_path: Path, fonts: bool) -> Path:
    folder = tmp_path / "Windows" / "Fonts"
    folder.mkdir(parents=True)
    if fonts:
        (folder / "segoeui.ttf").write_bytes(b"\0")
    return tmp_path / "Windows"


def test_offscreen_on_windows_gets_the_fonts_folder(tmp_path: Path) -> None:
    windir = _windows(tmp_path, fonts=True)
    env = {"QT_QPA_PLATFORM": "offscreen", "WINDIR": str(windir)}
    assert point_offscreen_at_fonts(env, "win32") == str(windir / "Fonts")
    assert env["QT_QPA_FONTDIR"] == str(windir / "Fonts")


def test_a_chosen_folder_another_platform_or_no_fonts_is_left_alone(tmp_path: Path) -> None:
    windir = _windows(tmp_path, fonts=False)
    chosen = {"QT_QPA_PLATFORM": "offscreen", "QT_QPA_FONTDIR": "X:/fonts", "WINDIR": "C:/W"}
    assert point_offscreen_at_fonts(chosen, "win32") is None
    assert chosen["QT_QPA_FONTDIR"] == "X:/fonts"
    for env, platform in (
        ({"QT_QPA_PLATFORM": "offscreen", "WINDIR": str(windir)}, "win32"),  # no fonts there
        ({"WINDIR": str(windir)}, "win32"),  # the windows platform asks Windows itself
        ({"QT_QPA_PLATFORM": "offscreen"}, "linux"),
    ):
        assert point_offscreen_at_fonts(env, platform) is None
        assert "QT_QPA_FONTDIR" not in env
