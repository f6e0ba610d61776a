"""Where the configuration, the credentials and the data live.

Precedence, highest first (empty environment variables count as unset):

- data folder: ``--data-dir`` > ``$ZOEA_DATA_DIR`` > ``[paths] data_dir`` > the platform's
  user data folder (``platformdirs.user_data_dir("zoea-nova")``);
- database: the first of the layers command line, environment, file that says anything
  decides: ``--db`` > ``--data-dir``/zoea.db > ``$ZOEA_DB`` > ``$ZOEA_DATA_DIR``/zoea.db >
  ``[paths] db`` > ``[paths] data_dir``/zoea.db > the user data folder/zoea.db. So
  ``zoea --data-dir X`` puts the database in X even when the file names one elsewhere.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from pathlib import Path

import platformdirs

from .model import Config

APP_NAME = "zoea-nova"
CONFIG_FILE = "config.toml"
CREDENTIALS_FILE = "credentials.toml"
DB_FILE = "zoea.db"

ENV_DATA_DIR = "ZOEA_DATA_DIR"
ENV_DB = "ZOEA_DB"


def user_config_dir() -> Path:
    """The platform's configuration folder for Zoea Nova (``~/.config/zoea-nova`` on Linux)."""
    return Path(platformdirs.user_config_dir(APP_NAME))


def user_data_dir() -> Path:
    """The platform's data folder for Zoea Nova (``~/.local/share/zoea-nova`` on Linux)."""
    return Path(platformdirs.user_data_dir(APP_NAME))


def default_config_path() -> Path:
    """The config file read when neither ``--config`` nor ``$ZOEA_CONFIG`` names one."""
    return user_config_dir() / CONFIG_FILE


def env_path(env: Mapping[str, str], name: str) -> Path | None:
    """The path in environment variable ``name`` (``~`` expanded); None when unset or empty."""
    value = env.get(name, "")
    return Path(value).expanduser() if value else None


def _given(value: str | Path | None) -> Path | None:
    return None if value is None or str(value) == "" else Path(value).expanduser()


def data_dir(
    config: Config,
    cli_data_dir: str | Path | None = None,
    env: Mapping[str, str] = os.environ,
) -> Path:
    """The data folder: ``--data-dir`` > ``$ZOEA_DATA_DIR`` > ``[paths] data_dir`` > default."""
    for candidate in (_given(cli_data_dir), env_path(env, ENV_DATA_DIR), config.paths.data_dir):
        if candidate is not None:
            return candidate
    return user_data_dir()


def db_path(
    config: Config,
    cli_db: str | Path | None = None,
    cli_data_dir: str | Path | None = None,
    env: Mapping[str, str] = os.environ,
) -> Path:
    """The database file; the highest layer (command line, environment, file) that names a
    database or a data folder decides (see the module docstring)."""
    layers = (
        (_given(cli_db), _given(cli_data_dir)),
        (env_path(env, ENV_DB), env_path(env, ENV_DATA_DIR)),
        (config.paths.db, config.paths.data_dir),
    )
    for db, folder in layers:
        if db is not None:
            return db
        if folder is not None:
            return folder / DB_FILE
    return user_data_dir() / DB_FILE


def database_bytes(path: Path) -> int:
    """The bytes of a database on disk: the file, its WAL and its shared-memory index."""
    total = 0
    for name in (path.name, f"{path.name}-wal", f"{path.name}-shm"):
        with contextlib.suppress(OSError):
            total += (path.parent / name).stat().st_size
    return total


def folder_bytes(folder: Path) -> int:
    """The bytes of the files directly in ``folder`` (the data folder: the database,
    the world's state, the logs); 0 when it cannot be read."""
    total = 0
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        for entry in entries:
            with contextlib.suppress(OSError):
                if entry.is_file(follow_symlinks=False):
                    total += entry.stat(follow_symlinks=False).st_size
    return total


def size_text(count: int) -> str:
    """Bytes as a person reads them: ``12.3 MB``, ``840 KB`` (1 000-based, as disks)."""
    if count >= 1_000_000_000:
        return f"{count / 1e9:,.2f} GB"
    if count >= 1_000_000:
        return f"{count / 1e6:,.1f} MB"
    return f"{count / 1e3:,.0f} KB"
