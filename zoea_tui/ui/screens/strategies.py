"""The strategy switcher: what each strategy would send right now, side by side.

Every strategy's next request is composed for the Mysis (nothing is written or sent);
the list shows their totals, the preview the highlighted one's messages, and enter
applies the highlighted strategy to the Mysis.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, ClassVar, Self

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.reactive import reactive
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ...core.composition import Composition
from ...orchestrator.checked import CheckedRequest
from ...orchestrator.refusals import CommandRefused
from .. import formatting as fmt
from ..sanitize import one_line
from ..swarm_model import SwarmModel
from ..widgets.context_preview import ContextPreview, PreviewData
from ..widgets.key_bar import KeyBar
from .base import ZoeaScreen, targeted

if TYPE_CHECKING:
    from ...orchestrator.events import MysisView

BAR_WIDTH = 8


def option_text(
    strategy: str,
    composition: Composition | None,
    *,
    current: bool,
    largest: int,
    window: int,
    violations: int = 0,
) -> Text:
    """Two lines for one strategy: its name, then its totals with a bar (pure)."""
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append("● " if current else "○ ", style=fmt.TEAL if current else fmt.DIM)
    text.append(strategy, style=f"bold {fmt.TEXT}")
    if current:
        text.append(" (current)", style=fmt.TEAL)
    text.append("\n  ")
    if composition is None:
        text.append("composing…", style=fmt.MUTED)
        return text
    filled = round(BAR_WIDTH * composition.tokens / largest) if largest else 0
    style = fmt.gauge_style(composition.tokens, window)
    bar = fmt.TEAL if style in (fmt.TEXT, fmt.MUTED) else style
    text.append("█" * filled, style=bar)
    text.append("░" * (BAR_WIDTH - filled), style=fmt.DIM)
    text.append(f" {'~' + format(composition.tokens, ','):>7}", style=style)
    text.append(f" {len(composition.messages):>3} msg", style=fmt.MUTED)
    if composition.dropped:
        text.append(f" {len(composition.dropped):>3} out", style=fmt.MUTED)
    if violations:
        text.append(" INVALID", style=f"bold {fmt.ERROR}")
    return text


class StrategyScreen(ZoeaScreen[None]):
    """Compare the strategies for one Mysis and apply one (enter or a)."""

    #: The help's groups that list the keys this binds (``commands.SCREEN_KEYS``).
    HELP_GROUPS: ClassVar[tuple[str, ...]] = ("Context preview and strategies",)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        Binding("a", "apply", "Apply"),
        Binding("e", "expand", "Whole msgs"),
    ]

    current: reactive[str] = reactive("", init=False)

    @classmethod
    def opened(cls, view: MysisView | None) -> Self:
        """The strategies of Mysis ``view`` (the ``p`` command's)."""
        return cls(targeted(view, cls).id)

    def __init__(self, mysis_id: int) -> None:
        super().__init__()
        self.mysis_id = mysis_id
        #: Each strategy's next request, with the engine's checks.
        self.requests: dict[str, CheckedRequest] = {}

    @property
    def compositions(self) -> dict[str, Composition]:
        """Each strategy's next request as composed."""
        return {s: r.composition for s, r in self.requests.items()}

    @property
    def current_mysis_id(self) -> int | None:
        """The Mysis compared (the target of the global keys)."""
        return self.mysis_id

    @property
    def strategies(self) -> list[str]:
        """The strategies offered."""
        commander = self.center.commander
        return list(commander.strategies) if commander is not None else []

    def compose(self) -> ComposeResult:
        """Header; the strategy list beside the highlighted one's request; keys."""
        yield Static(id="strategies-header")
        with Horizontal(id="strategies-body"):
            options = OptionList(id="strategy-list")
            options.border_title = "STRATEGIES"
            yield options
            yield ContextPreview(id="strategy-preview")
        yield KeyBar()

    def on_mount(self) -> None:
        view = self.center.swarm.views.get(self.mysis_id)
        self.current = view.strategy if view else ""
        # The messages it handles, no others (each is dispatched to every subscriber).
        self.center.swarm.subscribe(
            self,
            SwarmModel.MysesChanged,
            SwarmModel.MysisRemoved,
            SwarmModel.RequestComposed,
        )
        self._refresh_options()
        self.query_one(OptionList).focus()
        self.compose_all()

    def watch_current(self) -> None:
        self._refresh_header()
        self._refresh_options()

    def _window(self) -> int:
        return self.center.swarm.window(self.mysis_id)

    def _refresh_header(self) -> None:
        view = self.center.swarm.views.get(self.mysis_id)
        name = one_line(view.name, 40) if view else f"#{self.mysis_id}"
        text = Text()
        text.append("◆ CONTEXT STRATEGIES ", style=f"bold {fmt.BRAND}")
        text.append(name, style=f"bold {fmt.TEAL}")
        text.append("  now composing with ", style=fmt.MUTED)
        text.append(self.current or "?", style=f"bold {fmt.TEAL}")
        text.append(
            "\nwhat each strategy would send right now (nothing is sent) · "
            "↑↓ compare · enter applies",
            style=fmt.MUTED,
        )
        self.query_one("#strategies-header", Static).update(text)

    def _refresh_options(self) -> None:
        options = self.query_one(OptionList)
        highlighted = options.highlighted
        largest = max((r.composition.tokens for r in self.requests.values()), default=0)
        window = self._window()
        options.set_options(
            [
                Option(
                    option_text(
                        s,
                        self.requests[s].composition if s in self.requests else None,
                        current=s == self.current,
                        largest=largest,
                        window=window,
                        violations=len(self.requests[s].violations) if s in self.requests else 0,
                    ),
                    id=s,
                )
                for s in self.strategies
            ]
        )
        if highlighted is None and self.current in self.strategies:
            highlighted = self.strategies.index(self.current)
        if highlighted is not None and self.strategies:
            options.highlighted = min(highlighted, len(self.strategies) - 1)

    @work(exclusive=True, group="strategies", exit_on_error=False)
    async def compose_all(self, delay: float = 0.0) -> None:
        """Compose the next request under every strategy."""
        if delay:
            await asyncio.sleep(delay)
        commander = self.center.commander
        if commander is None:
            return
        for strategy in self.strategies:
            try:
                request = await commander.checked_preview(self.mysis_id, strategy)
            except CommandRefused as exc:
                self.query_one(ContextPreview).show_error(exc.message)
                return
            self.requests[strategy] = request
        self._refresh_options()
        self._show_highlighted()

    def _highlighted_strategy(self) -> str | None:
        options = self.query_one(OptionList)
        if options.highlighted is None:
            return None
        return options.get_option_at_index(options.highlighted).id

    def _show_highlighted(self) -> None:
        strategy = self._highlighted_strategy()
        if strategy is None or strategy not in self.requests:
            return
        self.query_one(ContextPreview).data = PreviewData(self.requests[strategy], self._window())

    @on(OptionList.OptionHighlighted)
    def _highlighted(self, _: OptionList.OptionHighlighted) -> None:
        self._show_highlighted()

    @on(OptionList.OptionSelected)
    def _selected(self, _: OptionList.OptionSelected) -> None:
        self.action_apply()

    @on(SwarmModel.MysesChanged)
    def _myses_changed(self, message: SwarmModel.MysesChanged) -> None:
        view = self.center.swarm.views.get(self.mysis_id)
        if self.mysis_id in message.ids and view is not None:
            self.current = view.strategy

    @on(SwarmModel.MysisRemoved)
    def _mysis_removed(self, message: SwarmModel.MysisRemoved) -> None:
        if message.mysis_id == self.mysis_id:
            self.dismiss()

    @on(SwarmModel.RequestComposed)
    def _request_composed(self, message: SwarmModel.RequestComposed) -> None:
        if self.mysis_id in message.ids:
            self.compose_all(delay=0.25)

    def action_apply(self) -> None:
        """Make the highlighted strategy the Mysis's strategy."""
        strategy = self._highlighted_strategy()
        commander = self.center.commander
        if strategy is None or commander is None:
            return
        if strategy == self.current:
            self.notify(f"already composing with {strategy}", timeout=3)
            return
        view = self.center.swarm.views.get(self.mysis_id)
        name = one_line(view.name, 40) if view else f"#{self.mysis_id}"
        self.center.run_command(
            "apply the strategy",
            lambda: commander.configure_mysis(self.mysis_id, strategy=strategy),
            done=f"{name} now composes with {strategy}",
        )

    def action_expand(self) -> None:
        """Whole messages in the preview (or compact ones again)."""
        preview = self.query_one(ContextPreview)
        preview.expanded = not preview.expanded

    def action_back(self) -> None:
        """Close the switcher."""
        self.dismiss()
