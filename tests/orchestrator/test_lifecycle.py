"""Create, configure, start, stop, relaunch, delete; states persist across launches."""

from __future__ import annotations

import json
import sys
import threading
from dataclasses import replace

import pytest

from tests.helpers import open_on_world
from zoea_tui.config import KINDS
from zoea_tui.core.redaction import PASSWORD_MASK
from zoea_tui.core.validator import validate
from zoea_tui.orchestrator import commander as commander_module
from zoea_tui.orchestrator.commander import STARTER_NAMES, CommandRefused
from zoea_tui.orchestrator.events import Notice, StateChanged
from zoea_tui.providers import registry
from zoea_tui.providers.base import ProviderError

from .conftest import ScriptedModel, advance_until, calls, drain, settle, transient, until


async def test_an_empty_database_gets_a_starter_swarm_that_plays(open_commander, clock) -> None:
    commander = await open_commander()  # the real autopilot and the embedded world
    views = commander.myses()
    assert [v.name for v in views] == list(STARTER_NAMES)
    assert {v.state for v in views} == {"running"}
    assert all(v.provider_label == "autopilot (rule-based)" for v in views)
    await until(lambda: all(v.account for v in commander.myses()))
    # Turns end with an answer; the next comes with the nudge, after the idle interval.
    await advance_until(
        clock, lambda: commander.backend.host.world.score()["total"]["ore_mined"] > 0, step=10
    )
    for view in commander.myses():
        requests = await commander.store.list_requests(view.id)
        assert requests and all(r.items for r in requests)
        assert not validate((await commander.preview(view.id)).messages)


@pytest.mark.parametrize("max_myses", [1, 2])
async def test_max_myses_bounds_the_starter_swarm(tmp_path, config, max_myses) -> None:
    """``max_myses = 2`` starts two starter Myses (the swarm reads "2/2", never "3/2")."""
    bounded = replace(config, swarm=replace(config.swarm, max_myses=max_myses))
    commander = await open_on_world(bounded, tmp_path, autostart=False, starter_swarm=True)
    try:
        assert [v.name for v in commander.myses()] == list(STARTER_NAMES[:max_myses])
    finally:
        await commander.shutdown(timeout=0.5)


async def test_create_refuses_bad_names_providers_and_a_full_swarm(open_commander, config):
    commander = await open_commander(models={}, starter_swarm=False)
    sub = commander.bus.subscribe()
    await commander.create_mysis("Nova", start=False)
    with pytest.raises(CommandRefused, match="already exists"):
        await commander.create_mysis("Nova")
    with pytest.raises(CommandRefused, match="unknown provider"):
        await commander.create_mysis("Zed", provider="gpt-17")
    with pytest.raises(CommandRefused, match="needs a name"):
        await commander.create_mysis("   ")
    for i in range(config.swarm.max_myses - 1):
        await commander.create_mysis(f"m{i:02d}", start=False)
    with pytest.raises(CommandRefused, match="full"):
        await commander.create_mysis("one-too-many")
    notices = [e for e in drain(sub) if isinstance(e, Notice)]
    assert len(notices) == 4 and all(n.level == "error" for n in notices)


async def test_stopped_stays_stopped_and_running_resumes_after_a_relaunch(open_commander):
    models: dict[str, ScriptedModel] = {}
    first = await open_commander(models=models, starter_swarm=False)
    a = await first.create_mysis("Alpha")
    b = await first.create_mysis("Bravo")
    await first.stop_mysis(b.id)
    await first.shutdown()
    again = await open_commander(models=models)
    assert again.mysis(a.id).state == "running"
    assert again.mysis(b.id).state == "stopped"
    await again.relaunch_mysis(b.id)
    assert again.mysis(b.id).state == "running"


async def test_configure_changes_strategy_and_provider_live(open_commander) -> None:
    commander = await open_commander(models={}, starter_swarm=False)
    view = await commander.create_mysis("Alpha", start=False)
    changed = await commander.configure_mysis(view.id, strategy="loop-slice")
    assert changed.strategy == "loop-slice"
    assert (await commander.preview(view.id)).strategy == "loop-slice"
    with pytest.raises(CommandRefused):
        await commander.configure_mysis(view.id, strategy="telepathy")
    with pytest.raises(CommandRefused):
        await commander.configure_mysis(view.id, provider="nope")


async def test_delete_removes_memories_and_releases_the_account(open_commander) -> None:
    commander = await open_commander(starter_swarm=False)
    view = await commander.create_mysis("Doomed")
    await until(lambda: commander.mysis(view.id).account is not None)
    account = commander.mysis(view.id).account
    await commander.delete_mysis(view.id)
    assert view.id not in [v.id for v in commander.myses()]
    assert await commander.store.count_memories(view.id) == 0
    pool = await commander.store.list_accounts("embedded")
    assert [(a.username, a.mysis_id) for a in pool] == [(account, None)]
    # A new Mysis gets the released account from the pool on its first login.
    heir = await commander.create_mysis("Heir")
    await until(lambda: commander.mysis(heir.id).account == account)


async def test_snapshots_of_a_just_deleted_mysis_are_empty(open_commander) -> None:
    # A watcher hears of a delete through the bus, after it happened: asking meanwhile for
    # what it shows of that Mysis gets nothing, not a refusal (the dashboard once crashed).
    commander = await open_commander(starter_swarm=False)
    view = await commander.create_mysis("Doomed")
    await until(lambda: commander.game_fields(view.id))
    await commander.delete_mysis(view.id)
    assert commander.game_fields(view.id) == {}
    assert commander.game_state(view.id) == {}
    assert commander.last_sent(view.id) == ()
    with pytest.raises(CommandRefused):  # commands still refuse an unknown Mysis
        await commander.send_message(view.id, "mine")


async def test_a_message_to_a_stopped_or_errored_mysis_is_refused_visibly(open_commander):
    models = {"Alpha": ScriptedModel(default=calls())}
    commander = await open_commander(models=models, starter_swarm=False)
    view = await commander.create_mysis("Alpha", start=False)
    await commander.stop_mysis(view.id) if commander.mysis(view.id).state != "stopped" else None
    sub = commander.bus.subscribe()
    with pytest.raises(CommandRefused, match="press r to relaunch"):
        await commander.send_message(view.id, "mine")
    assert any(isinstance(e, Notice) and e.mysis_id == view.id for e in drain(sub))


async def test_stop_during_a_call_never_becomes_errored(open_commander) -> None:
    model = ScriptedModel(transient("connection reset"))
    model.gate = __import__("asyncio").Event()
    commander = await open_commander(models={"Alpha": model}, starter_swarm=False)
    sub = commander.bus.subscribe()
    view = await commander.create_mysis("Alpha")
    await until(lambda: model.entered.is_set())
    await commander.stop_mysis(view.id)
    model.gate.set()  # the call "fails" after the stop
    await settle()
    assert commander.mysis(view.id).state == "stopped"
    states = [e.new for e in drain(sub) if isinstance(e, StateChanged)]
    assert "errored" not in states
    requests = await commander.store.list_requests(view.id)
    assert requests[-1].outcome == "cancelled"


async def test_transient_failures_are_tried_until_answered_and_a_refusal_errors_visibly(
    open_commander, clock
) -> None:
    refusal = ProviderError("HTTP 401: bad key. Check the provider's API key.")
    model = ScriptedModel(transient("503 a"), transient("503 b"), transient("503 c"), refusal)
    commander = await open_commander(models={"Alpha": model}, starter_swarm=False)
    view = await commander.create_mysis("Alpha")
    # Three transient failures are waited out (1, 2, 4 s); the refusal stops the Mysis.
    await advance_until(clock, lambda: commander.mysis(view.id).state == "errored")
    assert len(model.requests) == 4
    assert "bad key" in commander.mysis(view.id).last_error
    outcomes = [r.outcome for r in await commander.store.list_requests(view.id)]
    assert outcomes == ["error", "error", "error", "error"]
    # Relaunch from errored clears the error and plays again.
    await commander.relaunch_mysis(view.id)
    await until(lambda: len(model.requests) == 5)
    assert commander.mysis(view.id).last_error is None


async def test_a_transient_failure_then_success_keeps_running(open_commander, clock) -> None:
    model = ScriptedModel(transient(), calls(("get_status", "{}")))
    commander = await open_commander(models={"Alpha": model}, starter_swarm=False)
    view = await commander.create_mysis("Alpha")
    await advance_until(clock, lambda: len(model.requests) >= 3, step=0.5)
    assert commander.mysis(view.id).state == "running"


async def test_tool_results_are_stored_in_order_before_the_next_composition(open_commander):
    model = ScriptedModel(
        calls(("get_status", "{}"), ("zoea_swarm_status", "{}")), calls(("help", "{}"))
    )
    commander = await open_commander(models={"Alpha": model}, starter_swarm=False)
    view = await commander.create_mysis("Alpha")
    await until(lambda: len(model.requests) >= 3)
    second = model.requests[1].messages
    tool_messages = [m for m in second if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_messages[-2:]] == ["c0", "c1"]
    assert json.loads(tool_messages[-1]["content"])["myses"][0]["you"] is True
    assert not validate(second)
    assert commander.mysis(view.id).state == "running"


async def test_opening_loads_the_providers_modules_off_the_loop(
    open_commander, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Built on the loop, the first autopilot imported its package there: 53 ms, the
    # longest stall of a swarm's first second.
    loaded: list[tuple[set[str], bool]] = []
    monkeypatch.setattr(
        commander_module,
        "preload",
        lambda types: loaded.append((set(types), threading.current_thread() is not main)),
    )
    main = threading.main_thread()
    await open_commander(autostart=False)
    assert loaded == [({"autopilot"}, True)]  # the starter swarm's and the default's type


def test_preloading_leaves_a_module_that_cannot_load_to_the_build(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    broken = replace(KINDS["local"], module=".no_such_provider_module")
    monkeypatch.setitem(KINDS, "local", broken)
    registry.preload(["local", "no-such-type", "autopilot"])  # no error
    assert "zoea_tui.providers.autopilot" in sys.modules


async def test_a_pooled_password_in_the_commanders_words_is_stored_masked(open_commander):
    commander = await open_commander(models={"Alpha": ScriptedModel()}, starter_swarm=False)
    view = await commander.create_mysis("Alpha")
    secret = "0ddba11" * 5
    await commander.store.add_account("embedded", "alpha1", secret)
    await commander.send_message(view.id, f"log in with {secret} please")
    await commander.broadcast(f"everyone: {secret}")
    stored = [m.content for m in await commander.memories(view.id, 50)]
    assert f"log in with {PASSWORD_MASK} please" in stored
    assert f"everyone: {PASSWORD_MASK}" in stored
    assert not any(secret in text for text in stored)
    assert [b.content for b in await commander.broadcasts(5)] == [f"everyone: {PASSWORD_MASK}"]
