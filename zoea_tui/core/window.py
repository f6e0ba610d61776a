"""The scan window, cut in steps so that requests stay byte-identical between cuts.

A window that slides by one message per request changes the first message after
the system prompt on every request, and a provider's prompt cache (which reuses
only an identical prefix) then reuses almost nothing. Here the window moves in steps
*below* its maximum, as seed 001's "last 20" asks: with ``maximum`` W and ``margin``
M, it holds every memory up to W, and past that it is cut back to ``W - M`` memories
(plus the one that arrived) and grows again to W, so it keeps between ``W - M + 1``
and W of the newest (``window_count``; M is at most W / 2). The cut sits on a grid of
the Mysis's own memory count (``Memory.seq``), so it is a pure function of the history:
the same memories give the same window, and between two cuts each request only appends.
"""

from __future__ import annotations

from collections.abc import Sequence

from .types import Memory


def kept_count(total: int, size: int, margin: int) -> int:
    """How many of the newest ``total`` memories a grid that grows from ``size`` to
    ``size + margin - 1`` and is then cut back to ``size`` keeps (turn paging's grid)."""
    size = max(size, 1)
    if total <= size:
        return total
    if margin <= 1:
        return size
    return size + (total - size) % margin


def window_margin(maximum: int, margin: int) -> int:
    """The step the window actually moves by: ``margin``, at least 1 and at most half the
    maximum (a window of 10 with the default margin of 10 is not cut back to nothing)."""
    return min(max(margin, 1), max(maximum // 2, 1))


def window_count(total: int, maximum: int, margin: int) -> int:
    """How many of the newest ``total`` memories the window keeps: all of them up to
    ``maximum``, then between ``maximum - margin + 1`` and ``maximum`` (never more)."""
    maximum = max(maximum, 1)
    return stepped_count(total, maximum, window_margin(maximum, margin))


def stepped_count(total: int, maximum: int, step: int) -> int:
    """How many of the newest ``total`` memories a window of at most ``maximum`` that is
    cut back by ``step`` (at least 1, less than ``maximum`` or 1) keeps: the grid of
    ``kept_count`` with its floor at ``maximum - step + 1``, grown to ``maximum`` and no
    further (the window, and turn paging with the step of its whole bound)."""
    return kept_count(total, maximum - step + 1, step)


def stepped_window(
    newest: Sequence[Memory], size: int, margin: int
) -> tuple[list[Memory], int | None]:
    """Cut ``newest`` (the Mysis's newest memories, oldest first, at least
    ``size + 1`` of them when it has that many) to the stepped window of at most
    ``size`` memories.

    Returns the window and the id of the memory just before it (None when the
    window starts at the Mysis's first memory). Memories without a running count
    (``seq`` 0, never stored) fall back to the plain window of ``size``.
    """
    if not newest:
        return [], None
    size = max(size, 1)
    last = newest[-1].seq
    if last <= 0 or any(m.seq <= 0 for m in newest[-size:]):
        window = list(newest[-size:])
        before = newest[-size - 1].id if len(newest) > size else None
        return window, before
    keep = window_count(last, size, margin)
    first_seq = last - keep + 1
    window = [m for m in newest if m.seq >= first_seq]
    earlier = [m for m in newest if m.seq < first_seq]
    before = earlier[-1].id if earlier else (None if first_seq <= 1 else -1)
    return window, before
