"""The key bar: the screen's keys as one line, the ones that fit, and clicks that type."""

from __future__ import annotations

from rich.style import Style

from zoea_tui.ui.app import ZoeaApp
from zoea_tui.ui.screens.help import HelpScreen
from zoea_tui.ui.widgets.key_bar import KeyBar, key_hints

from .helpers import settle, wait_for

STYLES = (Style(bold=True), Style(), Style(dim=True))


def test_keys_are_laid_out_in_order_with_where_each_sits() -> None:
    keys = [("escape", "esc", "Back", True), ("question_mark", "?", "Help", True)]
    text, spans = key_hints(keys, 80, STYLES)
    assert text.plain == " esc Back  ? Help "
    assert spans == [(0, 10, "escape"), (10, 18, "question_mark")]


def test_keys_that_do_not_fit_are_left_out_whole() -> None:
    keys = [("a", "a", "Alpha", True), ("b", "b", "Bravo", True)]
    text, spans = key_hints(keys, 12, STYLES)
    assert text.plain == " a Alpha "  # never half a key
    assert [key for *_, key in spans] == ["a"]


def test_help_and_quit_stay_when_the_others_do_not_fit() -> None:
    keys = [
        ("escape", "esc", "Back", True),
        ("m", "m", "Message", True),
        ("b", "b", "Broadcast", True),
        ("question_mark", "?", "Help", True),
        ("q", "q", "Quit", True),
    ]
    text, spans = key_hints(keys, 32, STYLES)
    assert text.plain == " esc Back  ? Help  q Quit "  # m and b are left out, ? and q kept
    assert [key for *_, key in spans] == ["escape", "question_mark", "q"]
    text, _ = key_hints(keys, 40, STYLES)
    assert text.plain == " esc Back  m Message  ? Help  q Quit "


def test_a_disabled_key_is_dimmed() -> None:
    text, _ = key_hints([("a", "a", "Alpha", False)], 80, STYLES)
    assert any(span.style == Style(dim=True) for span in text.spans)


async def test_the_bar_shows_the_screens_keys_and_a_click_types_one(app: ZoeaApp) -> None:
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        bar = app.screen.query_one(KeyBar)
        plain = bar.render().plain
        assert "Focus" in plain and "Help" in plain
        start = next(s for s, _e, key in bar._spans if key == "question_mark")
        await pilot.click(KeyBar, offset=(start + 1, 0))
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), what="help")


async def test_new_bindings_repaint_the_bar_only_when_its_keys_change(app: ZoeaApp) -> None:
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        bar = screen.query_one(KeyBar)
        repaints: list[object] = []
        original = bar.refresh
        bar.refresh = lambda *a, **k: (repaints.append(a), original(*a, **k))[1]  # type: ignore[method-assign]
        # Textual tells of new bindings after every change of focus (a screen's return
        # among them); the same keys draw nothing, a second frame saved.
        screen.refresh_bindings()
        await pilot.pause()
        assert repaints == []
        bar._drawn = [*(bar._drawn or []), ("z", "z", "Zed", True)]  # as drawn before
        screen.refresh_bindings()
        await pilot.pause()
        assert len(repaints) == 1
