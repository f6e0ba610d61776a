"""The live meter: what the swarm's model calls cost, as they happen.

The dashboard's :class:`SpendLine` shows the swarm's spend this run and its rate (USD
an hour, tokens a minute, the share of prompt tokens read from the cache); a pane shows
its Mysis's spend (:func:`bill_piece`); the focus view's :class:`SpendSparks` draws the
spend and the cache share of each of its Mysis's newest requests. All of it is read
through the orchestrator (``orchestrator/spend.py``, by way of the swarm model). A
provider without prices (``price_in``/``price_out``, USD per million tokens) is shown in
tokens only, never as "$0.00"; the autopilot flies no model and is not counted, so a
swarm of autopilots shows no meter at all.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widget import Widget
from textual.widgets import Label, Sparkline

from ...core.pricing import Bill, usd_text
from ...orchestrator.spend import SwarmSpend
from .. import formatting as fmt
from .text_view import TextRows


def bill_piece(bill: Bill | None) -> Text:
    """What a Mysis cost this run: ``$0.0123`` (``+N unpriced`` when some requests had
    no price), or its tokens when none had one; empty when nothing was counted."""
    text = Text(no_wrap=True)
    if bill is None or not bill.requests:
        return text
    if bill.usd is None:
        text.append(f"{fmt.compact(bill.tokens)} tok", style=fmt.MUTED)
        return text
    text.append(usd_text(bill.usd), style=f"bold {fmt.TOOL}")
    if bill.unpriced:
        text.append(f" +{bill.unpriced} unpriced", style=fmt.MUTED)
    return text


def spend_text(spend: SwarmSpend, width: int) -> Text:
    """The dashboard's meter line at ``width`` cells: the swarm's spend and its rate,
    its tokens a minute and its cache share, the parts that do not fit left out."""
    total = spend.total
    head = Text(no_wrap=True)
    head.append("◆ SPEND ", style=f"bold {fmt.BRAND}")
    if total.usd is not None:
        head.append(usd_text(total.usd), style=f"bold {fmt.TOOL}")
    else:
        head.append(f"{fmt.compact(total.tokens)} tok", style=f"bold {fmt.TEXT}")
    pieces = [head]
    if spend.usd_per_hour is not None:
        pieces.append(Text(f"{usd_text(spend.usd_per_hour)}/h", style=fmt.TOOL))
    pieces.append(Text(f"{fmt.compact(round(spend.tokens_per_minute))} tok/min", style=fmt.TEXT))
    pieces.append(
        Text.assemble(("cache ", fmt.MUTED), (f"{spend.recent_cache_share:.0%}", fmt.TEAL))
    )
    pieces.append(Text(f"{total.requests:,} request{'s' * (total.requests != 1)}", style=fmt.MUTED))
    if total.usd is not None and total.unpriced:
        pieces.append(Text(f"{total.unpriced:,} unpriced", style=fmt.MUTED))
    if total.usd is None:
        pieces.append(Text("no prices: set price_in and price_out", style=fmt.DIM))
    pieces.append(Text("since launch", style=fmt.DIM))
    line = Text(no_wrap=True, overflow="ellipsis")
    for piece in pieces:
        if line.cell_len and line.cell_len + 3 + piece.cell_len > width:
            break
        if line.cell_len:
            line.append(" · ", style=fmt.DIM)
        line.append_text(piece)
    line.truncate(max(width, 1), overflow="ellipsis")
    return line


class SpendLine(TextRows, Widget):
    """One line of the dashboard: the swarm's spend and its rate; hidden until a model
    call was counted."""

    DEFAULT_CSS = """
    SpendLine {
        height: 1;
        padding: 0 1;
        display: none;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.spend = SwarmSpend()

    def show(self, spend: SwarmSpend) -> None:
        """Show ``spend`` (shown from its first counted call on)."""
        self.spend = spend
        if spend.counted and not self.display:
            self.display = True
        self.repaint()

    def text(self) -> Text:
        """The meter line."""
        return spend_text(self.spend, self.content_size.width)


def spark_series(bills: Sequence[Bill]) -> tuple[list[float], list[float], str]:
    """The spend (USD, or tokens when unpriced) and the cache share of each request, and
    the line that says what they are."""
    priced = any(b.usd is not None for b in bills)
    spend = [float(b.usd or 0.0) if priced else float(b.tokens) for b in bills]
    share = [b.cache_share for b in bills]
    if not bills:
        return spend, share, ""
    low, high = min(spend), max(spend)
    span = (
        f"{usd_text(low)}–{usd_text(high)}"
        if priced
        else f"{fmt.compact(round(low))}–{fmt.compact(round(high))} tok"
    )
    total = Bill()
    for bill in bills:
        total = total + bill
    what = "spend" if priced else "tokens"
    return (
        spend,
        share,
        f"{what}/request {span} · cache {total.cache_share:.0%} "
        f"(last {len(bills)} request{'s' * (len(bills) != 1)})",
    )


class SpendSparks(Horizontal):
    """The focus view's sparklines: its Mysis's spend and cache share per request;
    hidden until one of its model calls was counted."""

    DEFAULT_CSS = """
    SpendSparks {
        height: 1;
        display: none;
    }
    SpendSparks Sparkline {
        width: 1fr;
        margin: 0 1;
    }
    SpendSparks Label {
        width: auto;
        padding: 0 1;
    }
    """

    def compose(self) -> ComposeResult:
        """Spend, cache share, and what they are."""
        yield Sparkline([], id="spend-spark")
        yield Sparkline([], id="cache-spark")
        yield Label("", id="spend-label", markup=False)

    def show(self, bills: Sequence[Bill]) -> None:
        """Show these requests' bills, oldest first (hidden when there are none)."""
        spend, share, label = spark_series(bills)
        self.display = bool(bills)
        if not bills:
            return
        self.query_one("#spend-spark", Sparkline).data = spend
        self.query_one("#cache-spark", Sparkline).data = share
        self.query_one("#spend-label", Label).update(Text(label, style=fmt.MUTED))
