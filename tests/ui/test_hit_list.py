"""The search's hit list: two rows per hit, rendered when painted, keys and clicks choose."""

from __future__ import annotations

import pytest
from rich.text import Text
from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.widgets import OptionList

from zoea_tui.ui.textual_compat.testing import (
    component_classes,
    css_lineage,
    layouts_of,
    repaint_asked,
)
from zoea_tui.ui.textual_compat.views import SteadyScrollBar
from zoea_tui.ui.widgets.hit_list import HitList
from zoea_tui.ui.widgets.mysis_pane import MysisPane
from zoea_tui.ui.widgets.text_view import TextView

from .helpers import painted, view_rows


def hits(count: int) -> list[tuple[Text, Text]]:
    return [(Text(f"hit {i}"), Text(f"  snippet {i} " + "word " * 40)) for i in range(count)]


class ListsApp(App[None]):
    """The hit list beside Textual's own option list, both longer than the screen."""

    CSS = "Horizontal > * { width: 1fr; }"

    def __init__(self) -> None:
        super().__init__()
        self.chosen: list[int] = []

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield HitList(id="hits")
            yield OptionList(*(f"hit {i}" for i in range(30)), id="plain")

    def on_hit_list_chosen(self, message: HitList.Chosen) -> None:
        self.chosen.append(message.index)


@pytest.mark.overrides
async def test_hits_are_two_rows_each_cut_to_the_width_and_shown_without_a_layout() -> None:
    app = ListsApp()
    async with painted(app, (60, 10), HitList) as (pilot, hit_list):
        layouts = layouts_of(app.screen)
        hit_list.show(hits(30))
        await pilot.pause()
        width = hit_list.scrollable_content_region.width
        rows = view_rows(hit_list)
        assert rows[:3] == ["hit 0", ("  snippet 0 " + "word " * 40)[: width - 1] + "…", "hit 1"]
        assert hit_list.virtual_size.height == 60 and hit_list.max_scroll_y > 0
        assert layouts == []
        hit_list.show([])
        await pilot.pause()
        assert hit_list.count == 0 and view_rows(hit_list)[0] == ""


async def test_keys_move_the_highlight_into_view_and_enter_or_a_click_chooses() -> None:
    app = ListsApp()
    async with app.run_test(size=(60, 10)) as pilot:
        hit_list = app.query_one(HitList)
        hit_list.show(hits(30))
        hit_list.focus()
        await pilot.press("down")
        assert hit_list.highlighted == 0
        await pilot.press("down", "down", "end")
        assert hit_list.highlighted == 29 and hit_list.scroll_offset.y == hit_list.max_scroll_y
        await pilot.press("home", "pagedown")
        page = hit_list.scrollable_content_region.height // 2
        assert hit_list.highlighted == page
        await pilot.press("enter")
        await pilot.pause()
        assert app.chosen == [page]
        # The highlighted rows are drawn in the highlight's style, the others not.
        top = hit_list.scroll_offset.y
        height = hit_list.scrollable_content_region.height
        styles = {(top + y) // 2: next(iter(hit_list.render_line(y))).style for y in range(height)}
        assert page in styles and len(set(styles.values())) == 2
        assert all(style != styles[page] for index, style in styles.items() if index != page)
        await pilot.click(HitList, offset=(3, 2))  # the second hit on screen
        await pilot.pause()
        assert app.chosen == [page, top // 2 + 1]


@pytest.mark.overrides
async def test_a_restyle_that_changes_nothing_repaints_no_scrollbar() -> None:
    app = ListsApp()
    async with app.run_test(size=(60, 10)) as pilot:
        hit_list, plain = app.query_one(HitList), app.query_one("#plain", OptionList)
        hit_list.show(hits(30))
        await pilot.pause()
        assert isinstance(hit_list.vertical_scrollbar, SteadyScrollBar)
        app.update_styles(app.screen)  # as the screen's restyle when it comes back on top
        assert repaint_asked(plain)  # the check can fail: Textual's own list repaints
        assert not repaint_asked(hit_list)
        assert not repaint_asked(hit_list.vertical_scrollbar)


def test_mixins_keep_the_widgets_own_css_lineage() -> None:
    # Textual inherits CSS, type names and component classes along the first base that
    # is a DOM node; the mixins are plain classes so they never take that place.
    assert [b.__name__ for b in css_lineage(TextView)][:3] == [
        "TextView",
        "LineView",
        "ScrollView",
    ]
    assert "hit-list--highlighted" in component_classes(HitList)
    assert css_lineage(MysisPane)[1].__name__ == "Widget"
