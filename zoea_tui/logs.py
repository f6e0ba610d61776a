"""Logging to a rotating file, never to the terminal (the TUI owns the screen)."""

from __future__ import annotations

import logging
import logging.handlers
import sys
from pathlib import Path

from .storage.errors import FULL_ERRNOS

LOG_NAME = "zoea.log"
MAX_BYTES = 5 * 1024 * 1024
BACKUPS = 3


class _LogFile(logging.handlers.RotatingFileHandler):
    """The log file; on a full disk it falls silent instead of printing Python's
    "--- Logging error ---" and a traceback for every record onto the screen the app
    draws (the store meets the same disk and says so in one line)."""

    #: Set when a write found the disk full: nothing more is written.
    full = False

    def emit(self, record: logging.LogRecord) -> None:
        if not self.full:
            super().emit(record)

    def handleError(self, record: logging.LogRecord) -> None:
        error = sys.exc_info()[1]
        if isinstance(error, OSError) and error.errno in FULL_ERRNOS:
            self.full = True
            return
        super().handleError(record)


def setup_logging(folder: Path, *, debug: bool = False) -> Path:
    """Send every log record to ``folder/zoea.log`` (rotated); return its path.

    Handlers that write to the terminal are removed, including those of the
    libraries underneath (uvicorn, the MCP SDK), and warnings are captured.
    """
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LOG_NAME
    handler = _LogFile(path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8")
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
