"""The Myses' search (``zoea_search_*``): substrings, ranked, case-insensitive.

The seeds' search found every message whose text contains the query. Here each word
of the query must appear somewhere in the text, as a substring ("ron" finds "iron",
"IRON" and "Ironclad"), case-insensitively; hits are ranked by bm25 over the trigram
indexes of migration 010, newest first among equals. With ``exact`` the whole query,
as typed, must appear with its case: the seeds' behaviour, when a Mysis wants it.

Words of fewer than three characters cannot use a trigram index: they filter the
rows the longer words found, or, when the query has no longer word, the Mysis's own
memories are scanned newest first.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.types import tool_calls_from_json

#: Characters of each search hit's text read with it (the start of the text).
SEARCH_TEXT_LIMIT = 4000
#: Characters of text shown before the first match in a snippet, and in all.
SNIPPET_BEFORE = 60
SNIPPET_CHARS = 220
#: Shortest word a trigram index can find.
TRIGRAM = 3

FetchAll = Callable[[str, Sequence[Any]], Awaitable[Sequence[Sequence[Any]]]]


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One search result, with a snippet around the match.

    ``text`` is the start of the searched text (the memory's ``content`` or
    ``reasoning``, the broadcast's content), at most the search's ``text_limit``
    characters; ``text_chars`` is that text's whole length. A reasoning hit carries
    the memory's content too (``extra["content"]``, ``extra["content_chars"]``, and
    ``extra["calls"]``, the names of its tool calls).
    """

    memory_id: int
    role: str
    source: str
    tool_name: str | None
    snippet: str
    created_at: float
    extra: dict[str, Any] = field(default_factory=dict)
    text: str = ""
    text_chars: int = 0
    game_tick: int | None = None


def query_terms(query: str) -> list[str]:
    """The words of a query (runs of letters, digits and ``_``), each found as a substring."""
    seen: list[str] = []
    for word in re.findall(r"\w+", query, flags=re.UNICODE):
        if word.lower() not in (w.lower() for w in seen):
            seen.append(word)
    return seen


def _quoted(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def _like(term: str) -> str:
    escaped = term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


@dataclass(frozen=True, slots=True)
class _Plan:
    """How one query is asked of SQLite."""

    match: str | None
    #: SQL conditions on the searched column (``{col}`` stands for it) and their values.
    filters: tuple[tuple[str, str], ...]
    #: The text whose first occurrence centres the snippet.
    probe: str
    terms: tuple[str, ...]
    exact: bool


def _plan(query: str, exact: bool) -> _Plan | None:
    if exact:
        text = query.strip()
        if not text:
            return None
        match = _quoted(text) if len(text) >= TRIGRAM else None
        return _Plan(match, (("instr({col}, ?) > 0", text),), text, (text,), True)
    terms = query_terms(query)
    if not terms:
        return None
    long = [t for t in terms if len(t) >= TRIGRAM]
    match = " ".join(_quoted(t) for t in long) if long else None
    filters = tuple(("{col} LIKE ? ESCAPE '\\'", _like(t)) for t in terms if len(t) < TRIGRAM)
    probe = max(terms, key=len)
    return _Plan(match, filters, probe, tuple(terms), False)


def snippet(window: str, start: int, total: int, terms: Sequence[str], exact: bool) -> str:
    """The text around the first match, each match in ``[`` ``]``, cut ends shown as ``…``.

    ``window`` is the text from character ``start`` (1-based) of a text of ``total``
    characters.
    """
    flags = 0 if exact else re.IGNORECASE
    spans: list[tuple[int, int]] = []
    for term in terms:
        spans += [(m.start(), m.end()) for m in re.finditer(re.escape(term), window, flags)]
    spans.sort()
    merged: list[list[int]] = []
    for a, b in spans:
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    out, at = [], 0
    for a, b in merged:
        out += [window[at:a], "[", window[a:b], "]"]
        at = b
    out.append(window[at:])
    text = " ".join("".join(out).split())
    head = "… " if start > 1 else ""
    tail = " …" if start - 1 + len(window) < total else ""
    return head + text + tail


async def search_memories(
    fetch_all: FetchAll,
    mysis_id: int,
    query: str,
    *,
    limit: int = 20,
    field: str = "content",
    text_limit: int = SEARCH_TEXT_LIMIT,
    exact: bool = False,
) -> list[SearchHit]:
    """Ranked substring search of one Mysis's memories (``field``: content or reasoning)."""
    plan = _plan(query, exact)
    if plan is None:
        return []
    col = f"m.{field}"
    locate = f"instr({col}, ?)" if exact else f"instr(lower({col}), lower(?))"
    select = (
        "SELECT m.id, m.role, m.source, m.tool_name, m.created_at, m.game_tick, "
        f"substr({col}, 1, ?), length({col}), "
        f"substr({col}, max({locate} - {SNIPPET_BEFORE}, 1), {SNIPPET_CHARS}), "
        f"max({locate} - {SNIPPET_BEFORE}, 1), "
        "substr(m.content, 1, ?), length(m.content), m.tool_calls "
    )
    params: list[Any] = [max(text_limit, 0), plan.probe, plan.probe, max(text_limit, 0)]
    where = ["m.mysis_id = ?"]
    values: list[Any] = [mysis_id]
    for condition, value in plan.filters:
        where.append(condition.format(col=col))
        values.append(value)
    if plan.match is not None:
        sql = (
            f"{select}FROM memories_substr_fts JOIN memories m "
            "ON m.id = memories_substr_fts.rowid WHERE memories_substr_fts MATCH ? AND "
            + " AND ".join(where)
            + " ORDER BY bm25(memories_substr_fts), m.id DESC LIMIT ?"
        )
        params += [f"{field} : ({plan.match})", *values]
    else:
        sql = f"{select}FROM memories m WHERE " + " AND ".join(where)
        sql += f" AND {col} != '' ORDER BY m.id DESC LIMIT ?"
        params += values
    params.append(min(max(limit, 1), 100))
    hits = []
    for row in await fetch_all(sql, params):
        extra: dict[str, Any] = {}
        if field == "reasoning":
            extra = {"content": row[10], "content_chars": row[11], "calls": _call_names(row[12])}
        hits.append(
            SearchHit(
                memory_id=row[0],
                role=row[1],
                source=row[2],
                tool_name=row[3],
                snippet=snippet(row[8], row[9], row[7], plan.terms, plan.exact),
                created_at=row[4],
                extra=extra,
                text=row[6],
                text_chars=row[7],
                game_tick=row[5],
            )
        )
    return hits


async def search_broadcasts(
    fetch_all: FetchAll,
    query: str,
    *,
    limit: int = 20,
    text_limit: int = SEARCH_TEXT_LIMIT,
    exact: bool = False,
) -> list[SearchHit]:
    """Ranked substring search of every broadcast."""
    plan = _plan(query, exact)
    if plan is None:
        return []
    col = "b.content"
    locate = f"instr({col}, ?)" if exact else f"instr(lower({col}), lower(?))"
    select = (
        "SELECT b.id, b.created_at, b.game_tick, b.sender_id, substr(b.content, 1, ?), "
        f"length(b.content), substr({col}, max({locate} - {SNIPPET_BEFORE}, 1), "
        f"{SNIPPET_CHARS}), max({locate} - {SNIPPET_BEFORE}, 1) "
    )
    params: list[Any] = [max(text_limit, 0), plan.probe, plan.probe]
    where = [condition.format(col=col) for condition, _ in plan.filters]
    values = [value for _, value in plan.filters]
    if plan.match is not None:
        sql = (
            f"{select}FROM broadcasts_substr_fts JOIN broadcasts b "
            "ON b.id = broadcasts_substr_fts.rowid WHERE broadcasts_substr_fts MATCH ?"
            + "".join(f" AND {w}" for w in where)
            + " ORDER BY bm25(broadcasts_substr_fts), b.id DESC LIMIT ?"
        )
        params += [plan.match, *values]
    else:
        sql = f"{select}FROM broadcasts b WHERE " + " AND ".join(where)
        sql += " ORDER BY b.id DESC LIMIT ?"
        params += values
    params.append(min(max(limit, 1), 100))
    return [
        SearchHit(
            memory_id=row[0],
            role="user",
            source="broadcast",
            tool_name=None,
            snippet=snippet(row[6], row[7], row[5], plan.terms, plan.exact),
            created_at=row[1],
            extra={"sender_id": row[3]},
            text=row[4],
            text_chars=row[5],
            game_tick=row[2],
        )
        for row in await fetch_all(sql, params)
    ]


def _call_names(raw: str | None) -> list[str]:
    if not raw:
        return []
    return [c.name for c in tool_calls_from_json(raw)]
