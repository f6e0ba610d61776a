"""What a screen of the real app must never show, read from its text (``capture-pane``).

Pure functions of the screen's text, so each can be shown a bad screen in a unit test
(``test_screen_oracles.py``) and seen to reject it:

- :func:`error_lines`: a line with an error mark (``✖``, beyond the status bar's
  "``✖ 0`` errored"), "unexpected" or a Traceback;
- :func:`mid_word_cuts`: a word cut by a wrap ("P|ausing"): a line of a region ending in
  letters at the region's right edge whose next line starts with letters, the two
  joining into a known word that is not two known words;
- :func:`figure_disagreements`: two views of one request's tokens on one screen that do
  not say the same figure (a pane's context meter and the NEXT/LAST REQUEST panel, the
  focus header and its context preview, a row of the request list and the request opened
  beside it).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from rich.cells import get_character_cell_size

from zoea_tui.ui.formatting import compact
from zoea_tui.ui.screens.inspector import IN_FLIGHT

#: Characters that draw a region's border: the text between two of them on a line is
#: one region's line.
BORDERS = frozenset("│║┃█")
#: A scrollbar's glyphs at a region's right edge (not text).
_SCROLLBAR = frozenset("▁▂▃▄▅▆▇▐▌")
#: Cells a region may leave blank right of a line that a wrap filled (its padding).
EDGE_SLACK = 3
_WORD = re.compile(r"[A-Za-z]+")
_LAST_WORD = re.compile(r"[A-Za-z]+$")
_FIRST_WORD = re.compile(r"^[A-Za-z]+")
#: The status bar's count of errored Myses when there is none.
_NO_ERRORED = re.compile(r"✖ 0(?= |$)")
_ERROR_MARKS = (re.compile(r"✖"), re.compile(r"unexpected", re.I), re.compile(r"Traceback"))


def words(text: str) -> set[str]:
    """The lowercase words (runs of ASCII letters) of ``text``: a vocabulary's entries."""
    return {w.lower() for w in _WORD.findall(text)}


def error_lines(screen: str) -> list[str]:
    """The lines of ``screen`` that show an error."""
    found = []
    for line in screen.splitlines():
        plain = _NO_ERRORED.sub("", line)
        if any(mark.search(plain) for mark in _ERROR_MARKS):
            found.append(line.rstrip())
    return found


def cells(line: str) -> list[str]:
    """``line`` one entry a terminal cell (a wide character, then an empty entry)."""
    out: list[str] = []
    for char in line:
        out.append(char)
        out.extend([""] * (get_character_cell_size(char) - 1))
    return out


@dataclass(frozen=True, slots=True)
class Segment:
    """The text of one region on one line, between two borders (or the screen's edges)."""

    start: int
    end: int
    text: str


def segments(line: str) -> list[Segment]:
    """The regions' pieces of a line, by the cells their text occupies."""
    row = cells(line)
    out: list[Segment] = []
    start = 0
    for col, char in enumerate([*row, "│"]):
        if char in BORDERS:
            if col > start:
                out.append(Segment(start, col, "".join(row[start:col])))
            start = col + 1
    return out


def mid_word_cuts(screen: str, known: Callable[[str], bool]) -> list[str]:
    """Words cut by a wrap, as ``"Cre|dits"`` with the two lines they were read from.

    ``known(word)`` says whether a lowercase word is one the app may print (the stored
    texts' words and the app's own). A line's last word counts as cut only when it
    reaches its region's right edge (a wrap filled the line) and joins the next line's
    first word into a known word that is not already two known words ("in|to" is
    two words, "Cre|dits" is one cut).
    """
    lines = screen.splitlines()
    found = []
    for upper, lower in itertools.pairwise(lines):
        below = {(s.start, s.end): s.text for s in segments(lower)}
        for seg in segments(upper):
            nxt = below.get((seg.start, seg.end))
            if nxt is None:
                continue
            text = "".join(" " if c in _SCROLLBAR else c for c in seg.text)
            body = text.rstrip()
            if len(text) - len(body) > EDGE_SLACK:
                continue
            head = _LAST_WORD.search(body)
            tail = _FIRST_WORD.match(nxt.lstrip())
            if head is None or tail is None:
                continue
            a, b = head.group(), tail.group()
            joined = (a + b).lower()
            if known(joined) and not (known(a.lower()) and known(b.lower())):
                found.append(f"{a}|{b}: {upper.rstrip()!r} / {lower.rstrip()!r}")
    return found


def _column(lines: list[str], row: int, start: int, end: int, count: int) -> str:
    """The text of cells ``start``..``end`` of ``count`` lines from ``row``, joined."""
    return " ".join("".join(cells(line)[start:end]).strip() for line in lines[row : row + count])


def _titled(
    lines: list[str], title: re.Pattern[str]
) -> Iterable[tuple[int, Segment, re.Match[str]]]:
    """Each region piece (with its line) whose text matches ``title``."""
    for row, line in enumerate(lines):
        for seg in segments(line):
            found = title.search(seg.text)
            if found:
                yield row, seg, found


_PANEL = re.compile(r"(NEXT REQUEST|LAST REQUEST SENT) · (\S+)")
_PREVIEW = re.compile(r"CONTEXT PREVIEW")
#: The context preview shows the request sent (not the next one, composed now).
_SENT = re.compile(r"\bsent \d\d:\d\d:\d\d")
_ESTIMATE = re.compile(r"~([\d,]+)/([\d,]+)")
_METER = re.compile(r"ctx [▰▱]+ ⚠?([\d.]+[kM]?)/([\d.]+[kM]?)")
_FOCUS_HEADER = re.compile(r"◆ MYSIS (\S+) .*?last request ⚠?([\d.]+[kM]?)/([\d.]+[kM]?)")
_ROW = re.compile(
    rf"#(\d+) \d\d:\d\d:\d\d ({re.escape(IN_FLIGHT)} )?.*? · \d+ msgs · ([\d.]+[kM]?) tok"
    r" (reported|estimated)"
)
_DETAIL = re.compile(
    r"REQUEST #(\d+) .*? ([\d,]+) tok estimated(?: · ([\d,]+) prompt tok reported)?"
)


def _number(text: str) -> int:
    return int(text.replace(",", ""))


def _pane_meter(lines: list[str], name: str) -> tuple[str, str] | None:
    """A pane's context meter (tokens, window) as it reads, found under its title."""
    title = re.compile(rf"─ \S+ {re.escape(name)} ─")
    for row, seg, _ in _titled(lines, title):
        for below in range(row + 1, min(row + 8, len(lines))):
            found = _METER.search(_column(lines, below, seg.start, seg.end, 1))
            if found:
                return found.group(1), found.group(2)
    return None


def figure_disagreements(screen: str) -> list[str]:
    """Every figure of one request that two views on ``screen`` give differently."""
    return _compare(screen)[0]


def figures_compared(screen: str) -> int:
    """How many pairs of views of one request's figure ``screen`` shows (0: the check
    had nothing to compare, say because a view changed its words)."""
    return _compare(screen)[1]


def _compare(screen: str) -> tuple[list[str], int]:
    lines = screen.splitlines()
    found: list[str] = []
    pairs = 0
    # The dashboard's NEXT/LAST REQUEST panel and the selected Mysis's pane.
    for row, seg, title in _titled(lines, _PANEL):
        name = title.group(2)
        panel = _ESTIMATE.search(_column(lines, row + 1, seg.start, seg.end, 3))
        meter = _pane_meter(lines, name)
        if panel is None or meter is None:
            continue
        pairs += 1
        shown = (compact(_number(panel.group(1))), compact(_number(panel.group(2))))
        if shown != meter:
            found.append(
                f"{name}: the pane's context meter says {meter[0]}/{meter[1]}, the "
                f"{title.group(1)} panel ~{panel.group(1)}/{panel.group(2)}"
            )
    # The focus view's header and its context preview, when it shows the request sent.
    flat = " ".join(line.strip() for line in lines[:4])
    header = _FOCUS_HEADER.search(flat)
    for row, seg, _ in _titled(lines, _PREVIEW):
        body = _column(lines, row + 1, seg.start, seg.end, 4)
        preview = _ESTIMATE.search(body)
        if header is None or preview is None or not _SENT.search(body):
            continue
        pairs += 1
        shown = (compact(_number(preview.group(1))), compact(_number(preview.group(2))))
        if shown != (header.group(2), header.group(3)):
            found.append(
                f"{header.group(1)}: the focus header's last request says "
                f"{header.group(2)}/{header.group(3)}, the context preview of the request "
                f"sent ~{preview.group(1)}/{preview.group(2)}"
            )
    # The request inspector: a row of the list and the same request opened beside it.
    regions: dict[tuple[int, int], list[str]] = {}
    for line in lines:
        for seg in segments(line):
            regions.setdefault((seg.start, seg.end), []).append(seg.text.strip())
    rows: dict[str, tuple[str, str, bool]] = {}
    details: dict[str, tuple[int, int | None]] = {}
    for texts in regions.values():
        flat = " ".join(texts)
        for m in _ROW.finditer(flat):
            rows[m.group(1)] = (m.group(3), m.group(4), bool(m.group(2)))
        for m in _DETAIL.finditer(flat):
            details[m.group(1)] = (
                _number(m.group(2)),
                _number(m.group(3)) if m.group(3) else None,
            )
    for rid, (estimated, reported) in details.items():
        if rid not in rows:
            continue
        pairs += 1
        figure, which, in_flight = rows[rid]
        # A row listed while its call was in flight has only the estimate (the list is
        # read once; the request opened beside it may have been read after the answer).
        counted = None if in_flight else reported
        detail_which = "reported" if counted is not None else "estimated"
        detail_figure = compact(counted if counted is not None else estimated)
        if (figure, which) != (detail_figure, detail_which):
            found.append(
                f"request #{rid}: the request list says {figure} tok {which}, the request "
                f"opened beside it {estimated:,} estimated"
                + (f" · {reported:,} reported" if reported is not None else "")
            )
    return found, pairs


def meter_of(screen: str, name: str) -> str | None:
    """The tokens figure of ``name``'s context meter on the dashboard (``"7.8k"``)."""
    meter = _pane_meter(screen.splitlines(), name)
    return None if meter is None else meter[0]


def newest_row(screen: str) -> tuple[int, str, str] | None:
    """The request inspector's newest row: (id, figure, which figure), the highest id."""
    regions: dict[tuple[int, int], list[str]] = {}
    for line in screen.splitlines():
        for seg in segments(line):
            regions.setdefault((seg.start, seg.end), []).append(seg.text.strip())
    best: tuple[int, str, str] | None = None
    for texts in regions.values():
        for m in _ROW.finditer(" ".join(texts)):
            rid = int(m.group(1))
            if best is None or rid > best[0]:
                best = (rid, m.group(3), m.group(4))
    return best
