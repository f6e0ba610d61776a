"""The SQLite store (aiosqlite); schema and migrations come from ``store/``.

Callers import from here: the :class:`Store` (``store.py``) and the records it keeps
(``records.py``).
"""

from ..core.types import NewMemory
from .errors import StoreError
from .records import Account, Broadcast, MysisRecord, RequestRecord
from .search import SearchHit
from .store import Store

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
