"""Write the README's key table from the command table (``zoea_tui/ui/commands.py``).

    .venv/bin/python scripts/readme_keys.py   # or: make readme-keys

A test (tests/docs/test_doc_figures.py) fails while the README's table differs.
"""

from __future__ import annotations

from pathlib import Path

from zoea_tui.ui.commands import with_key_table

README = Path(__file__).resolve().parents[1] / "README.md"


def main() -> None:
    """Rewrite README.md's key table in place; say whether it changed."""
    old = README.read_text(encoding="utf-8")
    new = with_key_table(old)
    if new != old:
        README.write_text(new, encoding="utf-8")
    print(f"{README.name}: key table {'rewritten' if new != old else 'already current'}")


if __name__ == "__main__":
    main()
