"""The account pool, as one Mysis uses it: its game account and the masking of passwords.

The swarm's accounts are kept in the store (``accounts``), one per Mysis at most. A
Mysis's pool fills in the credentials at ``login`` (its own account, claimed from the
pool when it has none), logs in again after a lost session, keeps the password that
``register`` returns, and knows every pooled password, so that ``redact`` masks each of
them, and every secret's field (password, session id, token), in whatever is handed back
(``core/redaction.py``).
"""

from __future__ import annotations

from typing import Any

from ..core.redaction import mask_text
from ..storage import Store
from .errors import GameToolError
from .session import GameSession


class AccountPool:
    """One Mysis's side of the swarm's pool of game accounts.

    Args:
        store: the SQLite store (the ``accounts`` it keeps).
        mysis_id: the Mysis whose account this is.
        server: the pool's key for the game ("embedded" or the URL).
    """

    def __init__(self, store: Store, mysis_id: int, server: str) -> None:
        self.store = store
        self.mysis_id = mysis_id
        self.server = server
        #: The account this Mysis flies (None: none yet).
        self.account: str | None = None
        self._secrets: set[str] = set()

    def redact(self, text: str) -> str:
        """``text`` with every known game password and every secret's field masked."""
        return mask_text(text, self._secrets)

    def keep_secret(self, secret: str) -> None:
        """Mask ``secret`` too from now on (a password the model gave)."""
        self._secrets.add(secret)

    async def login(self, session: GameSession, args: dict[str, Any]) -> Any:
        """``login``: the Mysis's own account (claimed from the pool when it has none), or
        the one it names if no other Mysis flies it; its password is masked from then on."""
        wanted = args.get("username")
        account = None
        if isinstance(wanted, str) and wanted:
            account = await self.store.find_account(self.server, wanted)
            if account is not None and account.mysis_id not in (None, self.mysis_id):
                raise GameToolError(
                    "account_in_use",
                    f"{wanted} is flown by another Mysis of "
                    "this swarm. Log in with no arguments to use your own.",
                )
        if account is None:
            account = await self.store.claim_account(self.mysis_id, self.server)
        if account is None:
            if isinstance(wanted, str) and isinstance(given := args.get("password"), str):
                self.keep_secret(given)  # masked in what comes back, refusals too
                return await session.call("login", args)  # credentials the user gave
            raise GameToolError(
                "no_account",
                "No game account is assigned to you yet. Call "
                "register(username, empire) to create one; Zoea Nova keeps its password.",
            )
        self._secrets.add(account.password)
        outcome = await session.call(
            "login", {"username": account.username, "password": account.password}
        )
        if account.mysis_id != self.mysis_id:
            await self.store.add_account(
                self.server, account.username, account.password, mysis_id=self.mysis_id
            )
        self.account = account.username
        return outcome

    async def relogin(self, session: GameSession) -> None:
        """After a lost session: log in again with the assigned account, silently."""
        account = await self.store.account_for(self.mysis_id, self.server)
        if account is None:
            raise GameToolError("no_account", "no account to log in with")
        await session.call("login", {"username": account.username, "password": account.password})

    async def remember_registration(self, args: dict[str, Any], data: dict[str, Any]) -> None:
        """After ``register``: the new account joins the pool, assigned to this Mysis."""
        password = data.get("password")
        username = data.get("username") or args.get("username")
        if isinstance(password, str) and isinstance(username, str):
            self._secrets.add(password)
            empire = data.get("empire") or args.get("empire")
            await self.store.add_account(
                self.server,
                username,
                password,
                empire=empire if isinstance(empire, str) else None,
                mysis_id=self.mysis_id,
            )
            self.account = username

    async def load_secrets(self) -> None:
        """Know every pooled password of this server, to mask it (once)."""
        if not self._secrets:
            self._secrets.update(a.password for a in await self.store.list_accounts(self.server))
