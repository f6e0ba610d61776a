"""The search's hit list: a restyle that changes nothing repaints nothing."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.widgets import OptionList

from zoea_tui.ui.screens.search import HitList
from zoea_tui.ui.widgets.mysis_pane import MysisPane
from zoea_tui.ui.widgets.text_view import SteadyScrollBar, TextView


class ListsApp(App[None]):
    """The hit list beside Textual's own option list, both longer than the screen."""

    CSS = "Horizontal > * { width: 1fr; } .-loud { background: #aa0000; }"

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield HitList(*(f"hit {i}" for i in range(30)), id="hits")
            yield OptionList(*(f"hit {i}" for i in range(30)), id="plain")


async def test_a_restyle_that_changes_nothing_repaints_neither_the_list_nor_its_bar() -> None:
    app = ListsApp()
    async with app.run_test(size=(60, 10)) as pilot:
        await pilot.pause()
        hits, plain = app.query_one(HitList), app.query_one("#plain", OptionList)
        assert isinstance(hits.vertical_scrollbar, SteadyScrollBar)
        app.update_styles(app.screen)  # as the screen's restyle when it comes back on top
        assert plain._repaint_required  # the check can fail: Textual's own list repaints
        assert not hits._repaint_required and not hits.vertical_scrollbar._repaint_required

        await pilot.pause()
        hits.add_class("-loud")
        app.update_styles(hits)  # a rule that changes: a repaint is asked for
        assert hits._repaint_required and hits.styles.background.hex == "#AA0000"


def test_mixins_keep_the_widgets_own_css_lineage() -> None:
    # Textual inherits CSS, type names and component classes along the first base that
    # is a DOM node; the mixins are plain classes so they never take that place.
    assert OptionList in HitList._css_bases(HitList)
    assert "option-list--option-highlighted" in HitList._get_component_classes()
    assert [b.__name__ for b in TextView._css_bases(TextView)][:3] == [
        "TextView",
        "LineView",
        "ScrollView",
    ]
    assert MysisPane._css_bases(MysisPane)[1].__name__ == "Widget"
