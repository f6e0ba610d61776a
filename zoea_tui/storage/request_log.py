"""How the request log is kept: each request's own figures, and what repeats stored once.

A logged request (migration 011) keeps what recomposing it byte for byte needs and
nothing twice:

- its own figures (time, strategy, tokens, latency, outcome), the newest memory it saw,
  its turn, nudge level and tool-schema tokens;
- ``memory_ids``: one entry per item of the composition, empty for a synthetic item
  (the system prompt, a nudge, the state), else the memory's id as its difference
  from the memory before it in the list (the first from the request's newest memory):
  ``",,-46,16,,16"``;
- ``digest``: the SHA-256 of its messages as sent, 32 bytes;
- references to **request parts**, texts stored once in ``request_parts`` and found by
  their hash (:func:`text_hash`): the composition settings (JSON), the list of its
  items' shapes (a JSON list of part ids, each the JSON ``[role, kind, action,
  reason]`` of one item), and, only when the request carried them beyond its turn's
  recorded state, the facts it was composed with (game state, latest broadcast,
  account).

A request **thinned** by the retention policy (``[storage] request_log``) keeps its
figures, settings and item shapes, and loses its memory ids, facts and digest: it is
still listed and recomposed, but can no longer be checked against what was sent.
Memories are never thinned.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from typing import Any

from ..core.composition import Item

#: The columns a :class:`~.store.RequestRecord` is read from, in its field order; the
#: request is ``r``, its parts ``s`` (settings), ``i`` (item shapes) and ``f`` (facts).
REQUEST_SELECT = (
    "SELECT r.id, r.mysis_id, r.created_at, r.strategy, r.last_memory_id, r.nudge_level, "
    "i.text, r.memory_ids, r.estimated_tokens, r.prompt_tokens, r.completion_tokens, "
    "r.latency_ms, r.outcome, r.error, r.tools_tokens, r.turn_id, r.cached_tokens, "
    "s.text, f.text, r.digest, r.error_kind, r.streamed, r.cache_write_tokens FROM requests r "
    "LEFT JOIN request_parts s ON s.id = r.settings_id "
    "LEFT JOIN request_parts i ON i.id = r.items_id "
    "LEFT JOIN request_parts f ON f.id = r.facts_id"
)

#: How many items a request had, from its item shapes (a subquery on ``requests r``).
ITEM_COUNT = "(SELECT json_array_length(p.text) FROM request_parts p WHERE p.id = r.items_id)"


def text_hash(text: str) -> int:
    """The key a request part is found by: the first 8 bytes of its SHA-256, signed
    (what SQLite's INTEGER holds). Registered for the migrations as ``zoea_text_hash``."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def unhex(text: str | None) -> bytes | None:
    """Hexadecimal text as bytes (None stays None); ``zoea_unhex`` in the migrations
    (SQLite's own ``unhex`` is newer than some systems' SQLite)."""
    return None if text is None else bytes.fromhex(text)


def compact(value: Any) -> str:
    """The JSON text of a part: no spaces, characters as they are."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def item_shape(item: Item) -> str:
    """The part text of one item's shape: what repeats across requests."""
    return compact([item.role, item.kind, item.action, item.reason])


def memory_ids_text(items: Sequence[Item], last_memory_id: int | None) -> str:
    """The items' memory ids, each as its difference from the one before (module doc)."""
    previous = last_memory_id or 0
    entries = []
    for item in items:
        if item.memory_id is None:
            entries.append("")
        else:
            entries.append(str(item.memory_id - previous))
            previous = item.memory_id
    return ",".join(entries)


def decode_items(
    shapes: Sequence[str], memory_ids: str | None, last_memory_id: int | None
) -> list[dict[str, Any]]:
    """The logged item list (``Item.to_dict`` without the tokens, which a recomposition
    counts again); a thinned request's items have no memory ids (``None``)."""
    entries = memory_ids.split(",") if memory_ids is not None and shapes else []
    previous = last_memory_id or 0
    items = []
    for n, shape in enumerate(shapes):
        role, kind, action, reason = json.loads(shape)
        memory_id: int | str | None = None
        if n < len(entries):
            if entries[n] == "":
                memory_id = "synthetic"
            else:
                previous += int(entries[n])
                memory_id = previous
        items.append(
            {
                "role": role,
                "kind": kind,
                "memory_id": memory_id,
                "action": action,
                "reason": reason or "",
            }
        )
    return items


def shape_ids(text: str | None) -> list[int]:
    """The part ids of an item-shape list (empty for none)."""
    return [int(i) for i in json.loads(text)] if text else []


def facts_text(game_state: str, latest_broadcast: str | None, account: str | None) -> str:
    """The part text of the facts a request was composed with."""
    return compact(
        {"game_state": game_state, "latest_broadcast": latest_broadcast, "account": account}
    )


def inputs_text(settings: str | None, facts: str | None) -> str | None:
    """The recorded inputs as migration 008 kept them (``RequestRecord.inputs``): the
    settings and the facts in one JSON object (None when neither was kept)."""
    if settings is None and facts is None:
        return None
    inputs: dict[str, Any] = {}
    if settings is not None:
        inputs["settings"] = json.loads(settings)
    if facts is not None:
        inputs.update(json.loads(facts))
    return compact(inputs)


def referenced_parts_sql() -> str:
    """The ids of every part a request refers to, directly or through its item shapes."""
    return (
        "SELECT settings_id FROM requests WHERE settings_id IS NOT NULL "
        "UNION SELECT items_id FROM requests WHERE items_id IS NOT NULL "
        "UNION SELECT facts_id FROM requests WHERE facts_id IS NOT NULL "
        "UNION SELECT j.value FROM request_parts p, json_each(p.text) j "
        "WHERE p.id IN (SELECT items_id FROM requests)"
    )


def chunks(values: Iterable[int], size: int = 500) -> Iterable[list[int]]:
    """``values`` in lists of at most ``size`` (SQLite limits a statement's parameters)."""
    batch: list[int] = []
    for value in values:
        batch.append(value)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch
