"""The SQLite store (aiosqlite); schema and migrations come from ``store/``."""

from .store import (
    Account,
    Broadcast,
    MysisRecord,
    NewMemory,
    RequestRecord,
    SearchHit,
    Store,
    StoreError,
)

__all__ = [
    "Account",
    "Broadcast",
    "MysisRecord",
    "NewMemory",
    "RequestRecord",
    "SearchHit",
    "Store",
    "StoreError",
]
