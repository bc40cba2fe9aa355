"""The streaming reader against the whole-document one on the same files, read in chunks of
every small size (so that each number, word, text and escape is cut somewhere by a chunk's
end), laid out in any white space: the same sessions, or the same sentence for a fault."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import app.study.files.json_text as json_text
from app.domain.errors import BadOption
from app.store.db import Database
from app.store.sessions import SessionStore
from app.study.files.exchange import exchange_from_data, export_sessions, read_exchange
from tests.study.test_exchange import _make_source


@pytest.fixture(scope="module")
def document(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    path = tmp_path_factory.mktemp("source") / "student.sqlite3"
    ids = _make_source(path)
    with Database(path, readonly=True) as db:
        data = export_sessions(SessionStore(db), ids)
    # Texts that cut badly: escapes, characters beyond the BMP (a surrogate pair escaped).
    data["sessions"][0]["name"] = 'Lab "1" \\ tab\there 😀 µ\n'
    data["sessions"][0]["runs"][0]["raw_output"] = "line\n" * 50 + "\u00e9\u4e2d😀" * 20
    return data


def _read(path: Path, chunk: int) -> object:
    old = json_text.CHUNK
    json_text.CHUNK = chunk
    try:
        return read_exchange(path)
    except BadOption as err:
        return err.sentence
    finally:
        json_text.CHUNK = old


@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 7, 11, 64, 4096])
@pytest.mark.parametrize("indent", [None, 0, 3])
def test_every_chunk_size_reads_the_same(
    document: dict[str, Any], tmp_path: Path, chunk: int, indent: int | None
) -> None:
    file = tmp_path / "in.linklab"
    text = json.dumps(document, indent=indent, ensure_ascii=indent != 3)
    file.write_text(text, encoding="utf-8")
    expected = exchange_from_data(json.loads(text), file.name)
    assert _read(file, chunk) == expected


@settings(max_examples=60, deadline=None)
@given(cut=st.integers(min_value=0, max_value=10_000), chunk=st.sampled_from([1, 3, 8, 4096]))
def test_a_file_cut_anywhere_is_refused_in_one_sentence(
    document: dict[str, Any], tmp_path_factory: pytest.TempPathFactory, cut: int, chunk: int
) -> None:
    text = json.dumps(document)
    file = tmp_path_factory.mktemp("cut") / "cut.linklab"
    file.write_text(text[: cut % len(text)], encoding="utf-8")
    said = _read(file, chunk)
    assert isinstance(said, str), "a cut file was read"
    assert "\n" not in said and said.endswith(".") and len(said) < 600
    assert "cut.linklab" in said or "The file holds" in said


@pytest.mark.parametrize("chunk", [1, 3, 4096])
def test_a_fault_is_placed_by_its_line_and_column_whatever_the_chunk(
    tmp_path: Path, chunk: int
) -> None:
    file = tmp_path / "bad.linklab"
    file.write_text('{"format": "linklab-sessions",\n  "format_version": 2 "x": 1}\n')
    said = _read(file, chunk)
    assert "Expecting ',' delimiter, line 2 column 23" in str(said), said
