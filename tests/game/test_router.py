"""The tool router: stable tools, credentials filled in, passwords never shown."""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any

from zoea_tui.core.compose import compose
from zoea_tui.core.composition import ComposeSettings
from zoea_tui.core.game_tool import GAME_TOOL, guide_commands
from zoea_tui.core.redaction import SESSION_MASK
from zoea_tui.core.strategies import STRATEGIES
from zoea_tui.core.tokens import count_tokens, tools_tokens
from zoea_tui.core.types import ToolCall
from zoea_tui.game.accounts import AccountPool
from zoea_tui.game.errors import GameConnectionError
from zoea_tui.game.router import REDACTED, ToolRouter
from zoea_tui.game.state_cache import GameStateCache
from zoea_tui.orchestrator.swarm_tools import (
    ORCHESTRATOR_TOOL_NAMES,
    ORCHESTRATOR_TOOLS,
    READ_PAGE_CHARS,
    SEARCH_ANSWER_CHARS,
    SEARCH_ANSWER_TOKENS,
    SEARCH_HIT_CHARS,
    swarm_router,
)
from zoea_tui.sim.errors import GameError
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
    """A Mysis's router as the swarm makes it: the game's tools and the swarm's own."""
    mysis = await store.find_mysis(name) or await store.create_mysis(name)
    return swarm_router(AccountPool(store, mysis.id, SERVER), make_session(name), **kwargs)


async def _run(
    router: ToolRouter, store: Store, name: str, args: dict | str, index: int = 0
) -> Any:
    """Run a call the way the orchestrator will: store the call and its result."""
    raw = args if isinstance(args, str) else json.dumps(args)
    call = ToolCall(id=f"c{index}", name=name, arguments=raw)
    await store.add_memory(router.mysis_id, NewMemory("assistant", "llm", "", tool_calls=(call,)))
    result = await router.execute(call)
    await store.add_memory(
        router.mysis_id,
        NewMemory("tool", "tool", result.content, tool_call_id=call.id, tool_name=name),
    )
    return result


async def test_a_router_without_own_tools_offers_and_runs_the_games_only(store, make_session):
    mysis = await store.create_mysis("solo")
    router = ToolRouter(AccountPool(store, mysis.id, SERVER), make_session("solo"))
    names = [t["function"]["name"] for t in await router.tool_schemas()]
    assert names and not any(n.startswith("zoea_") for n in names)
    assert names == sorted(names)
    # A zoea_* call goes to the game, which knows no such command.
    result = await router.execute(ToolCall("c", "zoea_swarm_status", "{}"))
    assert result.is_error, result.content
    # The account pool is the router's own: login, register and masking work without them.
    await router.execute(ToolCall("r", "register", '{"username": "solo1", "empire": "solarian"}'))
    password = (await store.account_for(mysis.id, SERVER)).password
    assert router.account == "solo1" and router.pool.account == "solo1"
    assert router.redact(f"pw {password}") == f"pw {REDACTED}"


async def test_tools_are_ours_first_then_the_games_sorted_and_stable(store, make_session):
    router = await _router(store, make_session, "nova")
    tools = await router.tool_schemas()
    names = [t["function"]["name"] for t in tools]
    ours = [n for n in names if n.startswith("zoea_")]
    assert names[: len(ours)] == ours and set(ours) == ORCHESTRATOR_TOOL_NAMES
    assert ours == [
        "zoea_search_messages",
        "zoea_search_reasoning",
        "zoea_search_broadcasts",
        "zoea_read_memory",
        "zoea_broadcast",
        "zoea_swarm_status",
    ]
    game = names[len(ours) :]
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
    async with db.execute(
        "SELECT content || reasoning || COALESCE(tool_calls, '') FROM memories"
    ) as cur:
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
    result = await _run(router, store, "captains_log_add", {"entry": f"remember {password}"}, 1)
    listed = await _run(router, store, "captains_log_list", {}, 2)
    assert password not in result.content + listed.content
    assert REDACTED in listed.content


async def test_a_game_refusal_carrying_the_password_is_masked_like_a_result(
    store, make_session, host, monkeypatch
) -> None:
    """A refusal that echoes the password (its message and its details) reaches the
    model, the memories and the error text with the mask, never the value."""
    router = await _router(store, make_session, "nova")
    await _run(router, store, "register", {"username": "nova3", "empire": "solarian"})
    password = (await store.account_for(router.mysis_id, SERVER)).password
    session_id = "5e55" * 8
    real_call = host.call

    async def echoing(key, tool, args):
        if tool == "captains_log_add":
            raise GameError(
                "invalid_payload",
                f"entry refused for password {password}",
                password=password,
                session_id=session_id,
            )
        return await real_call(key, tool, args)

    monkeypatch.setattr(host, "call", echoing)
    refused = await _run(router, store, "captains_log_add", {"entry": "hello"}, 1)
    assert refused.is_error and refused.error_code == "invalid_payload"
    for text in (refused.content, refused.error_message or ""):
        assert password not in text and session_id not in text, text
        assert REDACTED in text
    assert json.loads(refused.content)["error"]["session_id"] == SESSION_MASK
    async with store.connection.execute("SELECT content FROM memories") as cur:
        stored = " ".join(row[0] for row in await cur.fetchall())
    assert password not in stored and session_id not in stored


async def test_session_ids_never_reach_a_model_the_memories_or_the_state_cache(
    store, make_session
) -> None:
    cache = GameStateCache()
    router = await _router(store, make_session, "nova", cache=cache)
    registered = await _run(router, store, "register", {"username": "nova4", "empire": "solarian"})
    await _run(router, store, "logout", {}, 1)
    login = await _run(router, store, "login", {}, 2)
    password = (await store.account_for(router.mysis_id, SERVER)).password
    for result in (registered, login):
        data = json.loads(result.content)
        assert data["session_id"] == SESSION_MASK, result.content
    assert json.loads(registered.content)["password"] == REDACTED
    for tool in ("register", "login"):
        kept = cache.latest("nova4", tool)
        assert kept is not None and kept.data["session_id"] == SESSION_MASK
        assert password not in json.dumps(kept.data)
    assert cache.latest("nova4", "register").data["password"] == REDACTED


async def test_login_without_an_account_says_to_register(store, make_session) -> None:
    router = await _router(store, make_session, "fresh")
    result = await router.execute(ToolCall("c", "login", "{}"))
    assert result.is_error and result.error_code == "no_account"
    assert "register" in json.loads(result.content)["error"]["message"]


async def test_the_assignment_survives_a_restart_and_the_pool_is_shared(
    store, make_session, tmp_path
) -> None:
    first = await _router(store, make_session, "alpha")
    await first.execute(
        ToolCall("c", "register", json.dumps({"username": "alpha1", "empire": "solarian"}))
    )
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


async def test_a_call_cut_at_max_tokens_is_answered_with_a_cut_off_error(store, make_session):
    router = await _router(store, make_session, "nova")
    cut = await router.execute(ToolCall("c", "travel", '{"target'), cut_off=True)
    assert cut.is_error and cut.error_code == "cut_off"
    error = json.loads(cut.content)["error"]
    assert error["code"] == "cut_off"
    assert "travel was cut off at max_tokens" in error["message"]
    assert "'{\"target'" in error["message"], "the model sees what arrived"
    # A cut answer's call whose arguments are whole runs as usual (the game answers it).
    whole = await router.execute(ToolCall("d", "get_status", "{}"), cut_off=True)
    assert whole.error_code == "not_authenticated", whole.content


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
    found = json.loads(
        (
            await mine.execute(
                ToolCall("c", "zoea_search_messages", '{"query": "iron", "limit": 500}')
            )
        ).content
    )
    assert [r["snippet"] for r in found["results"]] == ["[iron] is cheap at Vega"]
    assert [r["content"] for r in found["results"]] == ["iron is cheap at Vega"]
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
    await router.execute(
        ToolCall("c", "register", json.dumps({"username": "carto", "empire": "solarian"}))
    )
    await router.execute(ToolCall("c", "get_status", "{}"))
    summary = cache.summary("carto")
    assert "Credits:" in summary and "sol_central" in summary
    assert router.account == "carto"


# -- the compact game tool ---------------------------------------------------------------


def _game(command: str, args: Any = None, **extra: Any) -> str:
    """The arguments of a compact ``game`` call."""
    body: dict[str, Any] = {"command": command, **extra}
    if args is not None:
        body["args"] = args
    return json.dumps(body)


async def test_compact_tools_are_ours_then_one_game_tool_listing_every_command(
    store, make_session
) -> None:
    router = await _router(store, make_session, "nova")
    full = await router.tool_schemas()
    compact = await router.tool_schemas("compact")
    assert compact is await router.tool_schemas("compact"), "the same list until the game's changes"
    assert await router.tool_schemas() is full, "each mode keeps its own list"
    assert compact[:6] == full[:6], "the zoea_* tools stay whole"
    (game,) = compact[6:]
    assert game["function"]["name"] == GAME_TOOL
    assert game["function"]["parameters"]["required"] == ["command"]
    description = game["function"]["description"]
    names = [t["function"]["name"] for t in full[6:]]
    assert guide_commands(description) == frozenset(names)
    lines = re.findall(r"[a-z_]+\([^)]*\)", description.partition("Commands: ")[2])
    assert [line.split("(")[0] for line in lines] == names, "each once, sorted"
    assert "buy(item_id, quantity:int)" in lines and "login()" in lines
    assert any(line.startswith("register(username, empire:solarian|") for line in lines)
    assert "password" not in description and "session_id" not in description
    assert tools_tokens(compact) < tools_tokens(full) * 0.3


async def test_a_game_call_runs_the_command_it_names(store, make_session) -> None:
    cache = GameStateCache()
    router = await _router(store, make_session, "alpha", cache=cache)
    registered = await router.execute(
        ToolCall("c", "game", _game("register", {"username": "carto", "empire": "solarian"}))
    )
    assert not registered.is_error, registered.content
    password = (await store.account_for(router.mysis_id, SERVER)).password
    assert password not in registered.content and REDACTED in registered.content
    status = await router.execute(ToolCall("c", "game", _game("get_status")))
    direct = await router.execute(ToolCall("c", "get_status", "{}"))
    assert json.loads(status.content)["player"] == json.loads(direct.content)["player"]
    assert "sol_central" in cache.summary("carto"), "the cache knows the command, not 'game'"
    # args as a JSON text, and arguments beside command: both understood.
    trip = await router.execute(
        ToolCall("c", "game", _game("travel", json.dumps({"target_poi": "main_belt"})))
    )
    assert not trip.is_error, trip.content
    log = await router.execute(ToolCall("c", "game", _game("captains_log_add", entry="hi")))
    assert not log.is_error, log.content
    # login through game: Zoea Nova fills the credentials; no password comes back.
    await router.execute(ToolCall("c", "game", _game("logout", {})))
    login = await router.execute(ToolCall("c", "game", _game("login", {})))
    assert not login.is_error and password not in login.content, login.content
    # The zoea_* tools are reached through game too.
    found = await router.execute(
        ToolCall("c", "game", _game("zoea_search_messages", {"query": "x"}))
    )
    assert not found.is_error, found.content


async def test_a_bad_game_call_is_a_tool_error_for_the_model_not_a_crash(
    store, make_session
) -> None:
    router = await _router(store, make_session, "nova")
    cases = [
        (_game("get_stauts"), "unknown_command", "Did you mean get_status"),
        (_game("game"), "unknown_command", "is not a game command"),
        (_game("travel", ["main_belt"]), "invalid_arguments", "args must be a JSON object"),
        (_game("travel", "main_belt"), "invalid_arguments", 'got "main_belt"'),
        (_game("travel", 5), "invalid_arguments", "got 5"),
        (json.dumps({"args": {}}), "invalid_arguments", "command is required"),
        (json.dumps({"command": 3}), "invalid_arguments", "command is required"),
        ('{"command": "get_status"', "invalid_json", "JSON object"),
    ]
    for arguments, code, words in cases:
        result = await router.execute(ToolCall("c", "game", arguments))
        assert result.is_error and result.error_code == code, (arguments, result.content)
        assert words in json.loads(result.content)["error"]["message"], result.content


# -- search answers and zoea_read_memory ------------------------------------------------


class _NoGame:
    """A game session that must not be used: the ``zoea_*`` tools never reach the game."""

    relogin = None

    async def list_tools(self) -> list:
        return []

    async def call(self, name: str, args: dict) -> Any:
        raise AssertionError(f"the game was called: {name}")


async def _offline(store: Store, name: str) -> ToolRouter:
    """A router whose Mysis has no game session (search and read need none)."""
    mysis = await store.find_mysis(name) or await store.create_mysis(name)
    return swarm_router(AccountPool(store, mysis.id, SERVER), _NoGame())  # type: ignore[arg-type]


async def _call(router: ToolRouter, name: str, args: dict | str) -> Any:
    raw = args if isinstance(args, str) else json.dumps(args)
    return await router.execute(ToolCall("c", name, raw))


async def _json(router: ToolRouter, name: str, args: dict | str) -> Any:
    result = await _call(router, name, args)
    assert not result.is_error, result.content
    return json.loads(result.content)


def _error(result: Any) -> tuple[str, str]:
    assert result.is_error
    error = json.loads(result.content)["error"]
    assert error["code"] == result.error_code
    return error["code"], error["message"]


def _big_text(chars: int) -> str:
    """A tool-result-like text with quotes, newlines and non-ASCII, ``chars`` long."""
    parts, size, n = [], 0, 0
    while size < chars:
        piece = (
            json.dumps({"id": f"poi_{n}", "name": f"Bélt «{n}»", "ore": n % 7}, ensure_ascii=False)
            + "\n"
        )
        parts.append(piece)
        size += len(piece)
        n += 1
    return "".join(parts)[:chars]


async def test_search_hits_give_content_role_source_time_and_tick(store):
    router = await _offline(store, "alpha")
    stored = await store.add_memory(
        router.mysis_id,
        NewMemory(
            "tool",
            "tool",
            '{"poi": "Vega belt", "ore": "iron"}',
            tool_call_id="c1",
            tool_name="get_poi",
            game_tick=321,
        ),
    )
    await store.add_memory(router.mysis_id, NewMemory("user", "direct", "mine iron at Vega"))
    found = await _json(router, "zoea_search_messages", {"query": "vega iron"})
    assert found["query"] == "vega iron" and found["count"] == 2
    hit = next(r for r in found["results"] if r["memory_id"] == stored.id)
    assert hit["role"] == "tool" and hit["source"] == "tool"
    assert hit["tool_name"] == "get_poi" and hit["game_tick"] == 321
    assert hit["content"] == stored.content
    assert "[Vega]" in hit["snippet"] and "[iron]" in hit["snippet"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", hit["created_at"])
    when = datetime.fromisoformat(hit["created_at"].replace("Z", "+00:00"))
    assert when.tzinfo is not None
    assert abs(when.timestamp() - stored.created_at) < 1
    direct = next(r for r in found["results"] if r["memory_id"] != stored.id)
    assert direct["role"] == "user" and direct["source"] == "direct"
    assert "tool_name" not in direct and "game_tick" not in direct


async def test_reasoning_search_gives_the_reasoning(store) -> None:
    router = await _offline(store, "alpha")
    memory = await store.add_memory(
        router.mysis_id,
        NewMemory(
            "assistant",
            "llm",
            "Heading out.",
            reasoning="Travel cooldown is long, so refuel first.",
        ),
    )
    found = await _json(router, "zoea_search_reasoning", {"query": "cooldown"})
    [hit] = found["results"]
    assert hit["memory_id"] == memory.id and hit["role"] == "assistant"
    assert hit["reasoning"] == "Travel cooldown is long, so refuel first."
    assert hit["content"] == "Heading out." and "[cooldown]" in hit["snippet"]
    assert (await _json(router, "zoea_search_messages", {"query": "cooldown"}))["count"] == 0
    long = "Why wait: " + "the jump drive must cool down. " * 100
    thought = await store.add_memory(
        router.mysis_id, NewMemory("assistant", "llm", "", reasoning=long)
    )
    found = await _json(router, "zoea_search_reasoning", {"query": "jump drive"})
    [hit] = found["results"]
    read = f"zoea_read_memory(memory_id={thought.id}, offset={SEARCH_HIT_CHARS}, part='reasoning')"
    assert hit["reasoning"] == (
        f"{long[:SEARCH_HIT_CHARS]}… [{len(long) - SEARCH_HIT_CHARS} more characters: {read}]"
    )
    rest = await _json(
        router,
        "zoea_read_memory",
        {"memory_id": thought.id, "part": "reasoning", "offset": SEARCH_HIT_CHARS},
    )
    assert rest["reasoning"] == long[SEARCH_HIT_CHARS:] and rest["next_offset"] is None


async def test_broadcast_search_gives_sender_content_and_time(store) -> None:
    router = await _offline(store, "alpha")
    broadcast = await store.add_broadcast("enemy spotted near Sol", game_tick=9)
    found = await _json(router, "zoea_search_broadcasts", {"query": "enemy"})
    [hit] = found["results"]
    assert hit["broadcast_id"] == broadcast.id and hit["sender"] == "commander"
    assert hit["content"] == "enemy spotted near Sol" and hit["game_tick"] == 9
    assert hit["created_at"].endswith("Z")


async def test_the_default_search_limit_is_20(store) -> None:
    router = await _offline(store, "alpha")
    await store.add_memories(
        router.mysis_id, [NewMemory("user", "direct", f"copper order {n}") for n in range(130)]
    )
    assert (await _json(router, "zoea_search_messages", {"query": "copper"}))["count"] == 20
    assert (await _json(router, "zoea_search_messages", {"query": "copper", "limit": 25}))[
        "count"
    ] == 25
    assert (await _json(router, "zoea_search_messages", {"query": "copper", "limit": 5000}))[
        "count"
    ] == 100
    schemas = {t["function"]["name"]: t["function"] for t in await router.tool_schemas()}
    for name in ("zoea_search_messages", "zoea_search_reasoning", "zoea_search_broadcasts"):
        limit = schemas[name]["parameters"]["properties"]["limit"]
        assert "default 20" in limit["description"] and limit["maximum"] == 100


async def test_a_huge_hit_is_bounded_and_says_how_to_read_the_rest(store):
    router = await _offline(store, "alpha")
    original = "iron manifest\n" + _big_text(2_000_000)
    memory = await store.add_memory(
        router.mysis_id,
        NewMemory("tool", "tool", original, tool_call_id="c1", tool_name="get_cargo"),
    )
    result = await _call(router, "zoea_search_messages", {"query": "manifest"})
    assert len(result.content) <= SEARCH_ANSWER_CHARS
    [hit] = json.loads(result.content)["results"]
    shown, marker = hit["content"].split("… [", 1)
    assert shown == original[:SEARCH_HIT_CHARS]
    more = len(original) - SEARCH_HIT_CHARS
    assert marker == (
        f"{more} more characters: "
        f"zoea_read_memory(memory_id={memory.id}, offset={SEARCH_HIT_CHARS})]"
    )
    # Following the marker gives the very next characters.
    page = await _json(
        router, "zoea_read_memory", {"memory_id": memory.id, "offset": SEARCH_HIT_CHARS}
    )
    assert original[SEARCH_HIT_CHARS:].startswith(page["content"]) and page["content"]


async def test_many_big_hits_keep_the_answer_bounded_best_first(store):
    router = await _offline(store, "alpha")
    stored = await store.add_memories(
        router.mysis_id,
        [
            NewMemory("tool", "tool", "nickel " + _big_text(6000), tool_name="get_poi")
            for _ in range(100)
        ],
    )
    for limit in (20, 100):
        result = await _call(router, "zoea_search_messages", {"query": "nickel", "limit": limit})
        answer = json.loads(result.content)
        assert len(result.content) <= SEARCH_ANSWER_CHARS
        assert count_tokens(result.content) <= SEARCH_ANSWER_TOKENS
        rows = answer["results"]
        ids = [r["memory_id"] for r in rows] + answer.get("omitted_ids", [])
        assert answer["count"] == limit and len(ids) == limit
        assert set(ids) <= {m.id for m in stored} and len(set(ids)) == limit
        whole = [r for r in rows if "… [" in r["content"]]
        lean = [r for r in rows if r not in whole]
        assert rows == whole + lean and len(whole) >= 3, "the best hits keep their text"
        assert all(
            r["content"] == f"[not shown: zoea_read_memory(memory_id={r['memory_id']})]"
            for r in lean
        )
        assert all("[nickel]" in r["snippet"] and "created_at" in r for r in rows)
        if limit == 20:
            assert lean, "lower hits keep their snippets"
        if limit == 100:
            assert answer["omitted_ids"] and "omitted_ids" in answer["note"]


async def test_read_memory_pages_a_2mb_result_to_its_end(store) -> None:
    router = await _offline(store, "alpha")
    original = _big_text(2 * 1024 * 1024)
    memory = await store.add_memory(
        router.mysis_id,
        NewMemory(
            "tool", "tool", original, tool_call_id="call_7", tool_name="get_map", game_tick=77
        ),
    )
    pages: list[str] = []
    offset: int | None = 0
    while offset is not None:
        result = await _call(router, "zoea_read_memory", {"memory_id": memory.id, "offset": offset})
        assert not result.is_error, result.content[:300]
        page = json.loads(result.content)
        assert page["offset"] == offset and page["total_chars"] == len(original)
        assert 0 < len(page["content"]) <= READ_PAGE_CHARS
        assert count_tokens(result.content) < 4000, "fits the composer's per-result cap"
        pages.append(page["content"])
        offset = page["next_offset"]
        assert offset is None or offset == page["offset"] + len(page["content"])
    assert "".join(pages) == original
    assert len(pages) < 400
    assert {
        k: page[k]
        for k in ("memory_id", "role", "source", "tool_name", "tool_call_id", "game_tick", "part")
    } == {
        "memory_id": memory.id,
        "role": "tool",
        "source": "tool",
        "tool_name": "get_map",
        "tool_call_id": "call_7",
        "game_tick": 77,
        "part": "content",
    }
    assert page["created_at"].endswith("Z")
    end = await _json(router, "zoea_read_memory", {"memory_id": memory.id, "offset": len(original)})
    assert end["content"] == "" and end["next_offset"] is None


async def test_read_memory_reads_reasoning_and_tool_calls(store) -> None:
    router = await _offline(store, "alpha")
    call = ToolCall("c9", "captains_log_add", json.dumps({"entry": "x" * 50}))
    memory = await store.add_memory(
        router.mysis_id,
        NewMemory("assistant", "llm", "", reasoning="Log it before leaving.", tool_calls=(call,)),
    )
    whole = await _json(router, "zoea_read_memory", {"memory_id": f"#{memory.id}"})
    assert whole["content"] == "" and whole["next_offset"] is None
    assert whole["other_parts"] == {
        "reasoning": 22,
        "tool_calls": whole["other_parts"]["tool_calls"],
    }
    reasoning = await _json(
        router, "zoea_read_memory", {"memory_id": memory.id, "part": "reasoning"}
    )
    assert reasoning["reasoning"] == "Log it before leaving."
    calls = await _json(
        router, "zoea_read_memory", {"memory_id": str(memory.id), "part": "tool_calls"}
    )
    assert json.loads(calls["tool_calls"]) == [
        {"id": "c9", "name": "captains_log_add", "arguments": call.arguments}
    ]


async def test_read_memory_refuses_another_myses_memory(store) -> None:
    mine = await _offline(store, "alpha")
    theirs = await _offline(store, "bravo")
    secret = await store.add_memory(theirs.mysis_id, NewMemory("user", "direct", "bravo only"))
    code, message = _error(await _call(mine, "zoea_read_memory", {"memory_id": secret.id}))
    assert code == "not_found" and f"#{secret.id}" in message and "bravo only" not in message
    code, _ = _error(await _call(mine, "zoea_read_memory", {"memory_id": 999_999}))
    assert code == "not_found"
    assert (await _json(theirs, "zoea_read_memory", {"memory_id": secret.id}))[
        "content"
    ] == "bravo only"


async def test_read_memory_refuses_bad_arguments(store) -> None:
    router = await _offline(store, "alpha")
    memory = await store.add_memory(router.mysis_id, NewMemory("user", "direct", "twelve chars"))
    for args in (
        {},
        {"memory_id": "abc"},
        {"memory_id": 1.5},
        {"memory_id": True},
        {"memory_id": None},
        {"memory_id": 0},
        {"memory_id": -3},
        {"memory_id": [memory.id]},
        {"memory_id": memory.id, "offset": -1},
        {"memory_id": memory.id, "offset": "soon"},
        {"memory_id": memory.id, "offset": 13},
        {"memory_id": memory.id, "part": "secrets"},
    ):
        code, message = _error(await _call(router, "zoea_read_memory", args))
        assert code == "invalid_arguments", args
        assert message
    code, _ = _error(await _call(router, "zoea_read_memory", "[1]"))
    assert code == "invalid_json"
    ok = await _json(router, "zoea_read_memory", {"memory_id": memory.id, "offset": None})
    assert ok["content"] == "twelve chars"


async def test_read_memory_never_shows_a_password_even_across_pages(store, make_session):
    router = await _router(store, make_session, "nova")
    await _run(router, store, "register", {"username": "nova3", "empire": "solarian"})
    password = (await store.account_for(router.mysis_id, SERVER)).password
    # A password the commander typed, straddling the first page's end.
    text = "x" * (READ_PAGE_CHARS - 5) + password + " y" * 10
    memory = await store.add_memory(router.mysis_id, NewMemory("user", "direct", text))
    fresh = await _router(store, make_session, "nova")  # knows no secret yet
    seen, offset = "", 0
    while offset is not None:
        page = await _json(fresh, "zoea_read_memory", {"memory_id": memory.id, "offset": offset})
        seen += page["content"]
        offset = page["next_offset"]
    assert password not in seen and REDACTED in seen
    found = await _call(fresh, "zoea_search_messages", {"query": "xxx"})
    assert password not in found.content


async def test_a_lost_login_is_renewed_with_the_pooled_account(store, make_session, host) -> None:
    router = await _router(store, make_session, "nova")
    await _run(router, store, "register", {"username": "nova5", "empire": "solarian"})
    host.world._sessions.clear()  # the server forgot every login
    status = await router.execute(ToolCall("c1", "get_status", "{}"))
    assert not status.is_error, status.content
    assert json.loads(status.content)["player"]["username"] == "nova5"


async def test_an_unreachable_game_is_a_tool_error_that_says_so(store, monkeypatch) -> None:
    router = await _offline(store, "alpha")
    password = "f00d" * 8
    await store.add_account(SERVER, "alpha1", password, mysis_id=router.mysis_id)

    async def unreachable(name: str, args: dict) -> Any:
        raise GameConnectionError(f"connection refused (sent {password})")

    monkeypatch.setattr(router.session, "call", unreachable)
    result = await router.execute(ToolCall("c1", "get_status", "{}"))
    said = f"connection refused (sent {REDACTED})"
    assert result.is_error and result.unreachable and result.error_code == "game_unreachable"
    assert result.error_message == said
    assert json.loads(result.content) == {"error": {"code": "game_unreachable", "message": said}}


async def test_a_long_broadcast_hit_is_cut_with_what_is_left_said(store) -> None:
    router = await _offline(store, "alpha")
    text = "enemy " + "x" * (SEARCH_HIT_CHARS + 494)
    await store.add_broadcast(text)
    [hit] = (await _json(router, "zoea_search_broadcasts", {"query": "enemy"}))["results"]
    assert hit["content"] == f"{text[:SEARCH_HIT_CHARS]}… [500 more characters not shown]"


async def test_read_memory_names_only_the_other_parts_a_memory_has(store) -> None:
    router = await _offline(store, "alpha")
    memory = await store.add_memory(router.mysis_id, NewMemory("user", "direct", "mine copper"))
    page = await _json(router, "zoea_read_memory", {"memory_id": memory.id})
    assert page["content"] == "mine copper" and "other_parts" not in page
    calls = await _json(router, "zoea_read_memory", {"memory_id": memory.id, "part": "tool_calls"})
    assert calls["tool_calls"] == "" and calls["total_chars"] == 0


# -- substring search, another Mysis, exact matches (issue 29) ---------------------------


async def test_search_finds_parts_of_words_in_any_case(store) -> None:
    router = await _offline(store, "alpha")
    iron = await store.add_memory(router.mysis_id, NewMemory("user", "direct", "Mine IRON ore"))
    found = await _json(router, "zoea_search_messages", {"query": "ron"})
    assert [h["memory_id"] for h in found["results"]] == [iron.id]
    assert found["results"][0]["snippet"] == "Mine I[RON] ore"
    assert (await _json(router, "zoea_search_messages", {"query": "or"}))["count"] == 1
    assert (await _json(router, "zoea_search_messages", {"query": "ron gold"}))["count"] == 0


async def test_exact_search_wants_the_whole_query_with_its_case(store) -> None:
    router = await _offline(store, "alpha")
    await store.add_memory(router.mysis_id, NewMemory("user", "direct", "Mine IRON ore"))
    exact = {"query": "IRON ore", "exact": True}
    assert (await _json(router, "zoea_search_messages", exact))["count"] == 1
    for query in ("iron ore", "ore IRON"):
        found = await _json(router, "zoea_search_messages", {"query": query, "exact": True})
        assert found["count"] == 0 and found["exact"] is True
    code, message = _error(
        await _call(router, "zoea_search_messages", {"query": "x", "exact": "sometimes"})
    )
    assert code == "invalid_arguments" and "exact must be true or false" in message


async def test_search_and_read_reach_another_mysis_of_the_swarm(store) -> None:
    router = await _offline(store, "alpha")
    beta = await store.create_mysis("beta")
    long = "Vega prices: " + "iron 14 cr; " * 200
    memory = await store.add_memory(
        beta.id,
        NewMemory("tool", "tool", long, tool_call_id="c1", tool_name="view_market"),
    )
    assert (await _json(router, "zoea_search_messages", {"query": "Vega"}))["count"] == 0
    for who in (beta.id, str(beta.id), "beta"):
        found = await _json(router, "zoea_search_messages", {"query": "Vega", "mysis_id": who})
        assert found["mysis_id"] == beta.id and found["count"] == 1
    [hit] = found["results"]
    read = f"zoea_read_memory(memory_id={memory.id}, offset={SEARCH_HIT_CHARS}, mysis_id={beta.id})"
    assert hit["content"].endswith(f"more characters: {read}]")
    page = await _json(
        router,
        "zoea_read_memory",
        {"memory_id": memory.id, "offset": SEARCH_HIT_CHARS, "mysis_id": beta.id},
    )
    assert page["mysis_id"] == beta.id and page["content"] == long[SEARCH_HIT_CHARS:]
    own = await _call(router, "zoea_read_memory", {"memory_id": memory.id})
    assert _error(own)[0] == "not_found", "without mysis_id a read stays among its own"


async def test_a_mysis_outside_the_swarm_is_refused_with_a_message(store) -> None:
    router = await _offline(store, "alpha")
    for who in (999, "nobody"):
        for tool in ("zoea_search_messages", "zoea_search_reasoning", "zoea_read_memory"):
            args = {"query": "iron", "memory_id": 1, "mysis_id": who}
            code, message = _error(await _call(router, tool, args))
            assert code == "not_found", tool
            assert "in your swarm" in message and "zoea_swarm_status" in message


async def test_reasoning_hits_carry_what_was_answered(store) -> None:
    router = await _offline(store, "alpha")
    await store.add_memory(
        router.mysis_id,
        NewMemory(
            "assistant",
            "llm",
            "",
            reasoning="Cargo is full, so selling at Sol.",
            tool_calls=(ToolCall("c1", "sell", '{"item_id": "iron_ore"}'),),
        ),
    )
    [hit] = (await _json(router, "zoea_search_reasoning", {"query": "SELLING"}))["results"]
    assert hit["content"] == "" and hit["tool_calls"] == ["sell"]
    assert hit["reasoning"] == "Cargo is full, so selling at Sol."


async def test_search_schemas_offer_exact_and_another_mysis() -> None:
    by_name = {t["name"]: t["parameters"]["properties"] for t in ORCHESTRATOR_TOOLS}
    for name in ("zoea_search_messages", "zoea_search_reasoning", "zoea_read_memory"):
        assert by_name[name]["mysis_id"]["type"] == "integer", name
    for name in ("zoea_search_messages", "zoea_search_reasoning", "zoea_search_broadcasts"):
        assert by_name[name]["exact"]["type"] == "boolean", name
    assert "mysis_id" not in by_name["zoea_search_broadcasts"], "broadcasts belong to all"
