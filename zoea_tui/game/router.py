"""The tool router: what a Mysis may call, and where each call goes.

It offers the game's tools plus the orchestrator's own (``zoea_*``), in one
stable order so prompt caches keep hitting; runs each call for one Mysis;
fills game credentials at ``login`` from the account pool; captures the
password ``register`` returns; and redacts every pooled password from what
it hands back, so no password ever reaches a model or the memories.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Protocol

from ..core.types import ToolCall
from ..storage import Store
from .errors import GameConnectionError, GameToolError
from .session import GameSession, ToolInfo
from .state_cache import GameStateCache

REDACTED = "[password stored by Zoea Nova]"
SEARCH_LIMIT_MAX = 100
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


def _search_schema(what: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": f"Words to find in {what}."},
            "limit": {"type": "integer", "minimum": 1, "maximum": SEARCH_LIMIT_MAX,
                      "description": "Most results to return (default 10)."},
        },
        "required": ["query"],
    }


ORCHESTRATOR_TOOLS: tuple[dict[str, Any], ...] = (
    {"name": "zoea_search_messages",
     "description": "Search your own past messages, orders and tool results (full history, "
                    "ranked, case-insensitive). Use it when something you need is no longer "
                    "in view.",
     "parameters": _search_schema("your past messages and tool results")},
    {"name": "zoea_search_reasoning",
     "description": "Search your own past reasoning, to recall why you decided something.",
     "parameters": _search_schema("your past reasoning")},
    {"name": "zoea_search_broadcasts",
     "description": "Search past swarm broadcasts (commander orders and other Myses' news).",
     "parameters": _search_schema("swarm broadcasts")},
    {"name": "zoea_broadcast",
     "description": "Send a short message to every other Mysis of the swarm.",
     "parameters": {"type": "object",
                    "properties": {"message": {"type": "string",
                                               "description": "What to tell the swarm."}},
                    "required": ["message"]}},
    {"name": "zoea_swarm_status",
     "description": "See every Mysis of the swarm: name, state and account.",
     "parameters": {"type": "object", "properties": {}}},
)
ORCHESTRATOR_TOOL_NAMES = frozenset(t["name"] for t in ORCHESTRATOR_TOOLS)


def function_tool(name: str, description: str, parameters: dict[str, Any]) -> dict[str, Any]:
    """The OpenAI function-tool shape."""
    return {"type": "function",
            "function": {"name": name, "description": description, "parameters": parameters}}


def model_schema(tool: ToolInfo) -> dict[str, Any]:
    """A game tool as a model sees it: no session ids, no passwords to fill in."""
    schema = dict(tool.input_schema or {"type": "object", "properties": {}})
    properties = {k: v for k, v in (schema.get("properties") or {}).items()
                  if k not in _HIDDEN_PROPERTIES}
    required = [r for r in schema.get("required") or [] if r not in _HIDDEN_PROPERTIES]
    description = tool.description
    if tool.name == "login":
        properties, required = {}, []
        description = ("Log in to your game account. Zoea Nova fills in the credentials: call "
                       "it with no arguments.")
    schema["properties"] = properties
    if required:
        schema["required"] = required
    else:
        schema.pop("required", None)
    schema.setdefault("type", "object")
    return function_tool(tool.name, description, schema)


def error_content(code: str, message: str, **details: Any) -> str:
    """The tool-message text of a refusal, in the game's own error shape."""
    return json.dumps({"error": {"code": code, "message": message, **details}},
                      ensure_ascii=False)


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
        self._schemas: list[dict[str, Any]] | None = None
        self._schema_generation = -1
        session.relogin = self._relogin

    # -- what the model sees --------------------------------------------------

    async def tool_schemas(self) -> list[dict[str, Any]]:
        """Orchestrator tools first, then the game's, sorted by name (stable order)."""
        tools = await self.session.list_tools()
        if self._schemas is None or self._schema_generation != id(tools):
            game = [model_schema(t) for t in sorted(tools, key=lambda t: t.name)
                    if t.name not in ORCHESTRATOR_TOOL_NAMES]
            ours = [function_tool(t["name"], t["description"], t["parameters"])
                    for t in ORCHESTRATOR_TOOLS]
            self._schemas = ours + game
            self._schema_generation = id(tools)
        return self._schemas

    def redact(self, text: str) -> str:
        """``text`` with every known game password replaced."""
        for secret in self._secrets:
            if secret and secret in text:
                text = text.replace(secret, REDACTED)
        return text

    # -- calls ----------------------------------------------------------------

    async def execute(self, call: ToolCall) -> RoutedResult:
        """Run one tool call and return the (redacted) text to store and show."""
        args = call.parsed_arguments()
        if args is None:
            return RoutedResult(error_content(
                "invalid_json", f"The arguments of {call.name} are not a JSON object: "
                f"{call.arguments[:200]!r}. Send arguments as a JSON object, e.g. {{}}."),
                is_error=True, error_code="invalid_json")
        if call.name in ORCHESTRATOR_TOOL_NAMES:
            return await self._orchestrator_tool(call.name, args)
        await self._load_secrets()
        try:
            if call.name == "login":
                outcome = await self._login(args)
            else:
                outcome = await self.session.call(call.name, args)
        except GameToolError as error:
            return RoutedResult(self.redact(json.dumps(error.to_payload(), ensure_ascii=False)),
                                is_error=True, error_code=error.code,
                                error_message=self.redact(error.message),
                                wait_seconds=error.wait_seconds)
        except GameConnectionError as error:
            return RoutedResult(error_content("game_unreachable", str(error)), is_error=True,
                                error_code="game_unreachable", unreachable=True,
                                error_message=str(error))
        data = outcome.data
        if call.name == "register" and data is not None:
            await self._remember_registration(args, data)
        elif call.name == "login" and data is not None:
            self.account = str(data.get("username") or args.get("username") or self.account)
        if self.account and data is not None:
            self.cache.update(self.account, call.name, data, outcome.tick)
        text = outcome.text
        if call.name == "register" and data is not None and "password" in data:
            text = json.dumps({**data, "password": REDACTED}, ensure_ascii=False)
        return RoutedResult(self.redact(text), tick=outcome.tick)

    async def _login(self, args: dict[str, Any]) -> Any:
        wanted = args.get("username")
        account = None
        if isinstance(wanted, str) and wanted:
            account = await self.store.find_account(self.server, wanted)
            if account is not None and account.mysis_id not in (None, self.mysis_id):
                raise GameToolError("account_in_use", f"{wanted} is flown by another Mysis of "
                                    "this swarm. Log in with no arguments to use your own.")
        if account is None:
            account = await self.store.claim_account(self.mysis_id, self.server)
        if account is None:
            if isinstance(wanted, str) and isinstance(args.get("password"), str):
                return await self.session.call("login", args)  # credentials the user gave
            raise GameToolError(
                "no_account", "No game account is assigned to you yet. Call "
                "register(username, empire) to create one; Zoea Nova keeps its password.")
        self._secrets.add(account.password)
        outcome = await self.session.call(
            "login", {"username": account.username, "password": account.password})
        if account.mysis_id != self.mysis_id:
            await self.store.add_account(self.server, account.username, account.password,
                                         mysis_id=self.mysis_id)
        self.account = account.username
        return outcome

    async def _relogin(self, session: GameSession) -> None:
        """After a lost session: log in again with the assigned account, silently."""
        account = await self.store.account_for(self.mysis_id, self.server)
        if account is None:
            raise GameToolError("no_account", "no account to log in with")
        await session.call("login", {"username": account.username,
                                     "password": account.password})

    async def _remember_registration(self, args: dict[str, Any], data: dict[str, Any]) -> None:
        password = data.get("password")
        username = data.get("username") or args.get("username")
        if isinstance(password, str) and isinstance(username, str):
            self._secrets.add(password)
            empire = data.get("empire") or args.get("empire")
            await self.store.add_account(self.server, username, password,
                                         empire=empire if isinstance(empire, str) else None,
                                         mysis_id=self.mysis_id)
            self.account = username

    async def _load_secrets(self) -> None:
        if not self._secrets:
            self._secrets.update(a.password for a in await self.store.list_accounts(self.server))

    async def _orchestrator_tool(self, name: str, args: dict[str, Any]) -> RoutedResult:
        if name.startswith("zoea_search_"):
            query = args.get("query")
            if not isinstance(query, str) or not query.strip():
                return RoutedResult(error_content("invalid_payload",
                                                  "query is required: the words to find."),
                                    is_error=True, error_code="invalid_payload")
            limit = args.get("limit", 10)
            limit = max(1, min(SEARCH_LIMIT_MAX, limit if isinstance(limit, int) else 10))
            if name == "zoea_search_broadcasts":
                hits = await self.store.search_broadcasts(query, limit=limit)
            else:
                field = "reasoning" if name == "zoea_search_reasoning" else "content"
                hits = await self.store.search_memories(self.mysis_id, query, limit=limit,
                                                        field=field)
            key = "broadcast_id" if name == "zoea_search_broadcasts" else "memory_id"
            rows = [{key: h.memory_id, "role": h.role, "source": h.source,
                     "tool": h.tool_name, "snippet": h.snippet} for h in hits]
            text = json.dumps({"query": query, "results": rows, "count": len(rows)},
                              ensure_ascii=False)
            return RoutedResult(self.redact(text))
        if self.swarm is None:
            return RoutedResult(error_content("unavailable", "The swarm is not running."),
                                is_error=True, error_code="unavailable")
        if name == "zoea_broadcast":
            message = args.get("message")
            if not isinstance(message, str) or not message.strip():
                return RoutedResult(error_content("invalid_payload",
                                                  "message is required: what to tell the swarm."),
                                    is_error=True, error_code="invalid_payload")
            count = await self.swarm.broadcast_from(self.mysis_id, self.redact(message))
            return RoutedResult(json.dumps({"sent": True, "recipients": count}))
        status = await self.swarm.swarm_status(self.mysis_id)
        return RoutedResult(json.dumps(status, ensure_ascii=False))
