"""The tool router: stable tools, credentials filled in, passwords never shown."""

from __future__ import annotations

import json
from typing import Any

from zoea_tui.core.compose import compose
from zoea_tui.core.composition import ComposeSettings
from zoea_tui.core.strategies import STRATEGIES
from zoea_tui.core.types import ToolCall
from zoea_tui.game.router import ORCHESTRATOR_TOOL_NAMES, REDACTED, ToolRouter
from zoea_tui.game.state_cache import GameStateCache
from zoea_tui.storage import NewMemory, Store

SERVER = "embedded"


class FakeSwarm:
    """Records what the router asks of the orchestrator."""

    def __init__(self) -> None:
        self.sent: list[tuple[int, str]] = []

    async def broadcast_from(self, mysis_id: int, text: str) -> int:
        self.sent.append((mysis_id, text))
        return 2

    async def swarm_status(self, mysis_id: int) -> dict[str, Any]:
        return {"myses": [{"name": "a", "state": "running"}], "you": mysis_id}


async def _router(store: Store, make_session, name: str, **kwargs) -> ToolRouter:
    mysis = await store.find_mysis(name) or await store.create_mysis(name)
    return ToolRouter(store, mysis.id, make_session(name), server=SERVER, **kwargs)


async def _run(router: ToolRouter, store: Store, name: str, args: dict | str,
               index: int = 0) -> Any:
    """Run a call the way the orchestrator will: store the call and its result."""
    raw = args if isinstance(args, str) else json.dumps(args)
    call = ToolCall(id=f"c{index}", name=name, arguments=raw)
    await store.add_memory(router.mysis_id, NewMemory("assistant", "llm", "", tool_calls=(call,)))
    result = await router.execute(call)
    await store.add_memory(router.mysis_id, NewMemory(
        "tool", "tool", result.content, tool_call_id=call.id, tool_name=name))
    return result


async def test_tools_are_ours_first_then_the_games_sorted_and_stable(store, make_session):
    router = await _router(store, make_session, "nova")
    tools = await router.tool_schemas()
    names = [t["function"]["name"] for t in tools]
    ours = [n for n in names if n.startswith("zoea_")]
    assert names[: len(ours)] == ours and set(ours) == ORCHESTRATOR_TOOL_NAMES
    game = names[len(ours):]
    assert game == sorted(game)
    assert await router.tool_schemas() == tools
    for tool in tools:
        properties = tool["function"]["parameters"].get("properties", {})
        assert "password" not in properties and "session_id" not in properties
    assert "session_id" not in json.dumps([t["function"]["parameters"] for t in tools])
    login = next(t for t in tools if t["function"]["name"] == "login")
    assert login["function"]["parameters"]["properties"] == {}


async def test_passwords_never_reach_a_model_or_the_memories(store, make_session, tmp_path):
    """Register, log in, lose the session, search: no password anywhere a model reads."""
    router = await _router(store, make_session, "nova")
    reg = await _run(router, store, "register", {"username": "nova1", "empire": "solarian"})
    account = await store.account_for(router.mysis_id, SERVER)
    assert account is not None and account.username == "nova1"
    password = account.password
    assert len(password) >= 16
    assert password not in reg.content and REDACTED in reg.content
    await _run(router, store, "logout", {}, 1)
    login = await _run(router, store, "login", {}, 2)
    assert not login.is_error, login.content
    # The model tries to echo and search for it; the router redacts.
    await _run(router, store, "zoea_search_messages", {"query": "password"}, 3)
    await _run(router, store, "captains_log_add", {"entry": f"my password is {password}"}, 4)
    await _run(router, store, "captains_log_list", {}, 5)
    await _run(router, store, "get_status", {}, 6)

    db = store.connection
    async with db.execute("SELECT content || reasoning || COALESCE(tool_calls, '') "
                          "FROM memories") as cur:
        stored = " ".join(row[0] for row in await cur.fetchall())
    assert password not in stored.replace(f"my password is {password}", "")
    mysis = await store.get_mysis(router.mysis_id)
    settings = ComposeSettings()
    history = await store.load_history(mysis.id, settings)
    for strategy in STRATEGIES:
        composition = compose(history, strategy, settings)
        sent = json.dumps(composition.messages) + json.dumps(await router.tool_schemas())
        assert password not in sent.replace(f"my password is {password}", ""), strategy
    assert mysis.account == "nova1"


async def test_tool_results_never_show_a_password(store, make_session) -> None:
    router = await _router(store, make_session, "nova")
    await _run(router, store, "register", {"username": "nova2", "empire": "solarian"})
    password = (await store.account_for(router.mysis_id, SERVER)).password
    result = await _run(router, store, "captains_log_add",
                        {"entry": f"remember {password}"}, 1)
    listed = await _run(router, store, "captains_log_list", {}, 2)
    assert password not in result.content + listed.content
    assert REDACTED in listed.content


async def test_login_without_an_account_says_to_register(store, make_session) -> None:
    router = await _router(store, make_session, "fresh")
    result = await router.execute(ToolCall("c", "login", "{}"))
    assert result.is_error and result.error_code == "no_account"
    assert "register" in json.loads(result.content)["error"]["message"]


async def test_the_assignment_survives_a_restart_and_the_pool_is_shared(
    store, make_session, tmp_path
) -> None:
    first = await _router(store, make_session, "alpha")
    await first.execute(ToolCall("c", "register",
                                 json.dumps({"username": "alpha1", "empire": "solarian"})))
    await store.close()
    reopened = await Store.open(tmp_path / "zoea.db")
    try:
        again = await _router(reopened, make_session, "alpha")
        login = await again.execute(ToolCall("c", "login", "{}"))
        assert not login.is_error, login.content
        assert json.loads(login.content)["player"]["username"] == "alpha1"
        # Another Mysis cannot take an account in use, but gets a free one from the pool.
        other = await _router(reopened, make_session, "bravo")
        taken = await other.execute(ToolCall("c", "login", '{"username": "alpha1"}'))
        assert taken.error_code == "account_in_use"
        await reopened.add_account(SERVER, "spare", "s3cret-spare-password")
        assert (await reopened.claim_account(other.mysis_id, SERVER)).username == "spare"
    finally:
        await reopened.close()


async def test_invalid_json_arguments_are_a_tool_error_not_a_crash(store, make_session):
    router = await _router(store, make_session, "nova")
    result = await router.execute(ToolCall("c", "travel", '{"target_poi": "main_belt"'))
    assert result.is_error and result.error_code == "invalid_json"
    assert "JSON object" in json.loads(result.content)["error"]["message"]


async def test_search_tools_are_bound_to_the_caller(store, make_session) -> None:
    mine = await _router(store, make_session, "alpha")
    theirs = await _router(store, make_session, "bravo")
    await store.add_memory(mine.mysis_id, NewMemory("user", "direct", "iron is cheap at Vega"))
    await store.add_memory(theirs.mysis_id, NewMemory("user", "direct", "iron is dear at Sol"))
    found = json.loads((await mine.execute(ToolCall(
        "c", "zoea_search_messages", '{"query": "iron", "limit": 500}'))).content)
    assert [r["snippet"] for r in found["results"]] == ["[iron] is cheap at Vega"]
    empty = await mine.execute(ToolCall("c", "zoea_search_messages", '{"query": ""}'))
    assert empty.is_error


async def test_broadcast_and_swarm_status_go_to_the_orchestrator(store, make_session):
    swarm = FakeSwarm()
    router = await _router(store, make_session, "alpha", swarm=swarm)
    sent = await router.execute(ToolCall("c", "zoea_broadcast", '{"message": "ore at belt"}'))
    assert json.loads(sent.content) == {"sent": True, "recipients": 2}
    assert swarm.sent == [(router.mysis_id, "ore at belt")]
    status = json.loads((await router.execute(ToolCall("c", "zoea_swarm_status", "{}"))).content)
    assert status["you"] == router.mysis_id


async def test_results_feed_the_game_state_cache(store, make_session) -> None:
    cache = GameStateCache()
    router = await _router(store, make_session, "alpha", cache=cache)
    await router.execute(ToolCall("c", "register",
                                  json.dumps({"username": "carto", "empire": "solarian"})))
    await router.execute(ToolCall("c", "get_status", "{}"))
    summary = cache.summary("carto")
    assert "Credits:" in summary and "sol_central" in summary
    assert router.account == "carto"
