"""The tool router: what a Mysis may call, and where each call goes.

It offers the tools it receives beside the game's (``OwnTools``: the swarm's own
``zoea_*`` tools, ``orchestrator/swarm_tools.py``) and the game's, in one stable order
so prompt caches keep hitting, either a schema per game tool or, compact, one
``game(command, args)`` tool (``core/game_tool.py``); runs each call for one Mysis, a
``game`` call as the command it names. The Mysis's account pool (``game/accounts.py``)
fills game credentials at ``login``, keeps the password ``register`` returns, and masks
every pooled password, and every secret's field (password, session id, token), in what
the router hands back, results and refusals alike (``core/redaction.py``), so no secret
ever reaches a model or the memories.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..core.game_tool import GAME_TOOL, GameCallError, ToolsMode, game_command, game_tool
from ..core.redaction import PASSWORD_MASK, mask_data
from ..core.types import ToolCall
from .accounts import AccountPool
from .errors import GameConnectionError, GameToolError
from .session import GameSession, ToolInfo
from .state_cache import GameStateCache
from .waits import ticks_to_wait

REDACTED = PASSWORD_MASK
#: Arguments the router manages itself and hides from models.
_HIDDEN_PROPERTIES = frozenset({"session_id", "password"})


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


class OwnTools(Protocol):
    """Tools a router offers before the game's and answers without the game (the
    swarm's own, ``orchestrator/swarm_tools.py``'s ``SwarmTools``)."""

    #: Each tool as ``{name, description, parameters}``, in the order models see them.
    @property
    def tools(self) -> Sequence[dict[str, Any]]: ...

    @property
    def names(self) -> frozenset[str]: ...

    async def run(self, name: str, args: dict[str, Any]) -> RoutedResult:
        """Answer one call of one of ``names``."""
        ...


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
        pool: the Mysis's account pool: who calls (its ``mysis_id``), on which game (its
            ``server``: "embedded" or the URL), over which store.
        session: the Mysis's own game session.
        cache: the shared game-state cache.
        own: the tools offered before the game's (None: the game's only); a Mysis's
            router has the swarm's (``orchestrator.swarm_tools.swarm_router``).
    """

    def __init__(
        self,
        pool: AccountPool,
        session: GameSession,
        *,
        cache: GameStateCache | None = None,
        own: OwnTools | None = None,
    ) -> None:
        self.pool = pool
        self.mysis_id = pool.mysis_id
        self.server = pool.server
        self.session = session
        self.cache = cache if cache is not None else GameStateCache()
        self.own = own
        #: The schemas by mode, with the game's tool list they were made from.
        self._schemas: dict[ToolsMode, tuple[int, list[dict[str, Any]]]] = {}
        session.relogin = self.pool.relogin

    @property
    def account(self) -> str | None:
        """The game account this Mysis flies (None: none yet)."""
        return self.pool.account

    @account.setter
    def account(self, value: str | None) -> None:
        self.pool.account = value

    @property
    def own_names(self) -> frozenset[str]:
        """The names of the tools answered without the game."""
        return self.own.names if self.own is not None else frozenset()

    # -- what the model sees --------------------------------------------------

    async def tool_schemas(self, mode: ToolsMode = "full") -> list[dict[str, Any]]:
        """Our own tools first, then the game's, sorted by name (stable order).

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
                if t.name not in self.own_names
            ]
            ours = [
                function_tool(t["name"], t["description"], t["parameters"])
                for t in (self.own.tools if self.own is not None else ())
            ]
            cached = (id(tools), ours + ([game_tool(game)] if mode == "compact" else game))
            self._schemas[mode] = cached
        return cached[1]

    def redact(self, text: str) -> str:
        """``text`` with every known game password and every secret's field masked."""
        return self.pool.redact(text)

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
                return invalid_arguments(str(error))
        if self.own is not None and name in self.own.names:
            return await self.own.run(name, args)
        await self.pool.load_secrets()
        try:
            if call.name == GAME_TOOL and (unknown := await self._unknown_command(name)):
                return unknown
            if name == "login":
                outcome = await self.pool.login(self.session, args)
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
            await self.pool.remember_registration(args, data)
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
                f"{shown(command)} is not a game command.{hint} The game tool's "
                "description lists every command and its arguments.",
            ),
            is_error=True,
            error_code="unknown_command",
        )


def shown(value: Any) -> str:
    """An argument as an error message quotes it (briefly)."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def invalid_arguments(message: str) -> RoutedResult:
    """A refusal of a call's arguments, in words the model can act on."""
    return RoutedResult(
        error_content("invalid_arguments", message), is_error=True, error_code="invalid_arguments"
    )
