"""TextBlock: new text of the same height repaints; a new height lays the screen out."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import App, ComposeResult

from zoea_tui.ui.widgets.text_block import TextBlock


def _layouts_asked(block: TextBlock) -> list[bool]:
    """Whether each refresh of ``block`` from now on asks for a layout."""
    layouts: list[bool] = []
    original = block.refresh

    def spy(*args: Any, **kwargs: Any) -> Any:
        layouts.append(bool(kwargs.get("layout")))
        return original(*args, **kwargs)

    block.refresh = spy  # type: ignore[method-assign]
    return layouts


class BlockApp(App[None]):
    def compose(self) -> ComposeResult:
        yield TextBlock(Text("one line"), id="block")


async def test_only_a_change_of_height_asks_for_a_layout() -> None:
    app = BlockApp()
    async with app.run_test(size=(40, 10)) as pilot:
        block = app.query_one(TextBlock)
        block.show(Text("first"))
        await pilot.pause()
        layouts = _layouts_asked(block)
        block.show(Text("second, as short"))
        block.show(Text("third\nnow two lines"))
        block.show(Text("x" * 60))  # wraps to two lines at 40 cells: the same height
        assert layouts == [False, True, False]
        await pilot.pause()
        assert block.size.height == 2


async def test_text_as_tall_as_the_first_layout_gave_asks_for_no_layout() -> None:
    # Shown before it had a width (as a screen built unseen shows it), the block did not
    # know its height, and its next text asked for a layout of the whole screen.
    app = BlockApp()
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        block = app.query_one(TextBlock)
        layouts = _layouts_asked(block)
        block.show(Text("another line"))
        assert layouts == [False]


class FixedApp(App[None]):
    CSS = "#fixed { height: 1; }"

    def compose(self) -> ComposeResult:
        yield TextBlock(Text("one line"), id="fixed")
        yield TextBlock(Text("one line"), id="auto")


async def test_a_block_whose_height_the_stylesheet_fixes_never_asks_for_a_layout() -> None:
    app = FixedApp()
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        asked: dict[str, list[bool]] = {"fixed": [], "auto": []}
        for name, seen in asked.items():
            block = app.query_one(f"#{name}", TextBlock)
            original = block.refresh

            def spy(*args: Any, _seen: list[bool] = seen, _o: Any = original, **kw: Any) -> Any:
                _seen.append(bool(kw.get("layout")))
                return _o(*args, **kw)

            block.refresh = spy  # type: ignore[method-assign]
            block.show(Text("two\nlines"))
        assert asked == {"fixed": [False], "auto": [True]}  # the check can fail
        await pilot.pause()
        fixed = app.query_one("#fixed", TextBlock)
        assert fixed.size.height == 1 and "two" in str(fixed.render())
