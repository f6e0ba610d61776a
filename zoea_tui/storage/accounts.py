"""The pool of game accounts, each flown by one Mysis at most: a part of :class:`~.store.Store`."""

from __future__ import annotations

import time
from typing import Any

from .core import StoreCore
from .records import (
    Account,
)

_ACCOUNT_COLUMNS = "id, server, username, password, empire, mysis_id"


class AccountsTables(StoreCore):
    """Game accounts: added, found, claimed, released."""

    async def add_account(
        self,
        server: str,
        username: str,
        password: str,
        *,
        empire: str | None = None,
        mysis_id: int | None = None,
    ) -> Account:
        """Add an account to the pool (or update its password), optionally assigned.

        Assigning it releases whatever account the Mysis held on that server.
        """
        now = time.time()
        async with self._transaction():
            if mysis_id is not None:
                await self._db.execute(
                    "UPDATE accounts SET mysis_id = NULL WHERE server = ? AND mysis_id = ? "
                    "AND username != ?",
                    (server, mysis_id, username),
                )
            await self._db.execute(
                "INSERT INTO accounts (server, username, password, empire, mysis_id, "
                "created_at, last_used_at) VALUES (?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (server, username) DO UPDATE SET password = excluded.password, "
                "empire = COALESCE(excluded.empire, empire), "
                "mysis_id = COALESCE(excluded.mysis_id, mysis_id), last_used_at = ?",
                (server, username, password, empire, mysis_id, now, now, now),
            )
            if mysis_id is not None:
                await self._db.execute(
                    "UPDATE myses SET account = ?, updated_at = ? WHERE id = ?",
                    (username, now, mysis_id),
                )
        account = await self.find_account(server, username)
        assert account is not None
        return account

    async def find_account(self, server: str, username: str) -> Account | None:
        """The pooled account with this name on this server."""
        row = await self.fetch_one(
            f"SELECT {_ACCOUNT_COLUMNS} FROM accounts WHERE server = ? AND username = ?",
            (server, username),
        )
        return Account(*row) if row else None

    async def account_for(self, mysis_id: int, server: str) -> Account | None:
        """The account assigned to a Mysis on a server, if any."""
        row = await self.fetch_one(
            f"SELECT {_ACCOUNT_COLUMNS} FROM accounts WHERE server = ? AND mysis_id = ?",
            (server, mysis_id),
        )
        return Account(*row) if row else None

    async def claim_account(self, mysis_id: int, server: str) -> Account | None:
        """The Mysis's account, else the oldest free one of the pool, now assigned to it."""
        current = await self.account_for(mysis_id, server)
        if current is not None:
            return current
        row = await self.fetch_one(
            "SELECT username FROM accounts WHERE server = ? AND mysis_id IS NULL "
            "ORDER BY id LIMIT 1",
            (server,),
        )
        if row is None:
            return None
        now = time.time()
        async with self._transaction():
            await self._db.execute(
                "UPDATE accounts SET mysis_id = ?, last_used_at = ? "
                "WHERE server = ? AND username = ? AND mysis_id IS NULL",
                (mysis_id, now, server, row[0]),
            )
            await self._db.execute(
                "UPDATE myses SET account = ?, updated_at = ? WHERE id = ?", (row[0], now, mysis_id)
            )
        return await self.account_for(mysis_id, server)

    async def release_accounts(self, mysis_id: int) -> None:
        """Return the Mysis's accounts to the pool."""
        async with self._transaction():
            await self._db.execute(
                "UPDATE accounts SET mysis_id = NULL WHERE mysis_id = ?", (mysis_id,)
            )
            await self._db.execute("UPDATE myses SET account = NULL WHERE id = ?", (mysis_id,))

    async def list_accounts(self, server: str | None = None) -> list[Account]:
        """The pool, oldest first (all servers unless one is named)."""
        sql = f"SELECT {_ACCOUNT_COLUMNS} FROM accounts"
        params: tuple[Any, ...] = ()
        if server is not None:
            sql, params = sql + " WHERE server = ?", (server,)
        return [Account(*row) for row in await self.fetch_all(sql + " ORDER BY id", params)]
