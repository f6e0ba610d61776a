"""The request list (``l``) follows the calls it lists: a row listed while its call was
in flight reads its outcome and the server's count once the call ends."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import OptionList, Static

from zoea_tui.config import Config
from zoea_tui.providers.base import ChatResponse, Usage
from zoea_tui.ui.screens.inspector import IN_FLIGHT, InspectorScreen

from .helpers import HeldModel, held_app, wait_for


def _row(screen: InspectorScreen, index: int) -> str:
    return str(screen.query_one(OptionList).get_option_at_index(index).prompt)


async def test_a_row_listed_in_flight_shows_its_outcome_once_the_call_ends(
    tmp_path: Path, still_config: Config
) -> None:
    """Issue 40: a row listed while its call was in flight kept "in flight · … tok
    estimated" while the same request opened beside it said "… reported · ok"."""
    model = HeldModel()
    async with held_app(still_config, tmp_path / "z.db", model) as (pilot, app, commander):
        ada = await commander.create_mysis("Ada")
        await wait_for(pilot, lambda: model.asked == 1, what="Ada's first call")
        screen = InspectorScreen(ada.id, "Ada")
        await app.push_screen(screen)
        await wait_for(pilot, lambda: len(screen.requests) == 1, what="the listed call")
        assert IN_FLIGHT in _row(screen, 0) and "estimated" in _row(screen, 0)
        await model.answers.put(
            ChatResponse(content="Standing by.", usage=Usage(prompt_tokens=1234))
        )
        await wait_for(pilot, lambda: IN_FLIGHT not in _row(screen, 0), what="the row to follow")
        row = _row(screen, 0)
        assert " ok" in row and "1.2k" in row and "reported" in row, row
        assert screen.requests[0].outcome == "ok"
        # The request opened beside it says the same.
        detail = screen.query_one("#inspector-text", Static)
        await wait_for(pilot, lambda: "1,234" in str(detail.render()), what="the opened one")
        assert IN_FLIGHT not in str(detail.render())
