"""The idle nudge interval, pinned from both sides on the manual clock (30 s by default)."""

from __future__ import annotations

from zoea_tui.core import prompts
from zoea_tui.orchestrator.events import NudgeSent
from zoea_tui.providers.base import ChatResponse

from .conftest import ScriptedModel, drain, last_said, settle, until

IDLE = 30.0
JUST_BEFORE = IDLE - 0.001


async def test_an_idle_mysis_is_nudged_at_30_s_and_not_before(
    open_commander, clock, config
) -> None:
    assert config.nudge.idle_seconds == IDLE
    model = ScriptedModel(default=ChatResponse(content="Holding position."))
    commander = await open_commander(models={"Idle": model}, starter_swarm=False)
    sub = commander.bus.subscribe()
    await commander.create_mysis("Idle")
    for turn in (1, 2):  # the interval starts again after each nudge turn
        await until(lambda n=turn: len(model.requests) == n and clock.waiting == 1)
        start = clock.now()
        clock.advance(JUST_BEFORE)
        await settle()
        assert len(model.requests) == turn, f"nudged {JUST_BEFORE} s after turn {turn}"
        assert not [e for e in drain(sub) if isinstance(e, NudgeSent)]
        clock.advance(IDLE - JUST_BEFORE)
        await until(lambda n=turn: len(model.requests) == n + 1)
        assert abs(clock.now() - start - IDLE) < 1e-9
        (nudge,) = [e for e in drain(sub) if isinstance(e, NudgeSent)]
        # A productive answer reset the counter, so each nudge is the first level's.
        assert nudge.level == 1
        assert last_said(model.requests[turn])["content"] == prompts.nudge_text(1)
