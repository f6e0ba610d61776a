"""Search, in one place: the Myses' tools (``zoea_search_*``) and the commander's ``/``.

The seeds' search found every message whose text contains the query. Here each word
of the query must appear somewhere in the text, as a substring ("ron" finds "iron",
"IRON" and "Ironclad"), case-insensitively; hits are ranked by how often the words
occur for the text's length (bm25's formula, without the rarity of each word), newest
first among equals. With ``exact`` the whole query, as typed, must appear with its
case: the seeds' behaviour, when a Mysis wants it.

The index (migration 012) is a trigram index that keeps only which rows hold each
trigram (``detail = none``: no positions, a quarter of the size). A word of three
characters or more asks it for the rows holding every trigram of the word; those rows
are the candidates, and the text of each is checked here for the words themselves,
counted and cut into a snippet. A query without such a word reads the Mysis's
memories newest first. Candidates are read newest first, :data:`SEARCH_SCOPE` at a
time: the hits are ranked among the newest candidates, and older ones are read only
while the hits found are fewer than asked for, so an old hit is never lost and a
common word costs a bounded read.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict, Unpack

from ..core.types import tool_calls_from_json
from .records import NO_END

#: Characters of each search hit's text read with it (the start of the text).
SEARCH_TEXT_LIMIT = 4000
#: The hits a search returns unless asked otherwise, and the most it returns.
SEARCH_LIMIT_DEFAULT = 20
SEARCH_LIMIT_MAX = 100
#: Characters of text shown before the first match in a snippet, and in all.
SNIPPET_BEFORE = 60
SNIPPET_CHARS = 220
#: Shortest word a trigram index can find.
TRIGRAM = 3
#: Candidates read at a time, newest first; the hits are ranked among those read.
SEARCH_SCOPE = 2000
#: bm25's constants, and the length of text its length normalisation takes as usual
#: (about a memory's mean; fixed, so that the scores of memories and of broadcasts
#: compare).
K1 = 1.2
B = 0.75
USUAL_CHARS = 250
#: Past every row id.

FetchAll = Callable[[str, Sequence[Any]], Awaitable[Sequence[Sequence[Any]]]]


class SearchOptions(TypedDict, total=False):
    """The options of a search, all optional (:meth:`Asked.of` owns the defaults);
    :class:`~zoea_tui.storage.store.Store` and the search functions pass them through."""

    #: The most hits (1 to 100).
    limit: int
    #: How much of each hit's text it carries.
    text_limit: int
    #: The whole query, case-sensitive, rather than its words.
    exact: bool


class MemorySearchOptions(SearchOptions, total=False):
    """A search of memories: :class:`SearchOptions` and the field searched."""

    #: ``content`` or ``reasoning``.
    field: str


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


def trigram_match(terms: Sequence[str]) -> str | None:
    """The index's query for ``terms``: every trigram of each term of three characters or
    more, all required (None: no term is that long)."""
    grams: list[str] = []
    for term in terms:
        for i in range(len(term) - TRIGRAM + 1):
            gram = _quoted(term[i : i + TRIGRAM])
            if gram not in grams:
                grams.append(gram)
    return " ".join(grams) or None


@dataclass(frozen=True, slots=True)
class Query:
    """A query as searched: its words (or, exact, the whole text) and the index's query."""

    terms: tuple[str, ...]
    exact: bool
    match: str | None
    #: What is looked for in a text folded as :meth:`_folded` folds it (made once).
    needles: tuple[str, ...]

    @classmethod
    def of(cls, query: str, exact: bool = False) -> Query | None:
        """The query typed (None: nothing to search for)."""
        if exact:
            text = query.strip()
            return cls((text,), True, trigram_match([text]), (text,)) if text else None
        terms = tuple(query_terms(query))
        if not terms:
            return None
        return cls(terms, False, trigram_match(terms), tuple(t.lower() for t in terms))

    def _folded(self, text: str) -> str:
        return text if self.exact else text.lower()

    def score(self, text: str) -> float | None:
        """How well ``text`` matches (None: it lacks a word): bm25's sum over the words of
        tf·(k1+1)/(tf+k1·(1-b+b·length/usual)), tf being how often the word occurs
        (higher is better)."""
        folded = self._folded(text)
        norm = K1 * (1 - B + B * len(text) / USUAL_CHARS)
        total = 0.0
        for needle in self.needles:
            tf = folded.count(needle)
            if not tf:
                return None
            total += tf * (K1 + 1) / (tf + norm)
        return total

    def finds(self, text: str) -> int:
        """Where the longest word first occurs in ``text`` (-1: nowhere)."""
        return self._folded(text).find(max(self.needles, key=len))

    def cut(self, text: str, marks: tuple[str, str] = ("[", "]")) -> str:
        """The snippet of ``text`` around the first match of the longest word."""
        start = max(self.finds(text) - SNIPPET_BEFORE, 0)
        window = text[start : start + SNIPPET_CHARS]
        return snippet(window, start + 1, len(text), self.terms, self.exact, marks)


def snippet(
    window: str,
    start: int,
    total: int,
    terms: Sequence[str],
    exact: bool,
    marks: tuple[str, str] = ("[", "]"),
) -> str:
    """The text around the first match, each match between ``marks``, cut ends shown as ``…``.

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
        out += [window[at:a], marks[0], window[a:b], marks[1]]
        at = b
    out.append(window[at:])
    text = " ".join("".join(out).split())
    head = "… " if start > 1 else ""
    tail = " …" if start - 1 + len(window) < total else ""
    return head + text + tail


@dataclass(frozen=True, slots=True)
class Found:
    """A row that holds the query, with its score and the text that held it."""

    score: float
    row: Sequence[Any]
    text: str


#: What a memory hit reads (the row id first).
MEMORY_COLUMNS = (
    "m.id, m.role, m.source, m.tool_name, m.created_at, m.game_tick, m.sender_id, "
    "m.content, m.reasoning, m.tool_calls"
)
#: Where a memory's searched fields are in a row of :data:`MEMORY_COLUMNS`.
MEMORY_FIELDS = {"content": 7, "reasoning": 8}
#: What a broadcast hit reads (the row id first).
BROADCAST_COLUMNS = "b.id, b.created_at, b.game_tick, b.sender_id, b.content"


async def ranked(
    fetch_all: FetchAll,
    sql: str,
    params: Sequence[Any],
    query: Query,
    text_of: Callable[[Sequence[Any]], str],
    limit: int,
) -> list[Found]:
    """The best ``limit`` rows of ``sql`` whose text holds ``query``, best first.

    ``sql`` reads rows newest first, the row id first, and takes two more values after
    ``params``: the id to read below and how many rows to read.
    """
    found: list[Found] = []
    before = NO_END
    while True:
        rows = await fetch_all(sql, [*params, before, SEARCH_SCOPE])
        for row in rows:
            text = text_of(row)
            score = query.score(text)
            if score is not None:
                found.append(Found(score, row, text))
        if len(found) >= limit or len(rows) < SEARCH_SCOPE:
            break
        before = rows[-1][0]
    found.sort(key=lambda f: (-f.score, -f.row[0]))
    return found[:limit]


def _like(term: str) -> str:
    escaped = term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _short_words(query: Query, columns: Sequence[str]) -> tuple[str, list[str]]:
    """SQL conditions (and their values) a row must meet to hold the words the index
    cannot find (fewer than three characters), so that a row without them is not read:
    ``LIKE`` (which ignores the case of ASCII letters only), or, exact, ``instr``."""
    sql, values = "", []
    for term in query.terms:
        if len(term) >= TRIGRAM:
            continue
        test = "instr({}, ?) > 0" if query.exact else "{} LIKE ? ESCAPE '\\'"
        sql += " AND (" + " OR ".join(test.format(c) for c in columns) + ")"
        values += [term if query.exact else _like(term)] * len(columns)
    return sql, values


async def find_memories(
    fetch_all: FetchAll,
    mysis_id: int,
    query: Query,
    limit: int,
    fields: Sequence[str] = ("content",),
) -> list[Found]:
    """The Mysis's best ``limit`` memories whose ``fields`` (``content``, ``reasoning``
    or both, read as one text, a line apart) hold ``query``; each a row of
    :data:`MEMORY_COLUMNS`."""
    short, values = _short_words(query, [f"m.{f}" for f in fields])
    if query.match is None:
        sql = f"SELECT {MEMORY_COLUMNS} FROM memories m WHERE m.mysis_id = ?{short} "
        sql += "AND m.id < ? ORDER BY m.id DESC LIMIT ?"
        params = [mysis_id, *values]
    else:
        sql = (
            f"SELECT {MEMORY_COLUMNS} FROM memories_search_fts "
            "JOIN memories m ON m.id = memories_search_fts.rowid "
            f"WHERE memories_search_fts MATCH ? AND m.mysis_id = ?{short} "
            "AND memories_search_fts.rowid < ? ORDER BY memories_search_fts.rowid DESC LIMIT ?"
        )
        params = [query.match, mysis_id, *values]
    at = [MEMORY_FIELDS[f] for f in fields]

    def text_of(row: Sequence[Any]) -> str:
        return "\n".join(t for t in (row[i] for i in at) if t)

    return await ranked(fetch_all, sql, params, query, text_of, limit)


async def find_broadcasts(fetch_all: FetchAll, query: Query, limit: int) -> list[Found]:
    """The best ``limit`` broadcasts holding ``query`` (a row of :data:`BROADCAST_COLUMNS`)."""
    short, values = _short_words(query, ["b.content"])
    if query.match is None:
        sql = f"SELECT {BROADCAST_COLUMNS} FROM broadcasts b WHERE b.id > 0{short} "
        sql += "AND b.id < ? ORDER BY b.id DESC LIMIT ?"
        params: list[Any] = []
    else:
        sql = (
            f"SELECT {BROADCAST_COLUMNS} FROM broadcasts_search_fts "
            "JOIN broadcasts b ON b.id = broadcasts_search_fts.rowid "
            f"WHERE broadcasts_search_fts MATCH ?{short} AND broadcasts_search_fts.rowid < ? "
            "ORDER BY broadcasts_search_fts.rowid DESC LIMIT ?"
        )
        params = [query.match]
    return await ranked(fetch_all, sql, [*params, *values], query, lambda r: r[4], limit)


@dataclass(frozen=True, slots=True)
class Asked:
    """A search of the Myses' tools as asked: the query, the most hits, and how much of
    each hit's text it carries."""

    query: Query
    limit: int
    text_limit: int

    @classmethod
    def of(cls, query: str, options: SearchOptions) -> Asked | None:
        """The search typed, with the defaults of what ``options`` leaves out (None:
        nothing to search for)."""
        asked = Query.of(query, options.get("exact", False))
        if asked is None:
            return None
        limit = min(max(options.get("limit", SEARCH_LIMIT_DEFAULT), 1), SEARCH_LIMIT_MAX)
        return cls(asked, limit, max(options.get("text_limit", SEARCH_TEXT_LIMIT), 0))

    def hit(self, text: str, **record: Any) -> SearchHit:
        """The hit on ``text`` (``record``: the rest of its :class:`SearchHit`): its snippet
        and the start of the text."""
        return SearchHit(
            snippet=self.query.cut(text),
            text=text[: self.text_limit],
            text_chars=len(text),
            **record,
        )


async def search_memories(
    fetch_all: FetchAll, mysis_id: int, query: str, **options: Unpack[MemorySearchOptions]
) -> list[SearchHit]:
    """Ranked substring search of one Mysis's memories (``field``: content or reasoning)."""
    asked = Asked.of(query, options)
    if asked is None:
        return []
    field = options.get("field", "content")
    hits = []
    for found in await find_memories(fetch_all, mysis_id, asked.query, asked.limit, [field]):
        row, text = found.row, found.text
        extra: dict[str, Any] = {}
        if field == "reasoning":
            content = row[7] or ""
            extra = {"content": content[: asked.text_limit], "content_chars": len(content)}
            extra["calls"] = _call_names(row[9])
        hits.append(
            asked.hit(
                text,
                memory_id=row[0],
                role=row[1],
                source=row[2],
                tool_name=row[3],
                created_at=row[4],
                extra=extra,
                game_tick=row[5],
            )
        )
    return hits


async def search_broadcasts(
    fetch_all: FetchAll, query: str, **options: Unpack[SearchOptions]
) -> list[SearchHit]:
    """Ranked substring search of every broadcast."""
    asked = Asked.of(query, options)
    if asked is None:
        return []
    return [
        asked.hit(
            f.text,
            memory_id=f.row[0],
            role="user",
            source="broadcast",
            tool_name=None,
            created_at=f.row[1],
            extra={"sender_id": f.row[3]},
            game_tick=f.row[2],
        )
        for f in await find_broadcasts(fetch_all, asked.query, asked.limit)
    ]


def _call_names(raw: str | None) -> list[str]:
    if not raw:
        return []
    return [c.name for c in tool_calls_from_json(raw)]
