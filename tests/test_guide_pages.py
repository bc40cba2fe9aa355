"""The user guide (docs/guide, also the window's Help) and the README: every relative link and
picture leads to a file that exists, every #section to a heading there, every page is reached."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from app import guide_pages

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "guide"
DOCUMENTS = [
    ROOT / "README.md",
    ROOT / "docs" / "DEVELOPING.md",
    *sorted(GUIDE.glob("*.md")),
]


@pytest.mark.parametrize("page", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_and_picture_resolves(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    broken = []
    for target in guide_pages.links(text):
        file, _, fragment = target.partition("#")
        path = (page.parent / file).resolve() if file else page
        if not path.is_file():
            broken.append(f"{target}: no such file")
        elif fragment and path.suffix == ".md":
            if fragment not in guide_pages.anchors(path.read_text(encoding="utf-8")):
                broken.append(f"{target}: no heading with that anchor in {path.name}")
    assert not broken, f"{page.relative_to(ROOT)}: {broken}"


def test_the_index_reaches_every_page_in_order() -> None:
    pages = guide_pages.pages(GUIDE)
    assert pages[0].name == guide_pages.INDEX
    index = guide_pages.links((GUIDE / guide_pages.INDEX).read_text(encoding="utf-8"))
    linked = {(GUIDE / t.partition("#")[0]).resolve() for t in index}
    left_out = [p.name for p in pages[1:] if p.resolve() not in linked]
    assert not left_out, f"pages the guide's index does not list: {left_out}"
    assert len(pages) == len(set(pages)) == len(list(GUIDE.glob("*.md")))


def test_the_readme_links_every_guide_page() -> None:
    readme = guide_pages.links((ROOT / "README.md").read_text(encoding="utf-8"))
    linked = {(ROOT / t.partition("#")[0]).resolve() for t in readme}
    pages = guide_pages.pages(GUIDE)[1:]
    assert [p.name for p in pages if p.resolve() not in linked] == []


def test_the_readme_is_short_with_the_two_commands_and_one_picture() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) < 120, "the README is what a newcomer reads in two minutes"
    assert "```\nmake run\nmake test\n```" in text
    assert sum(t.endswith(".png") for t in guide_pages.links(text)) == 1


def test_links_outside_code_only() -> None:
    text = (
        "See [Engines](engines.md#engines) and ![a picture](../screenshots/x.png).\n"
        "`[not](a-link.md)` and [web](https://example.org)\n"
        "```\n[nor](this.md)\n```\n"
        "[**bold** [nested]](page.md)\n"
    )
    assert guide_pages.links(text) == ["engines.md#engines", "../screenshots/x.png", "page.md"]


def test_anchors_as_github_makes_them() -> None:
    text = "# A class's hand-ins\n## Reliability: what gets in, what is kept\n## `linklab serve`\n"
    text += "## Tests\n### Tests\n```\n# not a heading\n```\n"
    assert guide_pages.anchors(text) == [
        "a-classs-hand-ins",
        "reliability-what-gets-in-what-is-kept",
        "linklab-serve",
        "tests",
        "tests-1",
    ]


def test_the_bundle_carries_the_pages_and_what_they_show() -> None:
    shipped = guide_pages.shipped_files(ROOT)
    assert {p.name for p in shipped if p.parent == Path("docs/guide")} == {
        p.name for p in GUIDE.glob("*.md")
    }
    pictures = [p for p in shipped if p.suffix == ".png"]
    assert pictures and all(p.parent == Path("docs/screenshots") for p in pictures)
    assert all((ROOT / p).is_file() for p in shipped)


def test_frozen_the_guide_is_inside_the_bundle(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    assert guide_pages.guide_dir() == tmp_path / "docs" / "guide"


def test_from_a_checkout_the_guide_is_docs_guide() -> None:
    assert guide_pages.guide_dir() == GUIDE
