"""Every place the command center reaches inside Textual or Rich, and the switch to turn it off.

The rest of ``zoea_tui.ui`` uses Textual's public API only; ``tests/ui/test_textual_privates.py``
fails when a private name of Textual or Rich (a ``textual._*`` module, an ``_attribute`` of
a Textual object, an override of a private method) is used outside this folder.

Each override here bought a measured figure (``bench/ui.py`` measures every key with all
of them on, with all off, and with each one off alone: ``bench/results/ui.json``;
``docs/TEXTUAL_COMPAT.md`` has the table) and was checked on the Textual versions in
:data:`CHECKED_TEXTUAL`. By the name the switch knows it by:

- ``strips`` (:mod:`.strips`: Strip without reference cycles, caches made when used): the
  collector's pauses inside frames (10-26 ms young generation, up to 140 ms older).
- ``driver`` (:mod:`.driver`: an input loop that wakes when a lone Escape is due): Escape
  up to 100 ms sooner.
- ``screens`` (:mod:`.screens`: kept styles for a screen shown again, no painting under an
  opaque screen): 12-20 ms of restyle and a second frame per open.
- ``prebuild`` (:mod:`.screens`: the focus view and search built and laid out unseen):
  50-60 ms on their first open.
- ``views`` (:mod:`.views`: a virtual size without a layout, steady scrollbars, line
  filters run once per kept row): a 40-60 ms layout per new text.

:mod:`.frame_marks` (the benchmark's marks; off unless ``ZOEA_FRAME_MARKS`` is set) reads
Textual's repaint flags to say when a key's effect is painted, and :mod:`.testing` holds the
tests' spies: instrumentation, not overrides, so they work both ways.

With ``ZOEA_STOCK_TEXTUAL=1`` in the environment (read once, at import) every override is
off: no monkeypatch, Textual's own driver, scrollbars, screen handling and
line filters; each override has a stock fallback with the same public behaviour, only
slower. The start-time check (:func:`version_refusal`) then lets any Textual run.
"""

from __future__ import annotations

import os
from importlib.metadata import version

#: The environment switch: ``1`` runs on stock Textual (every override off); a comma list
#: of names from :data:`OVERRIDES` turns only those off (``bench/ui.py`` measures each so).
ENV = "ZOEA_STOCK_TEXTUAL"
#: The overrides, by the name the switch knows them by.
OVERRIDES: tuple[str, ...] = ("strips", "driver", "screens", "prebuild", "views")
#: The Textual versions every override here was checked on (the pin in pyproject.toml).
CHECKED_TEXTUAL: tuple[str, ...] = ("8.2.8",)


def overrides_off(value: str) -> frozenset[str]:
    """The overrides a value of the switch turns off (unknown names are refused)."""
    value = value.strip()
    if value in ("", "0"):
        return frozenset()
    if value in ("1", "all"):
        return frozenset(OVERRIDES)
    names = frozenset(name.strip() for name in value.split(",") if name.strip())
    if unknown := names - set(OVERRIDES):
        raise ValueError(f"{ENV}: no override named {', '.join(sorted(unknown))}")
    return names


#: The overrides turned off (read once, when this module is first imported).
OFF: frozenset[str] = overrides_off(os.environ.get(ENV, ""))
#: True when every override is off: the app runs on stock Textual.
ALL_STOCK: bool = frozenset(OVERRIDES) == OFF


def enabled(name: str) -> bool:
    """Whether override ``name`` (one of :data:`OVERRIDES`) is on."""
    return name not in OFF


def version_refusal(installed: str | None = None) -> str | None:
    """One line refusing to start on a Textual the overrides were not checked on, or None
    (a checked version, or the switch on)."""
    installed = installed if installed is not None else version("textual")
    if ALL_STOCK or installed in CHECKED_TEXTUAL:
        return None
    return (
        f"zoea: Textual {installed} is not one the UI's overrides were checked on "
        f"({', '.join(CHECKED_TEXTUAL)}); run with {ENV}=1 to use it as it is"
    )


def install() -> None:
    """Install the process-wide overrides (once; later calls change nothing); none when
    ``strips`` is off."""
    if not enabled("strips"):
        return
    from . import strips

    strips.install()
