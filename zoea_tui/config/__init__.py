"""Configuration: the TOML file, the environment, API keys and data paths
(docs/ARCHITECTURE.md, 'Configuration').

Pure: no Textual, no Rich, no network. ``config.example.toml`` at the repository root
lists every key with its default.

- :func:`load_config` finds and checks the file (``--config`` > ``$ZOEA_CONFIG`` > the user
  config folder > defaults) and applies ``ZOEA_MAX_MYSES``, ``ZOEA_DEFAULT_PROVIDER``,
  ``ZOEA_STRATEGY`` and ``ZOEA_GAME_ENDPOINT``.
- :func:`data_dir` / :func:`db_path` resolve ``--data-dir``/``--db`` > ``ZOEA_DATA_DIR``/
  ``ZOEA_DB`` > ``[paths]`` > the platform's user data folder.
- With no config file, ``OPENAI_BASE_URL`` (+ ``OPENAI_API_KEY``) and ``OLLAMA_HOST`` add
  the providers ``openai`` and ``ollama`` (:func:`convention_providers`).
- :func:`resolve_api_key` reads a provider's key from its ``api_key_env`` variable or the
  0600 ``credentials.toml`` (``$ZOEA_CREDENTIALS`` overrides where it is).

Every mistake is a :class:`ConfigError` whose text is one line naming the file or
variable, the dotted key and what was expected.
"""

from __future__ import annotations

from .credentials import (
    ENV_CREDENTIALS,
    check_credentials,
    default_credentials_path,
    resolve_api_key,
    unset_key_env,
)
from .kinds import KINDS, LOCAL_MODEL, ProviderKind, kind_of
from .load import (
    ENV_CONFIG,
    ENV_DEFAULT_PROVIDER,
    ENV_GAME_ENDPOINT,
    ENV_MAX_MYSES,
    ENV_OLLAMA_HOST,
    ENV_OPENAI_API_KEY,
    ENV_OPENAI_BASE_URL,
    ENV_STRATEGY,
    PROVIDER_KEYS,
    apply_env,
    build_config,
    check_endpoint,
    convention_providers,
    conventions_note,
    load_config,
    locate_config,
    parse_request_log,
)
from .model import (
    DEFAULT_MAX_ANSWER_BYTES,
    EMBEDDED,
    PROVIDER_TYPES,
    Config,
    ConfigError,
    ContextConfig,
    GameConfig,
    NudgeConfig,
    PathsConfig,
    ProviderConfig,
    ProviderType,
    RequestLogRetention,
    StorageConfig,
    StreamSetting,
    SwarmConfig,
    builtin_providers,
)
from .paths import (
    ENV_DATA_DIR,
    ENV_DB,
    data_dir,
    db_path,
    default_config_path,
    user_config_dir,
    user_data_dir,
)

__all__ = [
    "DEFAULT_MAX_ANSWER_BYTES",
    "EMBEDDED",
    "ENV_CONFIG",
    "ENV_CREDENTIALS",
    "ENV_DATA_DIR",
    "ENV_DB",
    "ENV_DEFAULT_PROVIDER",
    "ENV_GAME_ENDPOINT",
    "ENV_MAX_MYSES",
    "ENV_OLLAMA_HOST",
    "ENV_OPENAI_API_KEY",
    "ENV_OPENAI_BASE_URL",
    "ENV_STRATEGY",
    "KINDS",
    "LOCAL_MODEL",
    "PROVIDER_KEYS",
    "PROVIDER_TYPES",
    "Config",
    "ConfigError",
    "ContextConfig",
    "GameConfig",
    "NudgeConfig",
    "PathsConfig",
    "ProviderConfig",
    "ProviderKind",
    "ProviderType",
    "RequestLogRetention",
    "StorageConfig",
    "StreamSetting",
    "SwarmConfig",
    "apply_env",
    "build_config",
    "builtin_providers",
    "check_credentials",
    "check_endpoint",
    "convention_providers",
    "conventions_note",
    "data_dir",
    "db_path",
    "default_config_path",
    "default_credentials_path",
    "kind_of",
    "load_config",
    "locate_config",
    "parse_request_log",
    "resolve_api_key",
    "unset_key_env",
    "user_config_dir",
    "user_data_dir",
]
