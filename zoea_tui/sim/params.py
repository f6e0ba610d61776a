"""Reading tool arguments the forgiving way models send them (numbers as strings, ...)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def text(args: dict[str, Any], name: str) -> str:
    """The argument as a string; missing or null gives ""."""
    value = args.get(name)
    if value is None:
        return ""
    return value if isinstance(value, str) else str(value)


def integer(args: dict[str, Any], name: str) -> int | None:
    """The argument as an int (whole numbers and numeric strings accepted), else None."""
    value = args.get(name)
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            return None
    return None


def flag(args: dict[str, Any], name: str, default: bool) -> bool:
    """The argument as a bool; "true"/"false" strings accepted; missing gives `default`."""
    value = args.get(name)
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return default


def string_list(args: dict[str, Any], name: str) -> list[str] | None:
    """The argument as a list of strings (a lone string becomes a list); missing gives None."""
    value = args.get(name)
    if value is None:
        return None
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [str(v) for v in value]
    return None


def find_by_id_or_name(
    table: dict[str, T], query: str, id_and_name: Callable[[T], tuple[str, str]]
) -> T | None:
    """The entry of `table` under `query`, or else the first whose id is `query` or whose
    name is it (case-insensitive): how a command finds an item, a POI, a system or a pilot."""
    if query in table:
        return table[query]
    wanted = query.strip().lower()
    for entry in table.values():
        entry_id, name = id_and_name(entry)
        if wanted in (entry_id, name.lower()):
            return entry
    return None
