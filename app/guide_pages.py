"""The user guide's pages (docs/guide/*.md): where they are, their order, titles, links and
heading anchors, for the window's Help and for packaging."""

from __future__ import annotations

import re
from pathlib import Path

from app.resources import resource_dir

#: The guide's first page, which links to the others in reading order (GitHub shows it when
#: the folder is opened).
INDEX = "README.md"

_FENCE = re.compile(r"^```.*?^```", re.M | re.S)
_CODE_SPAN = re.compile(r"`[^`\n]*`")
#: [text](target) and ![alt](target); the text may hold one level of brackets.
_LINK = re.compile(r"\[(?:[^\[\]\n]|\[[^\[\]\n]*\])*\]\(([^()\s]+)(?:\s+\"[^\"]*\")?\)")
_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)


def docs_dir() -> Path:
    """docs/, beside resources/ in a checkout and in the bundle alike: the guide keeps its place
    beside the pictures it shows, so that its relative links hold in both."""
    return resource_dir().parent / "docs"


def guide_dir() -> Path:
    return docs_dir() / "guide"


def _prose(text: str) -> str:
    """The text without code blocks and code spans, where brackets are not links."""
    return _CODE_SPAN.sub("", _FENCE.sub("", text))


def links(text: str) -> list[str]:
    """Every relative link and image target of a Markdown page, as written (fragment kept)."""
    return [t for t in _LINK.findall(_prose(text)) if not _SCHEME.match(t)]


def title(path: Path) -> str:
    """The page's first level-1 heading, else its file name."""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return path.stem


def pages(folder: Path) -> list[Path]:
    """The guide's pages in reading order: the index, the pages it links to in the order it
    links them, then any other page by name (so that none is left out of the Help)."""
    index = folder / INDEX
    if not index.is_file():
        return sorted(folder.glob("*.md"))
    ordered = [index]
    for target in links(index.read_text(encoding="utf-8")):
        path = (folder / target.split("#", 1)[0]).resolve()
        if path.suffix == ".md" and path.parent == folder.resolve() and path.is_file():
            if path not in ordered:
                ordered.append(path)
    known = {p.resolve() for p in ordered}
    return ordered + [p for p in sorted(folder.glob("*.md")) if p.resolve() not in known]


def anchor(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as '-'."""
    words = _CODE_SPAN.sub(lambda m: m[0][1:-1], heading).lower()
    return re.sub(r"[^\w\- ]", "", words).replace(" ", "-")


def headings(text: str) -> list[str]:
    """The headings of a Markdown page (any level), outside code blocks."""
    return [m[1].strip() for m in re.finditer(r"^#{1,6} (.+)$", _FENCE.sub("", text), re.M)]


def anchors(text: str) -> list[str]:
    """The anchors of a page's headings, a repeated one numbered as GitHub does (-1, -2 …)."""
    seen: dict[str, int] = {}
    result = []
    for heading in headings(text):
        name = anchor(heading)
        count = seen.get(name, 0)
        seen[name] = count + 1
        result.append(name if count == 0 else f"{name}-{count}")
    return result


def shipped_files(root: Path) -> list[Path]:
    """What the installed program carries for the Help, relative to root (the checkout): the
    guide's pages and every file inside root that they link to or show."""
    folder = root / "docs" / "guide"
    found: set[Path] = set()
    for page in sorted(folder.glob("*.md")):
        found.add(page.relative_to(root))
        for target in links(page.read_text(encoding="utf-8")):
            path = (page.parent / target.split("#", 1)[0]).resolve()
            if path.is_file() and path.is_relative_to(root.resolve()):
                found.add(path.relative_to(root.resolve()))
    return sorted(found)
