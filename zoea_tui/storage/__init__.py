"""The SQLite store (aiosqlite); schema and migrations come from ``store/``."""

from .errors import StoreError
from .search import SearchHit
from .store import (
    Account,
    Broadcast,
    MysisRecord,
    NewMemory,
    RequestRecord,
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
