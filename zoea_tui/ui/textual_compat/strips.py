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
exactly; ``tests/ui/textual_compat/test_strip_cycles.py`` fails if a new Textual brings a cycle back
or changes what these methods return.

:func:`install` also makes a strip's seven caches when each is first used, not when the
strip is made: most strips are cut, styled or filtered one way or not at all, and the
empty caches were half of all the objects a frame left for the collector (about 20 000 of
35 000 young objects, in a youngest generation that then took 18-23 ms to go through).

Buys (``bench/results/ui_ways.json``, switch name ``strips``): opening the focus view 36 ms
of the app's CPU (median) against 58 without it, stepping in it 28 against 37; the loop's
longest stall 308 ms against 828 on a loaded machine. Checked on Textual 8.2.8.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from rich.style import Style
from textual.cache import FIFOCache
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


#: Each cache of a strip and its size, as ``Strip.__init__`` makes them.
CACHES = {
    "_divide_cache": 4,
    "_crop_cache": 16,
    "_style_cache": 16,
    "_filter_cache": 4,
    "_line_length_cache": 4,
    "_crop_extend_cache": 4,
    "_offsets_cache": 4,
}
_init = Strip.__init__


class MadeWhenUsed:
    """A slot of :class:`Strip` that holds a cache, made when first read."""

    __slots__ = ("size", "slot")

    def __init__(self, slot: Any, size: int) -> None:
        self.slot = slot
        self.size = size

    def __get__(self, strip: Strip | None, owner: type[Strip]) -> Any:
        if strip is None:
            return self
        try:
            return self.slot.__get__(strip, owner)
        except AttributeError:  # not made yet
            cache: FIFOCache[Any, Any] = FIFOCache(self.size)
            self.slot.__set__(strip, cache)
            return cache

    def __set__(self, strip: Strip, value: Any) -> None:
        self.slot.__set__(strip, value)


def _init_without_caches(
    self: Strip, segments: Iterable[Any], cell_length: int | None = None
) -> None:
    """``Strip.__init__`` but for the caches, made when first used."""
    self._segments = list(segments)
    self._cell_length = cell_length
    self._render_cache = None
    self._link_ids = None
    self._cell_count = None


def install() -> None:
    """Patch :class:`~textual.strip.Strip` (once; later calls change nothing)."""
    Strip.divide = _divide_without_cycle  # type: ignore[method-assign]
    Strip.crop_extend = _crop_extend_without_cycle  # type: ignore[method-assign]
    for name, size in CACHES.items():
        slot = Strip.__dict__[name]
        if not isinstance(slot, MadeWhenUsed):
            setattr(Strip, name, MadeWhenUsed(slot, size))
    Strip.__init__ = _init_without_caches  # type: ignore[method-assign]
