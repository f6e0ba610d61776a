"""The SQLite store (aiosqlite); schema and migrations come from ``store/``."""

from .errors import StoreError
from .store import (
    Account,
    Broadcast,
    MysisRecord,
    NewMemory,
    RequestRecord,
    SearchHit,
    Store,
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
