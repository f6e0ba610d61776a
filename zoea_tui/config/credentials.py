"""API keys: read on demand, never stored in the configuration, never written.

A provider's key comes from the environment variable it names (``api_key_env``), else
from the credentials file: ``credentials.toml`` in the user config folder (or the file
named by ``$ZOEA_CREDENTIALS``), which must be readable by its owner only (mode 0600)::

    [keys]
    zen-nano = "sk-..."               # by provider name
    OPENCODE_ZEN_API_KEY = "sk-..."   # or by the api_key_env name, shared by providers

Error messages about this file never quote its values.
"""

from __future__ import annotations

import os
import shlex
import stat
from collections.abc import Mapping
from pathlib import Path

from . import paths
from .load import read_toml
from .model import ConfigError, ProviderConfig

ENV_CREDENTIALS = "ZOEA_CREDENTIALS"


def unset_key_env(name: str) -> str:
    """The one wording for a key variable that holds nothing: ``zoea probe --api-key-env``
    refuses with it, and a server's 401 or 403 to a provider that sent no key says it."""
    return f"{name}: that variable is empty or unset"


def default_credentials_path(env: Mapping[str, str] = os.environ) -> Path:
    """``$ZOEA_CREDENTIALS``, else ``credentials.toml`` in the user config folder."""
    return paths.env_path(env, ENV_CREDENTIALS) or paths.user_config_dir() / paths.CREDENTIALS_FILE


def _check_mode(path: Path) -> None:
    if os.name != "posix":  # Windows has no mode bits to check
        return
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise ConfigError(
            f"{path}: permissions {mode:04o} let other users read this file of API keys; "
            f"it must be 0600: run chmod 600 {shlex.quote(str(path))}",
            source=str(path),
        )


def _read_keys(path: Path) -> dict[str, str]:
    if not path.exists():
        return {}
    where = str(path)
    if not path.is_file():
        raise ConfigError(f"{where}: is not a file; expected a TOML credentials file", source=where)
    _check_mode(path)
    data = read_toml(path)
    for name in data:
        if name != "keys":
            raise ConfigError(
                f'{where}: {name}: unknown section; expected only [keys] (name = "key")',
                source=where,
                key=name,
            )
    keys = data.get("keys", {})
    if not isinstance(keys, dict):
        raise ConfigError(f"{where}: keys: expected a table ([keys])", source=where, key="keys")
    for name, value in keys.items():
        if not isinstance(value, str) or not value.strip():
            raise ConfigError(
                f"{where}: keys.{name}: expected the key as a non-empty string",
                source=where,
                key=f"keys.{name}",
            )
    return {name: value.strip() for name, value in keys.items()}


def check_credentials(
    credentials_path: str | Path | None = None, env: Mapping[str, str] = os.environ
) -> Path | None:
    """Check the credentials file at start (mode 0600, well-formed) without returning keys.

    Returns its path, or None when there is none. Raises :class:`ConfigError`.
    """
    path = Path(credentials_path) if credentials_path is not None else default_credentials_path(env)
    _read_keys(path)
    return path if path.exists() else None


def resolve_api_key(
    provider: ProviderConfig,
    env: Mapping[str, str] = os.environ,
    credentials_path: str | Path | None = None,
) -> str | None:
    """The API key for ``provider``, or None when it has none (local servers need none).

    Looks in the environment variable ``provider.api_key_env`` names, then in the
    credentials file under the provider's name, then under the ``api_key_env`` name.
    The file is read only when needed. Raises :class:`ConfigError` when the file is
    readable by others (with the ``chmod 600`` fix) or malformed.
    """
    if not provider.is_remote:
        return None
    if provider.api_key_env:
        value = env.get(provider.api_key_env, "").strip()
        if value:
            return value
    path = Path(credentials_path) if credentials_path is not None else default_credentials_path(env)
    keys = _read_keys(path)
    for name in (provider.name, provider.api_key_env):
        if name and name in keys:
            return keys[name]
    return None
