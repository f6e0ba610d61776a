"""What the router shows a model, exactly: the tool schemas it sends and the words of
its refusals (each found missing by mutation testing, docs/MUTATION.md)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from zoea_tui.core.redaction import PASSWORD_MASK as REDACTED
from zoea_tui.core.types import ToolCall
from zoea_tui.game.accounts import AccountPool
from zoea_tui.game.adapter import ToolOutcome
from zoea_tui.game.errors import GameToolError
from zoea_tui.game.router import ToolRouter
from zoea_tui.game.session import ToolInfo
from zoea_tui.game.state_cache import GameStateCache
from zoea_tui.orchestrator.swarm_tools import ORCHESTRATOR_TOOLS, swarm_router
from zoea_tui.storage import Store

SERVER = "embedded"
SCHEMA = {"type": "object", "properties": {"target": {"type": "string"}}}


class ListedGame:
    """A game that lists the given tools and is never called."""

    relogin = None

    def __init__(self, *tools: ToolInfo) -> None:
        self.tools = list(tools)

    async def list_tools(self) -> list[ToolInfo]:
        return self.tools

    async def call(self, name: str, args: dict) -> Any:
        raise AssertionError(f"the game was called: {name}")


async def _router(store: Store, *tools: ToolInfo) -> ToolRouter:
    mysis = await store.create_mysis("nova")
    return swarm_router(AccountPool(store, mysis.id, SERVER), ListedGame(*tools))  # type: ignore[arg-type]


def _tool(name: str, schema: dict[str, Any] | None = None) -> ToolInfo:
    return ToolInfo(name, f"{name} does things.", schema)  # type: ignore[arg-type]


async def test_every_tool_is_an_openai_function_with_its_description(store: Store) -> None:
    router = await _router(store, _tool("mine", SCHEMA))
    tools = await router.tool_schemas()
    assert all(set(t) == {"type", "function"} and t["type"] == "function" for t in tools)
    for tool, ours in zip(tools, ORCHESTRATOR_TOOLS, strict=False):
        assert tool["function"] == {
            "name": ours["name"],
            "description": ours["description"],
            "parameters": ours["parameters"],
        }
    assert tools[-1]["function"] == {
        "name": "mine",
        "description": "mine does things.",
        "parameters": SCHEMA,
    }
    assert await router.tool_schemas("full") is tools, "full is the default"


async def test_a_game_tools_schema_is_completed_and_cleared_of_credentials(store: Store) -> None:
    router = await _router(
        store,
        _tool("dock"),  # no schema at all
        _tool("jump", {"properties": {"target": {"type": "string"}}}),  # no type
        _tool(
            "sell",
            {
                "type": "object",
                "properties": {"session_id": {"type": "string"}, "item": {"type": "string"}},
                "required": ["session_id", "item"],
            },
        ),
        _tool(
            "status",
            {
                "type": "object",
                "properties": {"session_id": {"type": "string"}},
                "required": ["session_id"],
            },
        ),
        _tool(
            "login",
            {
                "type": "object",
                "properties": {"username": {}, "password": {}},
                "required": ["username", "password"],
            },
        ),
    )
    game = {
        t["function"]["name"]: t["function"]
        for t in await router.tool_schemas()
        if not t["function"]["name"].startswith("zoea_")
    }
    assert game["dock"]["parameters"] == {"type": "object", "properties": {}}
    assert game["jump"]["parameters"] == {
        "properties": {"target": {"type": "string"}},
        "type": "object",
    }
    assert game["sell"]["parameters"] == {
        "type": "object",
        "properties": {"item": {"type": "string"}},
        "required": ["item"],
    }
    assert game["status"]["parameters"] == {"type": "object", "properties": {}}
    assert game["login"] == {
        "name": "login",
        "description": "Log in to your game account. Zoea Nova fills in the credentials: "
        "call it with no arguments.",
        "parameters": {"type": "object", "properties": {}},
    }


def _refusal(content: str) -> tuple[str, str]:
    error = json.loads(content)["error"]
    assert set(error) == {"code", "message"}
    return error["code"], error["message"]


TAIL = " The game tool's description lists every command and its arguments."


@pytest.mark.parametrize(
    ("command", "message"),
    [
        ("sel", "'sel' is not a game command. Did you mean sell?" + TAIL),
        (
            "mine_or",
            "'mine_or' is not a game command. Did you mean mine_ort or mine_oro or mine_ore?"
            + TAIL,
        ),
        ("zzz", "'zzz' is not a game command." + TAIL),
        ("mîne_ïce", "'mîne_ïce' is not a game command. Did you mean mine_ore?" + TAIL),
        ("x" * 58, "'" + "x" * 58 + "' is not a game command." + TAIL),
        ("x" * 59, "'" + "x" * 56 + "... is not a game command." + TAIL),
    ],
    ids=["one", "three-of-four", "none", "non-ascii", "60-shown", "61-cut"],
)
async def test_an_unknown_game_command_is_refused_with_the_closest_names(
    store: Store, command: str, message: str
) -> None:
    names = ("sell", "mine_ore", "mine_orb", "mine_ort", "mine_oro")
    router = await _router(store, *(_tool(n, SCHEMA) for n in names))
    call = ToolCall("c1", "game", json.dumps({"command": command}, ensure_ascii=False))
    result = await router.execute(call)
    assert result.is_error and result.error_code == "unknown_command"
    assert _refusal(result.content) == ("unknown_command", message)
    assert "\\u" not in result.content, "characters as they are, not escaped"


async def test_a_lost_session_without_an_account_is_refused_with_no_account(
    store: Store,
) -> None:
    """The session's log-in-again hook (``GameSession.relogin``) set by the router."""
    game = ListedGame()
    mysis = await store.create_mysis("nova")
    swarm_router(AccountPool(store, mysis.id, SERVER), game)  # type: ignore[arg-type]
    assert game.relogin is not None
    with pytest.raises(GameToolError) as caught:
        await game.relogin(game)
    assert (caught.value.code, caught.value.message) == ("no_account", "no account to log in with")


class ScriptedGame(ListedGame):
    """A game whose answers are given per command: a result's data, a whole outcome, or
    a refusal to raise; records the calls it gets."""

    def __init__(self, results: dict[str, Any]) -> None:
        super().__init__(*(_tool(name, SCHEMA) for name in results))
        self.results = results
        self.calls: list[tuple[str, dict]] = []

    async def call(self, name: str, args: dict) -> Any:
        from zoea_tui.game.adapter import ToolOutcome

        self.calls.append((name, dict(args)))
        answer = self.results[name]
        if isinstance(answer, Exception):
            raise answer
        if isinstance(answer, ToolOutcome):
            return answer
        return ToolOutcome(json.dumps(answer), answer)


async def _scripted(store: Store, results: dict[str, dict[str, Any]]) -> ToolRouter:
    mysis = await store.find_mysis("nova") or await store.create_mysis("nova")
    return swarm_router(AccountPool(store, mysis.id, SERVER), ScriptedGame(results))  # type: ignore[arg-type]


async def _execute(router: ToolRouter, name: str, args: dict[str, Any]) -> Any:
    return await router.execute(ToolCall("c1", name, json.dumps(args)))


@pytest.mark.parametrize(
    ("data", "args", "kept"),
    [
        (
            {"password": "pw-1234567890abcd"},
            {"username": "nova1", "empire": "solarian"},
            ("nova1", "solarian"),
        ),
        (
            {"password": "pw-1234567890abcd", "username": "Nova1", "empire": "voidborn"},
            {"username": "nova1", "empire": "solarian"},
            ("Nova1", "voidborn"),
        ),
        ({"password": "pw-1234567890abcd", "username": "nova1"}, {"empire": 5}, ("nova1", None)),
    ],
    ids=["from-the-call", "the-game-says", "no-empire"],
)
async def test_a_registration_is_pooled_under_the_name_and_empire_the_game_gave(
    store: Store, data: dict, args: dict, kept: tuple
) -> None:
    router = await _scripted(store, {"register": data})
    result = await _execute(router, "register", args)
    assert not result.is_error and "pw-1234567890abcd" not in result.content
    account = await store.account_for(router.mysis_id, SERVER)
    assert account is not None and (account.username, account.empire) == kept
    assert account.password == "pw-1234567890abcd" and router.account == kept[0]


async def test_a_registration_without_a_name_pools_nothing(store: Store) -> None:
    router = await _scripted(store, {"register": {"password": "pw-1234567890abcd"}})
    result = await _execute(router, "register", {})
    assert not result.is_error and "pw-1234567890abcd" not in result.content
    assert await store.list_accounts() == [] and router.account is None


async def test_login_with_a_name_and_no_account_to_use_says_to_register(store: Store) -> None:
    router = await _scripted(store, {"login": {"ok": True}})
    result = await _execute(router, "login", {"username": "stranger"})
    assert result.is_error and result.error_code == "no_account"
    assert result.error_message == (
        "No game account is assigned to you yet. Call register(username, empire) to "
        "create one; Zoea Nova keeps its password."
    )
    assert router.session.calls == []  # type: ignore[attr-defined]


async def test_logging_in_to_a_free_pooled_account_by_name_assigns_it(store: Store) -> None:
    await store.add_account(SERVER, "pilot", "pw-pilot-0123456789")
    router = await _scripted(store, {"login": {"username": "pilot"}})
    result = await _execute(router, "login", {"username": "pilot"})
    assert not result.is_error, result.content
    assert router.session.calls == [  # type: ignore[attr-defined]
        ("login", {"username": "pilot", "password": "pw-pilot-0123456789"})
    ]
    account = await store.account_for(router.mysis_id, SERVER)
    assert account is not None and account.username == "pilot"


async def test_a_password_claimed_after_the_first_call_is_masked_too(store: Store) -> None:
    """The pool is read once; an account added later is masked from its log-in on."""
    other = await store.create_mysis("other")
    await store.add_account(SERVER, "theirs", "pw-theirs-0123456789", mysis_id=other.id)
    router = await _scripted(
        store,
        {"get_status": {"ok": True}, "login": {"echo": "pw-late-0123456789"}},
    )
    assert not (await _execute(router, "get_status", {})).is_error
    await store.add_account(SERVER, "late", "pw-late-0123456789")
    result = await _execute(router, "login", {})
    assert not result.is_error and "pw-late-0123456789" not in result.content
    assert router.account == "late"


async def test_a_broadcast_hit_names_the_mysis_that_sent_it(store: Store) -> None:
    router = await _router(store)
    await store.add_broadcast("ore at Vega", sender_id="7")
    await store.add_broadcast("ore at Sol")
    result = await _execute(router, "zoea_search_broadcasts", {"query": "ore"})
    senders = {r["content"]: r["sender"] for r in json.loads(result.content)["results"]}
    assert senders == {"ore at Vega": "mysis #7", "ore at Sol": "commander"}


async def test_a_hit_of_exactly_the_shown_length_is_whole(store: Store) -> None:
    from zoea_tui.orchestrator.swarm_tools import SEARCH_HIT_CHARS
    from zoea_tui.storage import NewMemory

    router = await _router(store)
    text = "nickel " + "x" * (SEARCH_HIT_CHARS - 7)
    await store.add_memory(router.mysis_id, NewMemory("user", "direct", text))
    result = await _execute(router, "zoea_search_messages", {"query": "nickel"})
    [row] = json.loads(result.content)["results"]
    assert row["content"] == text


async def test_an_answer_leaving_hits_out_says_how_to_reach_them(store: Store) -> None:
    from zoea_tui.storage import NewMemory

    router = await _router(store)
    big = "nickel " + "ore, " * 1200
    await store.add_memories(
        router.mysis_id, [NewMemory("user", "direct", big) for _ in range(100)]
    )
    for _ in range(100):
        await store.add_broadcast(big)
    said = (
        "More results matched than fit in one answer: omitted_ids lists the rest, best "
        "first. Search with more precise words"
    )
    memories = json.loads(
        (await _execute(router, "zoea_search_messages", {"query": "nickel", "limit": 100})).content
    )
    assert memories["omitted_ids"] and memories["note"] == said + (
        " or read one with zoea_read_memory."
    )
    broadcasts = json.loads(
        (
            await _execute(router, "zoea_search_broadcasts", {"query": "nickel", "limit": 100})
        ).content
    )
    assert broadcasts["omitted_ids"] and broadcasts["note"] == said + "."
    lean = [r for r in broadcasts["results"] if not r["content"].startswith("nickel")]
    assert lean and {r["content"] for r in lean} == {"[not shown: the answer is full]"}
    lean = [r for r in memories["results"] if not r["content"].startswith("nickel")]
    assert lean and all(
        r["content"] == f"[not shown: zoea_read_memory(memory_id={r['memory_id']})]" for r in lean
    )


async def test_a_cut_answer_leaves_out_only_what_does_not_fit(store: Store) -> None:
    """One more hit, even without its text, would break a bound of the answer."""
    from zoea_tui.core.tokens import count_tokens
    from zoea_tui.orchestrator.swarm_tools import SEARCH_ANSWER_CHARS, SEARCH_ANSWER_TOKENS
    from zoea_tui.storage import NewMemory

    router = await _router(store)
    big = "nickel " + "ore, " * 1200
    await store.add_memories(
        router.mysis_id, [NewMemory("user", "direct", big) for _ in range(100)]
    )
    content = (
        await _execute(router, "zoea_search_messages", {"query": "nickel", "limit": 100})
    ).content
    answer = json.loads(content)
    assert len(content) <= SEARCH_ANSWER_CHARS and count_tokens(content) <= SEARCH_ANSWER_TOKENS
    lean = [r for r in answer["results"] if r["content"].startswith("[not shown")]
    assert lean and answer["omitted_ids"]
    first, *rest = answer["omitted_ids"]
    row = {
        **lean[-1],
        "memory_id": first,
        "content": f"[not shown: zoea_read_memory(memory_id={first})]",
    }
    more = {**answer, "results": [*answer["results"], row], "omitted_ids": rest}
    if not rest:
        del more["omitted_ids"], more["note"]
    text = json.dumps(more, ensure_ascii=False)
    assert len(text) > SEARCH_ANSWER_CHARS or count_tokens(text) > SEARCH_ANSWER_TOKENS


@pytest.mark.parametrize("query", [None, "", "   ", 5])
async def test_a_search_without_words_is_refused_saying_what_is_needed(
    store: Store, query: Any
) -> None:
    router = await _router(store)
    args = {} if query is None else {"query": query}
    for tool in ("zoea_search_messages", "zoea_search_broadcasts"):
        result = await _execute(router, tool, args)
        assert result.is_error and result.error_code == "invalid_payload"
        assert _refusal(result.content) == (
            "invalid_payload",
            "query is required: the words to find.",
        )


async def test_a_search_limit_is_a_whole_number_from_1_to_100_else_20(store: Store) -> None:
    from zoea_tui.storage import NewMemory

    router = await _router(store)
    await store.add_memories(
        router.mysis_id, [NewMemory("user", "direct", f"ore {n}") for n in range(30)]
    )

    async def count(limit: Any) -> int:
        result = await _execute(router, "zoea_search_messages", {"query": "ore", "limit": limit})
        return len(json.loads(result.content)["results"])

    assert [await count(x) for x in (0, -5, 1, 2, 25, "5", True, 2.5, None)] == [
        1, 1, 1, 2, 25, 20, 20, 20, 20,
    ]  # fmt: skip


async def test_a_search_with_exact_not_true_or_false_is_refused_quoting_it(store: Store) -> None:
    router = await _router(store)
    result = await _execute(router, "zoea_search_messages", {"query": "ore", "exact": "maybe"})
    assert result.is_error and result.error_code == "invalid_arguments"
    assert _refusal(result.content) == (
        "invalid_arguments",
        "exact must be true or false (got 'maybe').",
    )


@pytest.mark.parametrize(
    ("exact", "found"),
    [("true", 1), ("TRUE ", 1), ("false", 2), ("False", 2), ("", 2), (True, 1), (False, 2)],
)
async def test_exact_may_be_given_as_text(store: Store, exact: Any, found: int) -> None:
    router = await _router(store)
    await store.add_broadcast("Iron ore")
    await store.add_broadcast("iron ore")
    result = await _execute(router, "zoea_search_broadcasts", {"query": "Iron", "exact": exact})
    assert not result.is_error, result.content
    assert len(json.loads(result.content)["results"]) == found


# -- what a game result becomes (the fourth mutation run, docs/MUTATION.md) ------------


class RecordingSwarm:
    """The orchestrator's side of ``zoea_broadcast``: records what is sent."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    async def broadcast_from(self, mysis_id: int, text: str) -> int:
        self.sent.append(text)
        return 1

    async def swarm_status(self, mysis_id: int) -> dict[str, Any]:
        return {}


def _outcome(data: dict[str, Any] | None, text: str | None = None) -> ToolOutcome:
    return ToolOutcome(json.dumps(data) if text is None else text, data)


async def _answering(
    store: Store,
    answers: dict[str, Any],
    *,
    cache: GameStateCache | None = None,
    swarm: RecordingSwarm | None = None,
) -> ToolRouter:
    mysis = await store.find_mysis("nova") or await store.create_mysis("nova")
    game = ScriptedGame(answers)
    return swarm_router(AccountPool(store, mysis.id, SERVER), game, cache=cache, swarm=swarm)  # type: ignore[arg-type]


PW = "pw-1234567890abcd"


async def test_a_registration_whose_text_says_the_password_its_own_way_shows_it_masked(
    store: Store,
) -> None:
    """A registration the pool cannot keep (no name) still never shows its password: the
    result is written again from its masked data, whatever its text said, and keeps
    its characters as they are."""
    data = {"password": PW, "empire": "Ŝolarian"}
    router = await _answering(
        store, {"register": _outcome(data, f"Welcome, Ŝolarian. Keep {PW} safe.")}
    )
    result = await _execute(router, "register", {"empire": "solarian"})
    assert not result.is_error and PW not in result.content
    assert json.loads(result.content) == {"password": REDACTED, "empire": "Ŝolarian"}
    assert "Ŝolarian" in result.content, "characters as they are, not escaped"


async def test_a_result_other_than_register_is_shown_as_the_game_wrote_it(store: Store) -> None:
    """Only a registration is written again; another result keeps the game's text (its
    secret fields masked where they stand), and a text that is no JSON passes as it is."""
    text = '{\n  "note": "Ŝol",\n  "password": "pw-other-0123456789"\n}'
    data = json.loads(text)
    router = await _answering(
        store,
        {"get_status": _outcome(data, text), "look": _outcome(None, "Docked at Sol.")},
    )
    shown = await _execute(router, "get_status", {})
    assert shown.content == text.replace("pw-other-0123456789", REDACTED)
    plain = await _execute(router, "look", {})
    assert not plain.is_error
    assert (plain.content, plain.tick, plain.wait_ticks) == ("Docked at Sol.", None, None)


async def test_a_result_carries_its_tick_and_the_wait_it_announces(store: Store) -> None:
    cache = GameStateCache()
    travelling = {"tick": 10, "arrival_tick": 14, "player": {"credits": 5}}
    router = await _answering(
        store,
        {
            "register": _outcome({"password": PW, "username": "nova1"}),
            "get_status": _outcome(travelling),
        },
        cache=cache,
    )
    await _execute(router, "register", {"username": "nova1", "empire": "solarian"})
    result = await _execute(router, "get_status", {})
    assert (result.tick, result.wait_ticks) == (10, 4)
    kept = cache.latest("nova1", "get_status")
    assert kept is not None and kept.tick == 10


async def test_only_a_registration_pools_an_account_and_only_a_login_changes_it(
    store: Store,
) -> None:
    """Looking at another player (a result naming its username, even with a password)
    neither pools that account nor makes it the Mysis's."""
    router = await _answering(
        store,
        {
            "register": _outcome({"password": PW, "username": "nova1"}),
            "view_player": _outcome({"username": "rival", "password": "pw-rival-0123456789"}),
        },
    )
    await _execute(router, "register", {"username": "nova1", "empire": "solarian"})
    seen = await _execute(router, "view_player", {"username": "rival"})
    assert not seen.is_error and "pw-rival-0123456789" not in seen.content
    assert [a.username for a in await store.list_accounts()] == ["nova1"]
    assert router.account == "nova1"


@pytest.mark.parametrize(
    ("answer", "flown"),
    [({"username": "Ace"}, "Ace"), ({"ok": True}, "ace")],
    ids=["the-game-names-it", "as-given"],
)
async def test_a_login_with_credentials_of_its_own_flies_that_account_and_masks_them(
    store: Store, answer: dict, flown: str
) -> None:
    """A Mysis with no pooled account may log in with a name and password it was given:
    it then flies that account (as the game names it), and the password is masked
    everywhere, its broadcasts too (the swarm's tools share the router's pool)."""
    swarm = RecordingSwarm()
    own = "pw-own-0123456789"
    router = await _answering(store, {"login": _outcome(answer)}, swarm=swarm)
    result = await _execute(router, "login", {"username": "ace", "password": own})
    assert not result.is_error, result.content
    assert router.session.calls == [("login", {"username": "ace", "password": own})]  # type: ignore[attr-defined]
    assert router.account == flown
    await _execute(router, "zoea_broadcast", {"message": f"my password is {own}"})
    assert swarm.sent == [f"my password is {REDACTED}"]


async def test_a_refusal_keeps_the_wait_the_game_asked_for_and_its_characters(
    store: Store,
) -> None:
    refusal = GameToolError("rate_limited", "Trop tôt : réessayez", {"wait_seconds": 3})
    router = await _answering(store, {"mine": refusal})
    result = await _execute(router, "mine", {})
    assert result.is_error and result.error_code == "rate_limited"
    assert (result.error_message, result.wait_seconds) == ("Trop tôt : réessayez", 3.0)
    assert result.content == (
        '{"error": {"code": "rate_limited", "message": "Trop tôt : réessayez", "wait_seconds": 3}}'
    )


@pytest.mark.parametrize("cut_off", [True, False], ids=["cut-off", "not-json"])
async def test_broken_arguments_are_quoted_to_200_characters(store: Store, cut_off: bool) -> None:
    router = await _router(store)
    raw = '{"message": "' + "a" * 180 + "bcdefghijklmnopqrstuvwxyz"
    result = await router.execute(ToolCall("c1", "zoea_broadcast", raw), cut_off=cut_off)
    code, message = _refusal(result.content)
    assert code == ("cut_off" if cut_off else "invalid_json")
    assert repr(raw[:200]) in message and repr(raw[:201]) not in message
