"""Logging to a rotating file, never to the terminal (the TUI owns the screen)."""

from __future__ import annotations

import logging
import logging.handlers
from pathlib import Path

LOG_NAME = "zoea.log"
MAX_BYTES = 5 * 1024 * 1024
BACKUPS = 3


def setup_logging(folder: Path, *, debug: bool = False) -> Path:
    """Send every log record to ``folder/zoea.log`` (rotated); return its path.

    Handlers that write to the terminal are removed, including those of the
    libraries underneath (uvicorn, the MCP SDK), and warnings are captured.
    """
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LOG_NAME
    handler = logging.handlers.RotatingFileHandler(
        path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8"
    )
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if debug else logging.INFO)
    for name in (
        "uvicorn",
        "uvicorn.error",
        "uvicorn.access",
        "mcp",
        "httpx",
        "httpcore",
        "httpx2",
        "httpcore2",
    ):
        logger = logging.getLogger(name)
        for old in list(logger.handlers):
            logger.removeHandler(old)
        logger.propagate = True
        if not debug and name.startswith(("httpx", "httpcore")):
            logger.setLevel(logging.WARNING)
    logging.captureWarnings(True)
    return path
