"""A tiny game loop for the autopilot: the real composer, the real world, no store.

One Mysis plays a seeded :class:`~zoea_tui.sim.World`: its memories are kept
in a list (built like the store builds them, see ``tests/helpers.py``), every
request is composed by :func:`~zoea_tui.core.compose.compose` under the chosen
strategy, the autopilot answers, and its tool calls run directly on
``World.call``. Like the router, the harness fills credentials into
``login {}``, keeps the password of ``register`` out of the stored result,
shows the assigned account in the system prompt, keeps the game-state cache
whose projection the composer sends with every request, and answers the
``zoea_*`` tools itself. Like the orchestrator, it tells the autopilot which round
of its turn each request is (``ChatRequest.turn_round``) and records every turn: a
commander message or broadcast not yet sent opens a turn at that memory; otherwise the
turn is a nudge (``prompts.nudge_text(1)``; a ``start`` turn when nothing was ever
sent) that the composer places where it was received. A turn ends when the
autopilot answers text without calls, or at the round limit. The world
advances one tick per round and a few ticks between turns (the idle wait
before the next nudge), so trips complete while the Mysis waits.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

from tests.helpers import Log, history_of
from zoea_tui.core import prompts
from zoea_tui.core.compose import compose
from zoea_tui.core.composition import ComposeSettings, Composition, History
from zoea_tui.core.strategies.summarize import summary_content
from zoea_tui.core.types import ToolCall, Turn
from zoea_tui.game.state_cache import GameStateCache
from zoea_tui.providers.autopilot import AutopilotProvider
from zoea_tui.providers.base import ChatRequest, ChatResponse
from zoea_tui.sim import World
from zoea_tui.sim.errors import GameError

REDACTED = "[stored by Zoea Nova]"
DEFAULT_ORDER = "Mine ore at the nearest belt and sell it at the station."
SNAPSHOT_TOOLS = frozenset(
    {"get_status", "get_ship", "get_cargo", "get_system", "get_poi", "get_nearby", "get_map"}
)

_ZOEA_TOOLS: tuple[tuple[str, str, dict[str, Any], tuple[str, ...]], ...] = (
    (
        "zoea_search_messages",
        "Search your past messages, orders and tool results.",
        {"query": {"type": "string"}, "limit": {"type": "integer"}},
        ("query",),
    ),
    (
        "zoea_search_reasoning",
        "Search your own past reasoning.",
        {"query": {"type": "string"}, "limit": {"type": "integer"}},
        ("query",),
    ),
    (
        "zoea_search_broadcasts",
        "Search past swarm broadcasts.",
        {"query": {"type": "string"}, "limit": {"type": "integer"}},
        ("query",),
    ),
    (
        "zoea_broadcast",
        "Send a message to the whole swarm.",
        {"message": {"type": "string"}},
        ("message",),
    ),
    ("zoea_swarm_status", "The state of every Mysis of the swarm.", {}, ()),
)


def tool_schemas() -> list[dict[str, Any]]:
    """The OpenAI function schemas a Mysis is offered: the world's tools and the zoea_* ones."""
    schemas = [
        {
            "type": "function",
            "function": {
                "name": spec["name"],
                "description": spec["description"],
                "parameters": spec["input_schema"],
            },
        }
        for spec in World.tool_specs()
    ]
    for name, description, properties, required in _ZOEA_TOOLS:
        schemas.append(
            {
                "type": "function",
                "function": {
                    "name": name,
                    "description": description,
                    "parameters": {
                        "type": "object",
                        "properties": properties,
                        "required": list(required),
                    },
                },
            }
        )
    return schemas


TOOLS = tool_schemas()


@dataclass
class Stats:
    """What a run did."""

    rounds: int = 0
    turns: int = 0
    calls: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    texts: int = 0
    decision_seconds: list[float] = field(default_factory=list)
    #: Rounds of every turn, in order.
    turn_rounds: list[int] = field(default_factory=list)
    #: Turns that ended with a text answer (not at the round limit).
    turns_ended_by_text: int = 0

    @property
    def text_end_share(self) -> float:
        """Share of the turns that ended with a text answer before the round limit."""
        return self.turns_ended_by_text / self.turns if self.turns else 0.0

    @property
    def wasted(self) -> int:
        """Calls that achieved nothing: refused by the game."""
        return sum(self.errors.values())

    @property
    def snapshots(self) -> int:
        """Snapshot and search calls made to learn what the context had lost."""
        return sum(
            n
            for name, n in self.calls.items()
            if name in SNAPSHOT_TOOLS or name.startswith("zoea_search")
        )


class Harness:
    """One Mysis, its memories, the composer, the autopilot and a world."""

    def __init__(
        self,
        *,
        seed: int = 42,
        strategy: str = "turn-aware",
        settings: ComposeSettings | None = None,
        orders: tuple[str, ...] = (DEFAULT_ORDER,),
        world: World | None = None,
        key: str = "mysis-1",
        ticks_per_round: int = 1,
        ticks_between_turns: int = 3,
        tools: list[dict[str, Any]] | None = None,
    ) -> None:
        self.world = world if world is not None else World(seed=seed)
        self.strategy = strategy
        self.settings = settings or ComposeSettings()
        self.log = Log()
        self.key = key
        self.credentials: dict[str, str] = {}
        self.account: str | None = None
        self.latest_broadcast: str | None = None
        self.provider = AutopilotProvider()
        self.tools = TOOLS if tools is None else tools
        self.ticks_per_round = ticks_per_round
        self.ticks_between_turns = ticks_between_turns
        self.stats = Stats()
        #: The game-state cache of the router: its projection closes every request.
        self.cache = GameStateCache()
        #: Every turn begun, oldest first (the store's ``turns`` table).
        self.turns: list[Turn] = []
        #: The newest memory a sent request had seen (the orchestrator's ``_sent_upto``).
        self.sent_upto = 0
        #: Rounds played in the current turn (its first round carries the nudge level).
        self.round_in_turn = 0
        #: The app was relaunched since the last turn began (:meth:`relaunch`).
        self.relaunched = False
        #: Every composed request, in order (the benchmark replays them).
        self.requests: list[tuple[dict[str, Any], ...]] = []
        for order in orders:
            self.log.direct(order)

    # -- the commander -----------------------------------------------------------------
    def order(self, text: str) -> None:
        """A commander direct message."""
        self.log.direct(text)

    def broadcast(self, text: str) -> None:
        """A commander broadcast: stored and shown in the system prompt."""
        self.log.broadcast(text)
        self.latest_broadcast = text

    def relaunch(self) -> None:
        """The app quit and opened again on the same store: the memories and the turns
        stay; the provider, the game session (logged out) and the router's game-state
        cache are new, and the next turn is a ``start`` turn."""
        self.provider = AutopilotProvider()
        self.cache = GameStateCache()
        self.key += "+"
        self.relaunched = True

    # -- composing -----------------------------------------------------------------------
    def history(self) -> History:
        """The History the store would load, with the router's account line and the
        game-state projection."""
        history = history_of(
            self.log.memories,
            self.settings,
            strategy=self.strategy,
            latest_broadcast=self.latest_broadcast,
            game_state=self.cache.summary(self.account),
            turns=self.turns,
        )
        if self.account is None:
            return history
        return replace(history, account=self.account)

    def begin_turn(self) -> Turn:
        """Record the next turn as the orchestrator does (``MysisRuntime.upcoming_turn``)."""
        memories = self.log.memories
        prompt = next((m for m in memories if m.is_prompt and m.id > self.sent_upto), None)
        if prompt is not None:
            turn = Turn(1, prompt.id, prompt.source)  # type: ignore[arg-type]
        else:
            first = (memories[-1].id if memories else 0) + 1
            fresh = not self.turns or self.relaunched
            turn = Turn(
                1, first, "start" if fresh else "nudge", 0 if fresh else 1, prompts.nudge_text(1)
            )
        self.turns.append(turn)
        self.round_in_turn = 0
        self.relaunched = False
        return turn

    async def compose(self) -> Composition:
        """Compose the next request; write a due summary first, as the orchestrator does."""
        turn = self.turns[-1] if self.turns else None
        level = turn.nudge_level if turn is not None and self.round_in_turn == 0 else 0
        settings = replace(self.settings, nudge_level=level)
        composition = compose(self.history(), self.strategy, settings)
        request = composition.summary_request
        if request is not None:
            text = await self.provider.summarize(request)
            self.log.add("user", "summary", summary_content(text, request.last_request))
            composition = compose(self.history(), self.strategy, settings)
        self.sent_upto = max(self.sent_upto, composition.last_memory_id or 0)
        return composition

    # -- playing -------------------------------------------------------------------------
    async def round(self) -> ChatResponse:
        """One LLM call and the execution of its tool calls."""
        composition = await self.compose()
        self.requests.append(composition.messages)
        started = time.perf_counter()
        response = await self.provider.chat(
            ChatRequest(
                messages=composition.messages, tools=self.tools, turn_round=self.round_in_turn + 1
            )
        )
        self.stats.decision_seconds.append(time.perf_counter() - started)
        self.stats.rounds += 1
        self.round_in_turn += 1
        self.log.add(
            "assistant",
            "llm",
            response.content,
            reasoning=response.reasoning,
            tool_calls=response.tool_calls,
        )
        if not response.tool_calls:
            self.stats.texts += 1
        for call in response.tool_calls:
            self.stats.calls[call.name] += 1
            self.log.result(call.id, call.name, self.execute(call))
        self.world.advance(self.ticks_per_round)
        return response

    async def turn(self, max_rounds: int = 10) -> list[ChatResponse]:
        """One turn: rounds until the autopilot answers text (or the round limit), then
        the idle wait before the next turn's nudge."""
        self.begin_turn()
        responses = []
        for _ in range(max_rounds):
            response = await self.round()
            responses.append(response)
            if not response.tool_calls:
                self.stats.turns_ended_by_text += 1
                break
        self.stats.turns += 1
        self.stats.turn_rounds.append(len(responses))
        self.world.advance(self.ticks_between_turns)
        return responses

    async def play(self, turns: int, max_rounds: int = 10) -> Stats:
        """Play ``turns`` turns; returns the run's statistics."""
        for _ in range(turns):
            await self.turn(max_rounds)
        return self.stats

    async def play_ticks(self, ticks: int, max_rounds: int = 10) -> Stats:
        """Play whole turns until the world clock has moved ``ticks`` ticks."""
        end = self.world.current_tick + ticks
        while self.world.current_tick < end:
            await self.turn(max_rounds)
        return self.stats

    def score(self) -> dict[str, Any]:
        """This Mysis's row of ``World.score()`` (zeros before it registers)."""
        rows = self.world.score()["players"]
        return rows.get(self.account or "", {"score": 0, "ore_sold": 0, "ore_mined": 0})

    # -- the router ------------------------------------------------------------------------
    def execute(self, call: ToolCall) -> str:
        """Run one call like the router: credentials filled, passwords kept out."""
        args = call.parsed_arguments()
        if args is None:
            return self.error("invalid_json", "Invalid JSON in request body")
        if call.name.startswith("zoea_"):
            return self.zoea(call.name, args)
        if call.name == "login":
            if self.account is None or self.account not in self.credentials:
                return self.error(
                    "no_account",
                    "No account is assigned to this Mysis yet: "
                    "call register(username, empire) to create one.",
                )
            args = {"username": self.account, "password": self.credentials[self.account]}
        try:
            result = self.world.call(self.key, call.name, args)
        except GameError as error:
            self.stats.errors[error.code] += 1
            return json.dumps({"error": error.to_dict()})
        if call.name == "register":
            self.account = result["username"]
            self.credentials[self.account] = result["password"]
            result["password"] = REDACTED
        if self.account is not None:
            tick = result.get("current_tick")
            self.cache.update(
                self.account, call.name, result, tick if isinstance(tick, int) else None
            )
        return json.dumps(result)

    def error(self, code: str, message: str) -> str:
        self.stats.errors[code] += 1
        return json.dumps({"error": {"code": code, "message": message}})

    def zoea(self, name: str, args: dict[str, Any]) -> str:
        if name == "zoea_swarm_status":
            return json.dumps(
                {"myses": [{"name": "test", "state": "running", "account": self.account}]}
            )
        if name == "zoea_broadcast":
            return json.dumps({"sent": True})
        query = str(args.get("query", "")).lower()
        limit = int(args.get("limit") or 10)
        hits = []
        for memory in reversed(self.log.memories):
            text = memory.reasoning if name == "zoea_search_reasoning" else memory.content
            if name == "zoea_search_broadcasts" and memory.source != "broadcast":
                continue
            at = text.lower().find(query) if query else -1
            if at >= 0:
                hits.append(
                    {
                        "memory_id": memory.id,
                        "role": memory.role,
                        "tool_name": memory.tool_name,
                        "snippet": text[max(0, at - 300) : at + 300],
                    }
                )
            if len(hits) >= limit:
                break
        return json.dumps({"query": query, "count": len(hits), "results": hits})
