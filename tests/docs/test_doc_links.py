"""Every relative link and every file path the README and docs/ cite exists.

A link is checked to its file and, when it names one, to a heading of that file (the
anchor as GitHub makes it); a path is any inline code or bare word shaped like
``folder/file.ext`` or ``folder/``, looked up from the repository's root, from the
package or a subpackage of it (``core/compose.py``, ``screens/base.py``) and from the
document's own folder. What only exists elsewhere (an SMBench checkout, a file the app
writes in its data folder, a URL, a path under ``~``) is not taken for a path here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "zoea_tui"

#: The documents a newcomer reads.
DOCUMENTS = (
    ROOT / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
    ROOT / "screenshots" / "README.md",
)

_FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
_CODE = re.compile(r"`([^`\n]+)`")
#: The kinds of file this repository holds (``src/api.ts`` or ``server-context.cpp`` are
#: other projects' files, cited as such).
_KINDS = r"(?:py|md|toml|sql|sh|json|jsonl|tcss|svg|png|txt|cfg|ya?ml)"
#: A path: words joined by slashes, ending in a file of ours or a folder's slash.
_PATH = re.compile(rf"^[\w.-]+(?:/[\w.*-]+)+(?:\.{_KINDS}|/)$")
_BARE = re.compile(rf"(?<![\w./:~`-])((?:[\w-]+/)+[\w-]+\.{_KINDS})\b")
#: A diff's file header (``--- a/src/textual/strip.py``): another tree's paths.
_DIFF_HEADER = re.compile(r"^>?\s*(?:---|\+\+\+) .*$", re.MULTILINE)
_HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$", re.MULTILINE)


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, code marks and punctuation dropped,
    spaces as hyphens."""
    text = heading.strip().lower().replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(markdown: str) -> set[str]:
    """The anchors of a document's headings (outside code blocks)."""
    return {slug(h) for h in _HEADING.findall(_FENCE.sub("", markdown))}


def cited_paths(markdown: str) -> list[str]:
    """The file paths a document cites: inline code that is a path, and bare paths in its
    prose (code blocks are commands and their output, not citations)."""
    prose = _DIFF_HEADER.sub("", _FENCE.sub("", markdown))
    found = [code for code in _CODE.findall(prose) if _PATH.match(code)]
    found += _BARE.findall(_LINK.sub("", _CODE.sub("", prose)))
    return found


def path_exists(cited: str, document: Path) -> bool:
    """Whether a cited path (globs allowed) names something in the repository."""
    if any((base / cited).exists() or any(base.glob(cited)) for base in (ROOT, document.parent)):
        return True
    # From the package or one of its subpackages (``screens/base.py`` in ``zoea_tui/ui``).
    return any(PACKAGE.glob(cited)) or any(PACKAGE.rglob(cited))


def broken(document: Path, markdown: str) -> list[str]:
    """Each relative link, link anchor and cited path of ``markdown`` (the text of
    ``document``) that does not resolve, as ``"link X"``, ``"anchor X"``, ``"path X"``."""
    problems = []
    for target in _LINK.findall(_FENCE.sub("", markdown)):
        if re.match(r"^[a-z]+:", target):
            continue  # https:, mailto:
        file_part, _, anchor = target.partition("#")
        linked = (document.parent / file_part).resolve() if file_part else document
        if not linked.exists():
            problems.append(f"link {target}")
        elif anchor and anchor not in anchors(linked.read_text(encoding="utf-8")):
            problems.append(f"anchor {target}")
    problems += [f"path {p}" for p in cited_paths(markdown) if not path_exists(p, document)]
    return problems


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_and_cited_path_of_the_docs_resolves(document: Path) -> None:
    assert broken(document, document.read_text(encoding="utf-8")) == []


def test_the_check_rejects_a_made_up_link_anchor_and_path() -> None:
    readme = ROOT / "README.md"
    made_up = (
        "See [the guide](docs/GUIDE.md), [its part](docs/CLI.md#no-such-part), "
        "[the CLI](docs/CLI.md), the code in `core/no_such_module.py` and in "
        "zoea_tui/ui/nowhere.py, and the real `core/compose.py`.\n"
        "```\nzoea probe nothing/in/a/code/block.py\n```\n"
    )
    assert broken(readme, made_up) == [
        "link docs/GUIDE.md",
        "anchor docs/CLI.md#no-such-part",
        "path core/no_such_module.py",
        "path zoea_tui/ui/nowhere.py",
    ]


def test_slugs_are_githubs() -> None:
    assert slug("SpaceMolt's own client and SMBench, offline") == (
        "spacemolts-own-client-and-smbench-offline"
    )
    assert slug("What `load_history` reads") == "what-load_history-reads"
