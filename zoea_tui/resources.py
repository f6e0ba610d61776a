"""Where the files that ship with the package live (stylesheets, SQL)."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    """The folder ``name`` (``store`` or ``styles``).

    A wheel carries it inside the package (``zoea_tui/_data``); a source
    checkout has it at the repository root.
    """
    for candidate in (_PACKAGE / "_data" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"the {name!r} folder is missing from this installation")
