"""Textual's strips without reference cycles, so a strip no longer shown is freed at once.

``Strip.divide`` and ``Strip.crop_extend`` cache their result on the strip, and when
the result is the strip itself (a row cut at its own end, as the compositor cuts nearly
every row of every frame; a crop that changes nothing) the cache holds the strip: a
cycle of a dozen objects (the strip, its seven caches and their dicts) that only the
garbage collector frees. Every frame made thousands of them, so the collector's
youngest generation ran every second or so for 10-26 ms, and an older one for up to
140 ms, inside frames and key presses (measured in ``bench/ui.py``'s app at 200x60).

:func:`install` makes both return the strip itself without caching it (the check is
as cheap as the lookup); every other result is cached as before. Textual is pinned
exactly; ``tests/ui/test_strip_cycles.py`` fails if a new Textual brings a cycle back
or changes what these methods return.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.style import Style
from textual.strip import Strip

_divide = Strip.divide
_crop_extend = Strip.crop_extend


def _divide_without_cycle(self: Strip, cuts: Iterable[int]) -> Sequence[Strip]:
    cell_length = self.cell_length
    cuts = [cut for cut in cuts if cut <= cell_length]
    if cuts == [cell_length]:
        return [self]
    return _divide(self, cuts)


def _crop_extend_without_cycle(
    self: Strip, start: int, end: int, style: Style | None = None
) -> Strip:
    if start == 0 and end == self.cell_length:
        return self
    return _crop_extend(self, start, end, style)


def install() -> None:
    """Patch :class:`~textual.strip.Strip` (once; later calls change nothing)."""
    Strip.divide = _divide_without_cycle  # type: ignore[method-assign]
    Strip.crop_extend = _crop_extend_without_cycle  # type: ignore[method-assign]
