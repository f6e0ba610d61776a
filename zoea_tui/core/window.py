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


def paged_count(total: int, size: int, margin: int) -> int:
    """How many of a paged turn's newest ``total`` memories turn paging keeps.

    The page grows to ``size + margin - 1`` memories, as the window does, but a step
    cuts it back deeper, to ``max(size - margin, ceil(size / 2))`` (``size`` when the
    margin is 1): a step rewrites everything after the turn's opening, so on a prompt
    cache it costs the whole kept page again, and a deeper cut both costs fewer tokens
    and comes half as often (with the defaults, 10 to 29 memories: a step every ten
    requests of a tool loop instead of five). A pure function of ``total`` like
    :func:`kept_count`: between steps each request only appends.
    """
    size, margin = max(size, 1), max(margin, 1)
    ceiling = size + margin - 1
    if total <= ceiling:
        return total
    low = size if margin <= 1 else min(size, max(size - margin, (size + 1) // 2))
    return low + (total - low) % (ceiling - low + 1)


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
