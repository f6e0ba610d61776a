"""The swarm's own tools (``zoea_*``), which a Mysis calls beside the game's.

Search its memories (or, by id or name, another Mysis's of the swarm) and the
broadcasts, read a memory a page at a time, broadcast to the swarm, see the swarm's
status. They are answered from the store and the orchestrator, never the game; every
text is masked by the Mysis's account pool (``game/accounts.py``) before a model sees
it. ``SwarmTools`` is what the game router (``game/router.py``) receives as its
``OwnTools``; ``swarm_router`` builds a Mysis's router with them.
"""

from __future__ import annotations

import contextlib
import json
import re
from datetime import UTC, datetime
from typing import Any, Protocol

from ..core.tokens import count_tokens
from ..core.types import Memory
from ..game.accounts import AccountPool
from ..game.router import RoutedResult, ToolRouter, error_content, invalid_arguments, shown
from ..game.session import GameSession
from ..game.state_cache import GameStateCache
from ..storage import SearchHit, StoreError
from ..storage.search import SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX

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


class SwarmPort(Protocol):
    """What the router needs from the orchestrator for ``zoea_broadcast``/``_swarm_status``."""

    async def broadcast_from(self, mysis_id: int, text: str) -> int:
        """Send ``text`` to every other Mysis; return how many received it."""
        ...

    async def swarm_status(self, mysis_id: int) -> dict[str, Any]:
        """The swarm as the calling Mysis may see it."""
        ...


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


class SwarmTools:
    """The ``zoea_*`` tools of one Mysis, bound to it.

    Args:
        pool: the Mysis's account pool: the caller (its ``mysis_id``; every tool is bound
            to it), the store it reads (memories, broadcasts, Myses), and its ``redact``,
            which masks every answer.
        swarm: the orchestrator, for broadcasts and swarm status (None: not running).
    """

    tools = ORCHESTRATOR_TOOLS
    names = ORCHESTRATOR_TOOL_NAMES

    def __init__(self, pool: AccountPool, swarm: SwarmPort | None = None) -> None:
        self.pool = pool
        self.store = pool.store
        self.mysis_id = pool.mysis_id
        self.swarm = swarm

    async def run(self, name: str, args: dict[str, Any]) -> RoutedResult:
        """Run one of the swarm's tools (``name`` is one of ``names``) for the Mysis."""
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
            count = await self.swarm.broadcast_from(self.mysis_id, self.pool.redact(message))
            return RoutedResult(json.dumps({"sent": True, "recipients": count}))
        status = await self.swarm.swarm_status(self.mysis_id)
        return RoutedResult(json.dumps(status, ensure_ascii=False))

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
            return invalid_arguments(
                f"exact must be true or false (got {shown(args.get('exact'))})."
            )
        broadcasts = name == "zoea_search_broadcasts"
        whose = self.mysis_id
        if not broadcasts:
            target = await self._target(args.get("mysis_id"))
            if isinstance(target, RoutedResult):
                return target
            whose = target
        await self.pool.load_secrets()
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
        return RoutedResult(self.pool.redact(answer))

    def _hit_text(
        self,
        text: str,
        chars: int,
        memory_id: int | None = None,
        part: str = "content",
        mysis_id: int | None = None,
    ) -> str:
        """A hit's text, redacted and cut at SEARCH_HIT_CHARS with how to read the rest."""
        text = self.pool.redact(text)
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
                f"No Mysis {shown(value)} in your swarm. zoea_swarm_status lists the "
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
        row["snippet"] = self.pool.redact(hit.snippet)
        return row

    async def _read_memory(self, args: dict[str, Any]) -> RoutedResult:
        """``zoea_read_memory``: one of the caller's memories, a page at a time."""
        memory_id = _as_int(args.get("memory_id"))
        if memory_id is None or memory_id < 1:
            return invalid_arguments(
                "memory_id must be a memory's id, a whole number such as 1234 "
                f"(got {shown(args.get('memory_id'))})."
            )
        raw_offset = args.get("offset")
        offset = 0 if raw_offset is None else _as_int(raw_offset)
        if offset is None or offset < 0:
            return invalid_arguments(
                f"offset must be a whole number of characters, 0 or more (got {shown(raw_offset)})."
            )
        part = args.get("part") or "content"
        if not isinstance(part, str) or part not in READ_PARTS:
            return invalid_arguments(
                f"part must be one of {', '.join(READ_PARTS)} (got {shown(part)})."
            )
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
        await self.pool.load_secrets()
        texts = {p: self.pool.redact(_part_text(memory, p)) for p in READ_PARTS}
        text = texts[part]
        total = len(text)
        if offset > total:
            return invalid_arguments(
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


def swarm_router(
    pool: AccountPool,
    session: GameSession,
    *,
    cache: GameStateCache | None = None,
    swarm: SwarmPort | None = None,
) -> ToolRouter:
    """A Mysis's router: the game's tools through its account pool, and the swarm's own."""
    return ToolRouter(pool, session, cache=cache, own=SwarmTools(pool, swarm))


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
