"""Textual's strips, patched (zoea_tui/ui/textual_compat/strips.py): no cycle, the same results."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from zoea_tui.ui.textual_compat import strips as strip_cycles

#: Tests of an override: deselected with ZOEA_STOCK_TEXTUAL=1, which turns it off.
pytestmark = pytest.mark.overrides


def _cyclic_garbage_of(make: object) -> int:
    """Objects only the collector could free after 200 uses of ``make``."""
    assert callable(make)
    gc.collect()
    gc.disable()
    try:
        for _ in range(200):
            make()
        return gc.collect()
    finally:
        gc.enable()


def _row() -> Strip:
    return Strip([Segment("ab", Style(bold=True)), Segment("cdef")], 6)


@pytest.fixture
def unpatched() -> Iterator[None]:
    patched = Strip.divide, Strip.crop_extend
    Strip.divide, Strip.crop_extend = strip_cycles._divide, strip_cycles._crop_extend  # type: ignore[method-assign]
    yield
    Strip.divide, Strip.crop_extend = patched  # type: ignore[method-assign]


def test_textual_alone_leaves_a_cycle_per_row_cut_at_its_end(unpatched: None) -> None:
    # The oracle can fail: Textual's own methods make the garbage the patch removes.
    assert _cyclic_garbage_of(lambda: _row().divide([6])) >= 200
    assert _cyclic_garbage_of(lambda: _row().crop_extend(0, 6, None)) >= 200


def test_patched_strips_are_freed_without_the_collector() -> None:
    strip_cycles.install()
    assert _cyclic_garbage_of(lambda: _row().divide([6, 9])) == 0
    assert _cyclic_garbage_of(lambda: _row().crop_extend(0, 6, None)) == 0


def test_patched_strips_cut_and_pad_as_textual_does() -> None:
    strip_cycles.install()
    row = _row()
    assert row.divide([6]) == [row] and row.divide([6])[0] is row
    assert [s.text for s in row.divide([2, 6])] == ["ab", "cdef"]
    assert row.divide([2, 6]) is row.divide([2, 6])  # still cached
    assert row.crop_extend(0, 6, None) is row
    assert row.crop_extend(1, 8, None).text == "bcdef  "
    assert row.crop_extend(0, 3, None).text == "abc"


def test_a_strip_makes_each_cache_when_first_used_at_textuals_size() -> None:
    strip_cycles.install()
    row = _row()
    slots = {name: Strip.__dict__[name].slot for name in strip_cycles.CACHES}
    for slot in slots.values():
        with pytest.raises(AttributeError):
            slot.__get__(row, Strip)  # not made
    assert row.crop(0, 2).text == "ab" and row.crop(0, 2) is row.crop(0, 2)  # cached
    assert slots["_crop_cache"].__get__(row, Strip) is row._crop_cache
    # Textual's own __init__ (saved before the patch) makes caches of these sizes.
    made = Strip.__new__(Strip)
    strip_cycles._init(made, [])
    assert {name: getattr(made, name)._maxsize for name in slots} == strip_cycles.CACHES


def _objects_for_the_collector(count: int) -> int:
    """Objects the collector tracks for ``count`` strips kept alive."""
    gc.collect()
    before = len(gc.get_objects())
    kept = [_row() for _ in range(count)]
    tracked = len(gc.get_objects()) - before
    del kept
    return tracked


def test_a_strip_leaves_the_collector_its_segments_not_seven_empty_caches() -> None:
    strip_cycles.install()
    assert _objects_for_the_collector(1000) <= 5 * 1000 + 10  # strip, list, 2 segments, style
    init, Strip.__init__ = Strip.__init__, strip_cycles._init  # type: ignore[method-assign]
    try:
        # The oracle can fail: Textual's own strips carry their caches from the start.
        assert _objects_for_the_collector(1000) >= 12 * 1000  # and seven caches
    finally:
        Strip.__init__ = init  # type: ignore[method-assign]
