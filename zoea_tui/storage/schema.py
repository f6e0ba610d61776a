"""Print the fully migrated schema: ``python -m zoea_tui.storage.schema``."""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

from .migrations import schema_text
from .store import Store


async def _main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        store = await Store.open(Path(folder) / "schema.db")
        async with store:
            sys.stdout.write(await schema_text(store.connection))


if __name__ == "__main__":
    asyncio.run(_main())
