"""Every place the command center reaches inside Textual or Rich, and the switch to turn it off.

The rest of ``zoea_tui.ui`` uses Textual's public API only; ``tests/ui/test_textual_privates.py``
fails when a private name of Textual or Rich (a ``textual._*`` module, an ``_attribute`` of
a Textual object, an override of a private method) is used outside this folder.

Each override here bought a measured figure (``bench/ui.py``, both ways, in
``bench/results/ui.json``; ``docs/TEXTUAL_COMPAT.md`` has the table) and was checked on the
Textual versions in :data:`CHECKED_TEXTUAL`:

- :mod:`.strips` (Strip without reference cycles, caches made when used): the collector's
  pauses inside frames (10-26 ms young generation, up to 140 ms older).
- :mod:`.driver` (an input loop that wakes when a lone Escape is due): Escape 100 ms sooner.
- :mod:`.edged_rows` (a ``StylesCache`` that works a bordered widget's edges out once per
  paint): about 10 ms of a 20 ms focus-view frame.
- :mod:`.screens` (kept styles for a screen shown again, no painting under an opaque screen,
  screens built and laid out unseen): 12-20 ms restyle and a second frame per open.
- :mod:`.views` (virtual size without a layout, steady scrollbars, line filters run once
  per kept row): 40-60 ms layouts per new text.
- :mod:`.frame_marks` (the benchmark's marks; off unless ``ZOEA_FRAME_MARKS`` is set): reads
  Textual's repaint flags to say when a key's effect is painted. Instrumentation, not an
  override: it runs both ways, so the benchmark can measure stock Textual too.

With ``ZOEA_STOCK_TEXTUAL=1`` in the environment (read once, at import) every override is
off: no monkeypatch, Textual's own driver, styles cache, scrollbars, screen handling and
line filters; each override has a stock fallback with the same public behaviour, only
slower. The start-time check (:func:`version_refusal`) then lets any Textual run.
"""

from __future__ import annotations

import os
from importlib.metadata import version

#: The environment switch: set (to anything but ``0`` or nothing) to run on stock Textual.
ENV = "ZOEA_STOCK_TEXTUAL"
#: True when every override is off (read once, when this module is first imported).
STOCK: bool = os.environ.get(ENV, "") not in ("", "0")
#: The Textual versions every override here was checked on (the pin in pyproject.toml).
CHECKED_TEXTUAL: tuple[str, ...] = ("8.2.8",)


def version_refusal(installed: str | None = None) -> str | None:
    """One line refusing to start on a Textual the overrides were not checked on, or None
    (a checked version, or the switch on)."""
    installed = installed if installed is not None else version("textual")
    if STOCK or installed in CHECKED_TEXTUAL:
        return None
    return (
        f"zoea: Textual {installed} is not one the UI's overrides were checked on "
        f"({', '.join(CHECKED_TEXTUAL)}); run with {ENV}=1 to use it as it is"
    )


def install() -> None:
    """Install the process-wide overrides (once; later calls change nothing); none when
    :data:`STOCK`."""
    if STOCK:
        return
    from . import strips

    strips.install()
