"""The SQLite store (aiosqlite); schema and migrations come from ``store/``."""

from .store import (
    Broadcast,
    MysisRecord,
    NewMemory,
    RequestRecord,
    SearchHit,
    Store,
    StoreError,
)

__all__ = [
    "Broadcast",
    "MysisRecord",
    "NewMemory",
    "RequestRecord",
    "SearchHit",
    "Store",
    "StoreError",
]
