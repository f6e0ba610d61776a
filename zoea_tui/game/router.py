"""The tool router: what a Mysis may call, and where each call goes.

It offers the game's tools plus the orchestrator's own (``zoea_*``), in one
stable order so prompt caches keep hitting, either a schema per game tool or,
compact, one ``game(command, args)`` tool (``core/game_tool.py``); runs each call
for one Mysis, a ``game`` call as the command it names;
fills game credentials at ``login`` from the account pool; captures the
password ``register`` returns; and masks every pooled password, and every
secret's field (password, session id, token), in what it hands back, results and
refusals alike (``core/redaction.py``), so no secret ever reaches a model or the memories.
"""

from __future__ import annotations

import contextlib
import difflib
import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from ..core.game_tool import GAME_TOOL, GameCallError, ToolsMode, game_command, game_tool
from ..core.redaction import PASSWORD_MASK, mask_data, mask_text
from ..core.tokens import count_tokens
from ..core.types import Memory, ToolCall
from ..storage import SearchHit, Store, StoreError
from .errors import GameConnectionError, GameToolError
from .session import GameSession, ToolInfo
from .state_cache import GameStateCache
from .waits import ticks_to_wait

REDACTED = PASSWORD_MASK
SEARCH_LIMIT_DEFAULT = 20
SEARCH_LIMIT_MAX = 100
#: Characters of a hit's content (or reasoning) a search answer shows.
SEARCH_HIT_CHARS = 1500
#: Bounds of one whole search answer: the lowest-ranked hits lose their text first.
SEARCH_ANSWER_CHARS = 16_000
SEARCH_ANSWER_TOKENS = 3_500
#: Hits that keep their text while lower-ranked ones are left out entirely.
SEARCH_KEEP_WHOLE = 3
#: Bounds of one page of ``zoea_read_memory`` (the page shrinks to fit the tokens).
READ_PAGE_CHARS = 8000
READ_PAGE_TOKENS = 3000
#: The parts of a memory ``zoea_read_memory`` can page through.
READ_PARTS = ("content", "reasoning", "tool_calls")
#: Arguments the router manages itself and hides from models.
_HIDDEN_PROPERTIES = frozenset({"session_id", "password"})


class SwarmPort(Protocol):
    """What the router needs from the orchestrator for ``zoea_broadcast``/``_swarm_status``."""

    async def broadcast_from(self, mysis_id: int, text: str) -> int:
        """Send ``text`` to every other Mysis; return how many received it."""
        ...

    async def swarm_status(self, mysis_id: int) -> dict[str, Any]:
        """The swarm as the calling Mysis may see it."""
        ...


@dataclass(frozen=True, slots=True)
class RoutedResult:
    """What a tool call produced, ready to store as the tool message."""

    content: str
    is_error: bool = False
    error_code: str | None = None
    tick: int | None = None
    #: True when the game server could not be reached (the orchestrator may retry).
    unreachable: bool = False
    #: The refusal's own words, and how long the game asked to wait (timing refusals).
    error_message: str | None = None
    wait_seconds: float | None = None
    #: A successful result that says the Mysis must wait: ticks to wait (0: unknown).
    wait_ticks: int | None = None


def _search_schema(what: str, *, another: bool = True) -> dict[str, Any]:
    properties: dict[str, Any] = {
        "query": {
            "type": "string",
            "description": f"Words to find in {what}: each must appear, also inside a "
            "longer word ('ron' finds 'iron'), in any case.",
        },
        "limit": {
            "type": "integer",
            "minimum": 1,
            "maximum": SEARCH_LIMIT_MAX,
            "description": f"Most results to return (default {SEARCH_LIMIT_DEFAULT}, "
            f"at most {SEARCH_LIMIT_MAX}).",
        },
        "exact": {
            "type": "boolean",
            "description": "true: find the whole query as typed, with its case (default false).",
        },
    }
    if another:
        properties["mysis_id"] = _MYSIS_ID_SCHEMA
    return {"type": "object", "properties": properties, "required": ["query"]}


#: The optional argument that points a search or a read at another Mysis of the swarm.
_MYSIS_ID_SCHEMA: dict[str, Any] = {
    "type": "integer",
    "minimum": 1,
    "description": "Another Mysis of your swarm, by the id zoea_swarm_status gives "
    "(default: yourself).",
}


ORCHESTRATOR_TOOLS: tuple[dict[str, Any], ...] = (
    {
        "name": "zoea_search_messages",
        "description": "Search your own past messages, orders and tool results (full history, "
        "ranked, case-insensitive, parts of words too), or another swarm Mysis's with "
        "mysis_id. Use it when something you need is no longer "
        "in view. Each result gives memory_id, role, source, tool_name, time, "
        "game tick, the matching snippet and the content (long content is cut: "
        "read the rest with zoea_read_memory).",
        "parameters": _search_schema("your past messages and tool results"),
    },
    {
        "name": "zoea_search_reasoning",
        "description": "Search your own past reasoning, to recall why you decided something. "
        "Each result gives memory_id, time, the matching snippet, the "
        "reasoning text and what you answered with it (content, tool_calls).",
        "parameters": _search_schema("your past reasoning"),
    },
    {
        "name": "zoea_search_broadcasts",
        "description": "Search past swarm broadcasts (commander orders and other Myses' news). "
        "Each result gives broadcast_id, sender, time and the broadcast text.",
        "parameters": _search_schema("swarm broadcasts", another=False),
    },
    {
        "name": "zoea_read_memory",
        "description": "Read one of your own stored messages in full, by its memory id. Use it "
        "when a note says a result was omitted or truncated and names its "
        "memory #id, or when a search result's content is cut: read it here. "
        f"Long texts come in pages of up to {READ_PAGE_CHARS} characters: call "
        "again with offset=next_offset until next_offset is null.",
        "parameters": {
            "type": "object",
            "properties": {
                "memory_id": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "The memory's id (the number after 'memory #').",
                },
                "offset": {
                    "type": "integer",
                    "minimum": 0,
                    "description": "Character to start from (default 0; use the "
                    "next_offset of the previous page).",
                },
                "part": {
                    "type": "string",
                    "enum": list(READ_PARTS),
                    "description": "What to read (default content): the text, your "
                    "reasoning, or the tool calls as JSON.",
                },
                "mysis_id": _MYSIS_ID_SCHEMA,
            },
            "required": ["memory_id"],
        },
    },
    {
        "name": "zoea_broadcast",
        "description": "Send a short message to every other Mysis of the swarm.",
        "parameters": {
            "type": "object",
            "properties": {"message": {"type": "string", "description": "What to tell the swarm."}},
            "required": ["message"],
        },
    },
    {
        "name": "zoea_swarm_status",
        "description": "See every Mysis of the swarm: name, state and account.",
        "parameters": {"type": "object", "properties": {}},
    },
)
ORCHESTRATOR_TOOL_NAMES = frozenset(t["name"] for t in ORCHESTRATOR_TOOLS)


def function_tool(name: str, description: str, parameters: dict[str, Any]) -> dict[str, Any]:
    """The OpenAI function-tool shape."""
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": parameters},
    }


def model_schema(tool: ToolInfo) -> dict[str, Any]:
    """A game tool as a model sees it: no session ids, no passwords to fill in."""
    schema = dict(tool.input_schema or {"type": "object", "properties": {}})
    properties = {
        k: v for k, v in (schema.get("properties") or {}).items() if k not in _HIDDEN_PROPERTIES
    }
    required = [r for r in schema.get("required") or [] if r not in _HIDDEN_PROPERTIES]
    description = tool.description
    if tool.name == "login":
        properties, required = {}, []
        description = (
            "Log in to your game account. Zoea Nova fills in the credentials: call "
            "it with no arguments."
        )
    schema["properties"] = properties
    if required:
        schema["required"] = required
    else:
        schema.pop("required", None)
    schema.setdefault("type", "object")
    return function_tool(tool.name, description, schema)


def error_content(code: str, message: str, **details: Any) -> str:
    """The tool-message text of a refusal, in the game's own error shape."""
    return json.dumps({"error": {"code": code, "message": message, **details}}, ensure_ascii=False)


class ToolRouter:
    """Runs the tool calls of one Mysis.

    Args:
        store: the SQLite store (search tools, account pool).
        mysis_id: the caller; every ``zoea_*`` tool is bound to it.
        session: the Mysis's own game session.
        server: the account pool's key for the game ("embedded" or the URL).
        cache: the shared game-state cache.
        swarm: the orchestrator, for broadcasts and swarm status.
    """

    def __init__(
        self,
        store: Store,
        mysis_id: int,
        session: GameSession,
        *,
        server: str,
        cache: GameStateCache | None = None,
        swarm: SwarmPort | None = None,
    ) -> None:
        self.store = store
        self.mysis_id = mysis_id
        self.session = session
        self.server = server
        self.cache = cache if cache is not None else GameStateCache()
        self.swarm = swarm
        self.account: str | None = None
        self._secrets: set[str] = set()
        #: The schemas by mode, with the game's tool list they were made from.
        self._schemas: dict[ToolsMode, tuple[int, list[dict[str, Any]]]] = {}
        session.relogin = self._relogin

    # -- what the model sees --------------------------------------------------

    async def tool_schemas(self, mode: ToolsMode = "full") -> list[dict[str, Any]]:
        """Orchestrator tools first, then the game's, sorted by name (stable order).

        ``"compact"``: the game's tools as the one ``game`` tool, whose description
        lists them in the same order. Either list is the same object, byte for byte
        the same for every Mysis, until the game's list changes.
        """
        tools = await self.session.list_tools()
        cached = self._schemas.get(mode)
        if cached is None or cached[0] != id(tools):
            game = [
                model_schema(t)
                for t in sorted(tools, key=lambda t: t.name)
                if t.name not in ORCHESTRATOR_TOOL_NAMES
            ]
            ours = [
                function_tool(t["name"], t["description"], t["parameters"])
                for t in ORCHESTRATOR_TOOLS
            ]
            cached = (id(tools), ours + ([game_tool(game)] if mode == "compact" else game))
            self._schemas[mode] = cached
        return cached[1]

    def redact(self, text: str) -> str:
        """``text`` with every known game password and every secret's field masked."""
        return mask_text(text, self._secrets)

    # -- calls ----------------------------------------------------------------

    async def execute(self, call: ToolCall, *, cut_off: bool = False) -> RoutedResult:
        """Run one tool call and return the (redacted) text to store and show.

        ``cut_off``: the answer that made the call ended at ``max_tokens``; a call whose
        arguments are then incomplete is not run, and the model is told why. A ``game``
        call runs the command it names, with its ``args``: a malformed one or an unknown
        command is a tool error for the model, never an exception.
        """
        args = call.parsed_arguments()
        if args is None and cut_off:
            return RoutedResult(
                error_content(
                    "cut_off",
                    f"Your call to {call.name} was cut off at max_tokens before its "
                    f"arguments were complete ({call.arguments[:200]!r}), so it was not run. "
                    "Call it again with complete arguments, writing less before the call.",
                ),
                is_error=True,
                error_code="cut_off",
            )
        if args is None:
            return RoutedResult(
                error_content(
                    "invalid_json",
                    f"The arguments of {call.name} are not a JSON object: "
                    f"{call.arguments[:200]!r}. Send arguments as a JSON object, e.g. {{}}.",
                ),
                is_error=True,
                error_code="invalid_json",
            )
        name = call.name
        if name == GAME_TOOL:
            try:
                name, args = game_command(args)
            except GameCallError as error:
                return _invalid(str(error))
        if name in ORCHESTRATOR_TOOL_NAMES:
            return await self._orchestrator_tool(name, args)
        await self._load_secrets()
        try:
            if call.name == GAME_TOOL and (unknown := await self._unknown_command(name)):
                return unknown
            if name == "login":
                outcome = await self._login(args)
            else:
                outcome = await self.session.call(name, args)
        except GameToolError as error:
            return RoutedResult(
                self.redact(json.dumps(error.to_payload(), ensure_ascii=False)),
                is_error=True,
                error_code=error.code,
                error_message=self.redact(error.message),
                wait_seconds=error.wait_seconds,
            )
        except GameConnectionError as error:
            message = self.redact(str(error))
            return RoutedResult(
                error_content("game_unreachable", message),
                is_error=True,
                error_code="game_unreachable",
                unreachable=True,
                error_message=message,
            )
        data = outcome.data
        if name == "register" and data is not None:
            await self._remember_registration(args, data)
        elif name == "login" and data is not None:
            self.account = str(data.get("username") or args.get("username") or self.account)
        if self.account and data is not None:
            self.cache.update(self.account, name, data, outcome.tick)
        text = outcome.text
        if name == "register" and data is not None and "password" in data:
            text = json.dumps(mask_data(data), ensure_ascii=False)  # whatever the text said
        return RoutedResult(
            self.redact(text), tick=outcome.tick, wait_ticks=ticks_to_wait(data, outcome.tick)
        )

    async def _unknown_command(self, command: str) -> RoutedResult | None:
        """The error for a ``game`` call naming no game command (None: it names one)."""
        names = [t.name for t in await self.session.list_tools()]
        if command in names and command != GAME_TOOL:
            return None
        close = difflib.get_close_matches(command, names, n=3)
        hint = f" Did you mean {' or '.join(close)}?" if close else ""
        return RoutedResult(
            error_content(
                "unknown_command",
                f"{_shown(command)} is not a game command.{hint} The game tool's "
                "description lists every command and its arguments.",
            ),
            is_error=True,
            error_code="unknown_command",
        )

    async def _login(self, args: dict[str, Any]) -> Any:
        wanted = args.get("username")
        account = None
        if isinstance(wanted, str) and wanted:
            account = await self.store.find_account(self.server, wanted)
            if account is not None and account.mysis_id not in (None, self.mysis_id):
                raise GameToolError(
                    "account_in_use",
                    f"{wanted} is flown by another Mysis of "
                    "this swarm. Log in with no arguments to use your own.",
                )
        if account is None:
            account = await self.store.claim_account(self.mysis_id, self.server)
        if account is None:
            if isinstance(wanted, str) and isinstance(given := args.get("password"), str):
                self._secrets.add(given)  # masked in what comes back, refusals too
                return await self.session.call("login", args)  # credentials the user gave
            raise GameToolError(
                "no_account",
                "No game account is assigned to you yet. Call "
                "register(username, empire) to create one; Zoea Nova keeps its password.",
            )
        self._secrets.add(account.password)
        outcome = await self.session.call(
            "login", {"username": account.username, "password": account.password}
        )
        if account.mysis_id != self.mysis_id:
            await self.store.add_account(
                self.server, account.username, account.password, mysis_id=self.mysis_id
            )
        self.account = account.username
        return outcome

    async def _relogin(self, session: GameSession) -> None:
        """After a lost session: log in again with the assigned account, silently."""
        account = await self.store.account_for(self.mysis_id, self.server)
        if account is None:
            raise GameToolError("no_account", "no account to log in with")
        await session.call("login", {"username": account.username, "password": account.password})

    async def _remember_registration(self, args: dict[str, Any], data: dict[str, Any]) -> None:
        password = data.get("password")
        username = data.get("username") or args.get("username")
        if isinstance(password, str) and isinstance(username, str):
            self._secrets.add(password)
            empire = data.get("empire") or args.get("empire")
            await self.store.add_account(
                self.server,
                username,
                password,
                empire=empire if isinstance(empire, str) else None,
                mysis_id=self.mysis_id,
            )
            self.account = username

    async def _load_secrets(self) -> None:
        if not self._secrets:
            self._secrets.update(a.password for a in await self.store.list_accounts(self.server))

    async def _orchestrator_tool(self, name: str, args: dict[str, Any]) -> RoutedResult:
        if name.startswith("zoea_search_"):
            return await self._search(name, args)
        if name == "zoea_read_memory":
            return await self._read_memory(args)
        if self.swarm is None:
            return RoutedResult(
                error_content("unavailable", "The swarm is not running."),
                is_error=True,
                error_code="unavailable",
            )
        if name == "zoea_broadcast":
            message = args.get("message")
            if not isinstance(message, str) or not message.strip():
                return RoutedResult(
                    error_content(
                        "invalid_payload", "message is required: what to tell the swarm."
                    ),
                    is_error=True,
                    error_code="invalid_payload",
                )
            count = await self.swarm.broadcast_from(self.mysis_id, self.redact(message))
            return RoutedResult(json.dumps({"sent": True, "recipients": count}))
        status = await self.swarm.swarm_status(self.mysis_id)
        return RoutedResult(json.dumps(status, ensure_ascii=False))

    # -- search and read --------------------------------------------------------

    async def _search(self, name: str, args: dict[str, Any]) -> RoutedResult:
        """A ``zoea_search_*`` call: ranked hits with their text, in a bounded answer."""
        query = args.get("query")
        if not isinstance(query, str) or not query.strip():
            return RoutedResult(
                error_content("invalid_payload", "query is required: the words to find."),
                is_error=True,
                error_code="invalid_payload",
            )
        limit = args.get("limit", SEARCH_LIMIT_DEFAULT)
        if not isinstance(limit, int) or isinstance(limit, bool):
            limit = SEARCH_LIMIT_DEFAULT
        limit = max(1, min(SEARCH_LIMIT_MAX, limit))
        exact = _as_bool(args.get("exact"))
        if exact is None:
            return _invalid(f"exact must be true or false (got {_shown(args.get('exact'))}).")
        broadcasts = name == "zoea_search_broadcasts"
        whose = self.mysis_id
        if not broadcasts:
            target = await self._target(args.get("mysis_id"))
            if isinstance(target, RoutedResult):
                return target
            whose = target
        await self._load_secrets()
        fetch = SEARCH_HIT_CHARS + 500  # room for redaction to move the cut
        part = "content"
        if broadcasts:
            hits = await self.store.search_broadcasts(
                query, limit=limit, text_limit=fetch, exact=exact
            )
        else:
            part = "reasoning" if name == "zoea_search_reasoning" else "content"
            hits = await self.store.search_memories(
                whose, query, limit=limit, field=part, text_limit=fetch, exact=exact
            )
        other = None if whose == self.mysis_id else whose
        full: list[dict[str, Any]] = []
        lean: list[dict[str, Any]] = []
        for hit in hits:
            row = self._hit_row(name, hit)
            if broadcasts:
                text = self._hit_text(hit.text, hit.text_chars)
                lean_text = "[not shown: the answer is full]"
                full.append({**row, part: text})
                lean.append({**row, part: lean_text} if hit.text_chars else {**row, part: ""})
                continue
            text = self._hit_text(hit.text, hit.text_chars, hit.memory_id, part, other)
            full_row = {**row, part: text}
            lean_row = {**row, part: f"[not shown: {_read_call(hit.memory_id, 0, part, other)}]"}
            if not hit.text_chars:
                lean_row[part] = ""
            if part == "reasoning":
                # What was answered with the reasoning: its text, and the calls it made.
                content = hit.extra.get("content") or ""
                chars = hit.extra.get("content_chars") or 0
                full_row["content"] = self._hit_text(
                    content, chars, hit.memory_id, "content", other
                )
                lean_row["content"] = (
                    f"[not shown: {_read_call(hit.memory_id, 0, 'content', other)}]"
                    if chars
                    else ""
                )
                if hit.extra.get("calls"):
                    full_row["tool_calls"] = lean_row["tool_calls"] = hit.extra["calls"]
            full.append(full_row)
            lean.append(lean_row)
        head: dict[str, Any] = {"query": query}
        if exact:
            head["exact"] = True
        if other is not None:
            head["mysis_id"] = other
        head["count"] = len(hits)
        answer = _bounded_answer(head, full, lean, "broadcast_id" if broadcasts else "memory_id")
        return RoutedResult(self.redact(answer))

    def _hit_text(
        self,
        text: str,
        chars: int,
        memory_id: int | None = None,
        part: str = "content",
        mysis_id: int | None = None,
    ) -> str:
        """A hit's text, redacted and cut at SEARCH_HIT_CHARS with how to read the rest."""
        text = self.redact(text)
        if chars <= SEARCH_HIT_CHARS:
            return text
        more = chars - SEARCH_HIT_CHARS
        if memory_id is None:
            return f"{text[:SEARCH_HIT_CHARS]}… [{more} more characters not shown]"
        read = _read_call(memory_id, SEARCH_HIT_CHARS, part, mysis_id)
        return f"{text[:SEARCH_HIT_CHARS]}… [{more} more characters: {read}]"

    async def _target(self, value: Any) -> int | RoutedResult:
        """The Mysis a search or a read is about: the caller, or another Mysis of its swarm
        (by id, or by name); a refusal the model can act on when there is no such Mysis."""
        if value is None or value == "" or value == self.mysis_id:
            return self.mysis_id
        number = _as_int(value)
        record = None
        if number is not None:
            with contextlib.suppress(StoreError):
                record = await self.store.get_mysis(number)
        elif isinstance(value, str):
            record = await self.store.find_mysis(value.strip())
        if record is not None:
            return record.id
        return RoutedResult(
            error_content(
                "not_found",
                f"No Mysis {_shown(value)} in your swarm. zoea_swarm_status lists the "
                "swarm's Myses with their ids; leave mysis_id out to use your own memories.",
            ),
            is_error=True,
            error_code="not_found",
        )

    def _hit_row(self, name: str, hit: SearchHit) -> dict[str, Any]:
        if name == "zoea_search_broadcasts":
            sender = hit.extra.get("sender_id")
            row: dict[str, Any] = {
                "broadcast_id": hit.memory_id,
                "sender": "commander" if sender is None else f"mysis #{sender}",
            }
        else:
            row = {"memory_id": hit.memory_id}
        row.update(role=hit.role, source=hit.source)
        if hit.tool_name:
            row["tool_name"] = hit.tool_name
        row["created_at"] = iso_time(hit.created_at)
        if hit.game_tick is not None:
            row["game_tick"] = hit.game_tick
        row["snippet"] = self.redact(hit.snippet)
        return row

    async def _read_memory(self, args: dict[str, Any]) -> RoutedResult:
        """``zoea_read_memory``: one of the caller's memories, a page at a time."""
        memory_id = _as_int(args.get("memory_id"))
        if memory_id is None or memory_id < 1:
            return _invalid(
                "memory_id must be a memory's id, a whole number such as 1234 "
                f"(got {_shown(args.get('memory_id'))})."
            )
        raw_offset = args.get("offset")
        offset = 0 if raw_offset is None else _as_int(raw_offset)
        if offset is None or offset < 0:
            return _invalid(
                "offset must be a whole number of characters, 0 or more "
                f"(got {_shown(raw_offset)})."
            )
        part = args.get("part") or "content"
        if not isinstance(part, str) or part not in READ_PARTS:
            return _invalid(f"part must be one of {', '.join(READ_PARTS)} (got {_shown(part)}).")
        target = await self._target(args.get("mysis_id"))
        if isinstance(target, RoutedResult):
            return target
        memory = await self.store.get_memory(target, memory_id)
        if memory is None:
            whose = "your own memories" if target == self.mysis_id else f"Mysis #{target}'s"
            return RoutedResult(
                error_content(
                    "not_found",
                    f"No memory #{memory_id} among {whose}. Use an id "
                    "from a note or a zoea_search_messages result.",
                ),
                is_error=True,
                error_code="not_found",
            )
        await self._load_secrets()
        texts = {p: self.redact(_part_text(memory, p)) for p in READ_PARTS}
        text = texts[part]
        total = len(text)
        if offset > total:
            return _invalid(
                f"offset {offset} is past the end: the {part} of memory "
                f"#{memory_id} has {total} characters."
            )
        page = _page(text, offset)
        end = offset + len(page)
        answer: dict[str, Any] = {"memory_id": memory.id}
        if target != self.mysis_id:
            answer["mysis_id"] = target
        answer.update(role=memory.role, source=memory.source)
        if memory.tool_name:
            answer["tool_name"] = memory.tool_name
        if memory.tool_call_id:
            answer["tool_call_id"] = memory.tool_call_id
        answer["created_at"] = iso_time(memory.created_at)
        if memory.game_tick is not None:
            answer["game_tick"] = memory.game_tick
        answer.update(
            {
                "part": part,
                "offset": offset,
                "total_chars": total,
                "next_offset": end if end < total else None,
                part: page,
            }
        )
        others = {p: len(t) for p, t in texts.items() if p != part and t}
        if others:
            answer["other_parts"] = others
        return RoutedResult(json.dumps(answer, ensure_ascii=False))


def iso_time(timestamp: float) -> str:
    """A stored time as ISO-8601 UTC, e.g. ``2025-01-31T12:00:00Z``."""
    moment = datetime.fromtimestamp(timestamp, UTC)
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")


def _read_call(memory_id: int, offset: int, part: str, mysis_id: int | None = None) -> str:
    """How a model reads on: ``zoea_read_memory(memory_id=12, offset=1500)``."""
    extra = f", offset={offset}" if offset else ""
    extra += f", part='{part}'" if part != "content" else ""
    extra += f", mysis_id={mysis_id}" if mysis_id is not None else ""
    return f"zoea_read_memory(memory_id={memory_id}{extra})"


def _as_bool(value: Any) -> bool | None:
    """A boolean argument (absent: false; "true"/"false" as text too); None if neither."""
    if value is None or isinstance(value, bool):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in ("true", "false", ""):
        return value.strip().lower() == "true"
    return None


def _shown(value: Any) -> str:
    """An argument as an error message quotes it (briefly)."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _invalid(message: str) -> RoutedResult:
    return RoutedResult(
        error_content("invalid_arguments", message), is_error=True, error_code="invalid_arguments"
    )


_INT_TEXT = re.compile(r"\s*#?\s*(\d{1,18})\s*")


def _as_int(value: Any) -> int | None:
    """A whole number from an argument (an int, or its digits as text, "#1234" too)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        match = _INT_TEXT.fullmatch(value)
        return int(match.group(1)) if match else None
    return None


def _part_text(memory: Memory, part: str) -> str:
    if part == "reasoning":
        return memory.reasoning
    if part == "tool_calls":
        if not memory.tool_calls:
            return ""
        return json.dumps(
            [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in memory.tool_calls],
            ensure_ascii=False,
        )
    return memory.content


def _page(text: str, offset: int) -> str:
    """At most READ_PAGE_CHARS characters from ``offset``, within READ_PAGE_TOKENS."""
    page = text[offset : offset + READ_PAGE_CHARS]
    for _ in range(8):
        tokens = count_tokens(json.dumps(page, ensure_ascii=False))
        if tokens <= READ_PAGE_TOKENS or len(page) <= 256:
            break
        page = page[: max(256, int(len(page) * READ_PAGE_TOKENS / tokens * 0.95))]
    return page


def _bounded_answer(
    head: dict[str, Any], full: list[dict[str, Any]], lean: list[dict[str, Any]], key: str
) -> str:
    """The search answer within its bounds, best-ranked hits kept whole longest.

    The lowest-ranked hits lose their text first (keeping ids, snippets and a way
    to read them); if that is not enough, they are left out but for their ids. The
    best ``SEARCH_KEEP_WHOLE`` hits keep their text as long as they can.
    """
    note = _OMITTED_NOTE + (" or read one with zoea_read_memory." if key == "memory_id" else ".")

    def cost(value: Any) -> tuple[int, int]:
        text = json.dumps(value, ensure_ascii=False)
        return len(text) + 2, count_tokens(text) + 1

    base = cost({**head, "results": [], "omitted_ids": [], "note": note})
    costs = {"full": [cost(r) for r in full], "lean": [cost(r) for r in lean]}
    #: Per hit, best first: "full" (with its text), "lean" (text left out) or "out".
    states = ["full"] * len(full)

    def fits() -> bool:
        chars, tokens = base
        for index, state in enumerate(states):
            if state == "out":
                chars += len(str(full[index][key])) + 2
                tokens += 2
            else:
                chars += costs[state][index][0]
                tokens += costs[state][index][1]
        return chars <= SEARCH_ANSWER_CHARS and tokens <= SEARCH_ANSWER_TOKENS

    # Bottom-up: text of all but the best few hits, then those hits themselves, then
    # the best few's text, then theirs: what is left out is always a ranked suffix.
    keep = min(SEARCH_KEEP_WHOLE, len(states))
    rest, best = range(len(states) - 1, keep - 1, -1), range(keep - 1, -1, -1)
    for indices, downgrade in ((rest, "lean"), (rest, "out"), (best, "lean"), (best, "out")):
        for index in indices:
            if fits():
                break
            states[index] = downgrade
    while True:
        rows = [
            (full if state == "full" else lean)[i]
            for i, state in enumerate(states)
            if state != "out"
        ]
        answer: dict[str, Any] = {**head, "results": rows}
        omitted = [full[i][key] for i, state in enumerate(states) if state == "out"]
        if omitted:
            answer.update(omitted_ids=omitted, note=note)
        text = json.dumps(answer, ensure_ascii=False)
        if not rows or (
            len(text) <= SEARCH_ANSWER_CHARS and count_tokens(text) <= SEARCH_ANSWER_TOKENS
        ):
            return text
        states[len(rows) - 1] = "out"  # the estimate was short: leave out one more


_OMITTED_NOTE = (
    "More results matched than fit in one answer: omitted_ids lists the rest, "
    "best first. Search with more precise words"
)
