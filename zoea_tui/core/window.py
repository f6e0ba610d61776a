"""The scan window, cut in steps so that requests stay byte-identical between cuts.

A window that slides by one message per request changes the first message after
the system prompt on every request, and a provider's prompt cache (which reuses
only an identical prefix) then reuses almost nothing. Here the window grows past
its size by a margin and is then cut back to its size in one step: with ``size``
W and ``margin`` M, a Mysis with N memories keeps the newest ``W + (N - W) % M``
of them (all of them while N < W). The cut sits on a grid of the Mysis's own
memory count (``Memory.seq``), so it is a pure function of the history: the same
memories give the same window, and between two cuts each request only appends.
"""

from __future__ import annotations

from collections.abc import Sequence

from .types import Memory


def kept_count(total: int, size: int, margin: int) -> int:
    """How many of the newest ``total`` memories the window keeps."""
    size = max(size, 1)
    if total <= size:
        return total
    if margin <= 1:
        return size
    return size + (total - size) % margin


def stepped_window(
    newest: Sequence[Memory], size: int, margin: int
) -> tuple[list[Memory], int | None]:
    """Cut ``newest`` (the Mysis's newest memories, oldest first, at least
    ``size + margin`` of them when it has that many) to the stepped window.

    Returns the window and the id of the memory just before it (None when the
    window starts at the Mysis's first memory). Memories without a running count
    (``seq`` 0, never stored) fall back to the plain window of ``size``.
    """
    if not newest:
        return [], None
    last = newest[-1].seq
    if last <= 0 or any(m.seq <= 0 for m in newest[-size:]):
        window = list(newest[-size:])
        before = newest[-size - 1].id if len(newest) > size else None
        return window, before
    keep = kept_count(last, size, margin)
    first_seq = last - keep + 1
    window = [m for m in newest if m.seq >= first_seq]
    earlier = [m for m in newest if m.seq < first_seq]
    before = earlier[-1].id if earlier else (None if first_seq <= 1 else -1)
    return window, before
