"""Find, read and check the configuration file, then apply the environment overrides.

Lookup: the ``path`` argument (``--config``), else ``$ZOEA_CONFIG``, else
``config.toml`` in the user config folder, else the defaults: no file is needed. A file
that is named (argument or variable) must exist; the default one may be absent.

Every mistake raises :class:`~zoea_tui.config.model.ConfigError` with one line naming the
file (or variable), the dotted key and what was expected; nothing starts half-configured.

Environment overrides, applied over the file and checked like it (empty = unset):

- ``ZOEA_MAX_MYSES``        → ``swarm.max_myses``
- ``ZOEA_DEFAULT_PROVIDER`` → ``swarm.default_provider``
- ``ZOEA_STRATEGY``         → ``swarm.strategy``
- ``ZOEA_GAME_ENDPOINT``    → ``game.endpoint``

(``ZOEA_DATA_DIR`` and ``ZOEA_DB`` are read by :mod:`.paths`, below the command line.)

The conventions every LLM tool honours, only when there is no config file (a config file
always wins, whatever it defines):

- ``OPENAI_BASE_URL`` (+ ``OPENAI_API_KEY``) → a provider ``openai`` of type ``openai``;
- ``OLLAMA_HOST`` (``host``, ``host:port`` or a URL; port 11434 by default) → a provider
  ``ollama`` of type ``ollama``.

Neither names a model: such a provider flies the first model its server lists (the new-Mysis
and configure forms list them all). :func:`conventions_note` says which applied.
"""

from __future__ import annotations

import dataclasses
import datetime
import difflib
import json
import math
import os
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn, TypeVar, cast
from urllib.parse import urlsplit

from ..core.game_tool import TOOLS_SETTINGS, ToolsSetting
from ..core.pricing import Prices
from ..core.strategies import STRATEGIES
from . import paths
from .kinds import ALL_PROVIDER_KEYS, KINDS, PRICE_KEYS
from .model import (
    DEFAULT_CACHE_REUSE,
    DEFAULT_MAX_ANSWER_BYTES,
    EMBEDDED,
    PROVIDER_TYPES,
    WORLDS,
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

ENV_CONFIG = "ZOEA_CONFIG"
ENV_MAX_MYSES = "ZOEA_MAX_MYSES"
ENV_DEFAULT_PROVIDER = "ZOEA_DEFAULT_PROVIDER"
ENV_STRATEGY = "ZOEA_STRATEGY"
ENV_GAME_ENDPOINT = "ZOEA_GAME_ENDPOINT"
ENV_OPENAI_BASE_URL = "OPENAI_BASE_URL"
ENV_OPENAI_API_KEY = "OPENAI_API_KEY"
ENV_OLLAMA_HOST = "OLLAMA_HOST"
#: Ollama's port when ``OLLAMA_HOST`` names none.
OLLAMA_PORT = 11434

SECTIONS = ("swarm", "context", "nudge", "providers", "game", "paths", "storage")

#: The keys of each plain section: the fields of its dataclass.
_SECTION_KEYS: dict[str, tuple[str, ...]] = {
    name: tuple(f.name for f in dataclasses.fields(cls))
    for name, cls in (
        ("swarm", SwarmConfig),
        ("context", ContextConfig),
        ("nudge", NudgeConfig),
        ("game", GameConfig),
        ("paths", PathsConfig),
        ("storage", StorageConfig),
    )
}

#: The keys each provider type accepts, in the order messages list them (``config/kinds.py``).
PROVIDER_KEYS: dict[str, tuple[str, ...]] = {name: kind.keys for name, kind in KINDS.items()}

MAX_MYSES = 100
MIN_CONTEXT_WINDOW = 512
#: The smallest ``max_answer_bytes``: room for a short answer and its envelope.
MIN_ANSWER_BYTES = 1024
#: The largest integer SQLite stores (a signed 64-bit INTEGER): no number of the
#: configuration may pass it, whatever its own upper bound.
INT_MAX = 2**63 - 1
#: The longest time a configuration may set, in seconds (about 31 years): beyond it the
#: event loop's clock arithmetic loses its meaning.
MAX_SECONDS = 1e9

_PROVIDER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_INT_TEXT = re.compile(r"[+-]?[0-9]+")
_TOML_POSITION = re.compile(
    r"^(?P<msg>.*) \(at (?:line (?P<line>\d+), column (?P<col>\d+)|"
    r"(?P<end>end of document))\)$"
)

T = TypeVar("T")
S = TypeVar("S")
_MISSING: Any = object()


class _Invalid(Exception):
    """A value is wrong; ``expected`` says what would be right (the caller adds where)."""

    def __init__(self, expected: str, *, show_value: bool = True) -> None:
        super().__init__(expected)
        self.expected = expected
        self.show_value = show_value


# -- the checks, shared by the file and the environment ---------------------------------


def show(value: Any) -> str:
    """A value as the user wrote it, short and on one line (strings double-quoted)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        text = value if len(value) <= 60 else value[:57] + "..."
        return json.dumps(text, ensure_ascii=False)
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, datetime.date | datetime.time):
        return f"a date/time ({value.isoformat()})"
    return type(value).__name__


def _quoted(names: Sequence[str]) -> str:
    return ", ".join(f'"{n}"' for n in names)


def _int_phrase(lo: int | None, hi: int | None) -> str:
    if lo is not None and hi is not None:
        return f"an integer between {lo} and {hi}"
    if lo is not None:
        return f"an integer of at least {lo}"
    return "an integer"


def _check_int(value: Any, lo: int | None = None, hi: int | None = None) -> int:
    # bool is an int in Python, never in a config file.
    ok = isinstance(value, int) and not isinstance(value, bool)
    if not ok or (lo is not None and value < lo) or (hi is not None and value > hi):
        raise _Invalid(_int_phrase(lo, hi))
    if not -INT_MAX - 1 <= value <= INT_MAX:
        bottom = -INT_MAX - 1 if lo is None else lo
        raise _Invalid(f"an integer from {bottom} to {INT_MAX} (what SQLite stores)")
    return int(value)


def _number_checker(lo: float, hi: float | None = None) -> Callable[[Any], float]:
    """Numbers in ``lo..hi`` (``hi`` None: strictly greater than ``lo``, at most
    :data:`MAX_SECONDS`: the open-ended numbers are all times); ints allowed."""
    phrase = (
        f"a number between {lo:g} and {hi:g}"
        if hi is not None
        else f"a number greater than {lo:g} and at most {MAX_SECONDS:g}"
    )

    def check(value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _Invalid(phrase)
        number = float(value)
        in_range = lo <= number <= hi if hi is not None else lo < number <= MAX_SECONDS
        if not math.isfinite(number) or not in_range:
            raise _Invalid(phrase)
        return number

    return check


def _check_price(value: Any) -> float:
    """A price in USD per million tokens: 0 (free) up to a million."""
    return _number_checker(0, 1e6)(value)


def _check_text(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _Invalid("a non-empty string")
    return value


#: A host: a name (letters in any script, digits, -, _ and .) or an IPv6 address.
_HOST = re.compile(r"[\w.-]+|[0-9a-f:.]*:[0-9a-f:.]*(%\w+)?", re.IGNORECASE)


def check_endpoint(text: str) -> str:
    """``text`` as an endpoint (stripped, without a trailing ``/``), or :class:`ValueError`
    saying what is wrong: an http(s) URL with a host, a port (if any) from 1 to 65535,
    and no whitespace. Config files, the environment and ``zoea probe URL`` all check
    with it, so a bad endpoint is refused at the start, never by the first request."""
    text = text.strip()
    if any(char.isspace() for char in text):
        raise ValueError("it contains whitespace")
    try:
        parts = urlsplit(text)
    except ValueError:  # an unclosed [IPv6]
        raise ValueError("it is not a URL") from None
    if parts.scheme not in ("http", "https"):
        raise ValueError("its scheme is not http:// or https://")
    if not parts.hostname:
        raise ValueError("it has no host")
    if not _HOST.fullmatch(parts.hostname):
        raise ValueError(f"{parts.hostname!r} is not a host name or address")
    try:
        port = parts.port
    except ValueError:
        port = 0
    if port == 0:
        raise ValueError("its port is not a number from 1 to 65535")
    return text.rstrip("/")


def _check_url(
    value: Any, expected: str = 'an http(s) URL such as "http://localhost:11434"'
) -> str:
    if not isinstance(value, str):
        raise _Invalid(expected)
    try:
        return check_endpoint(value)
    except ValueError as exc:
        raise _Invalid(f"{expected} ({exc})") from None


def _check_game_endpoint(value: Any) -> str:
    if value == EMBEDDED:
        return EMBEDDED
    return _check_url(
        value, f'"{EMBEDDED}" or an http(s) URL such as "https://game.spacemolt.com/mcp"'
    )


def _check_stream(value: Any) -> StreamSetting:
    if value is True or value is False or value == "auto":
        return cast(StreamSetting, value)
    raise _Invalid('"auto", true or false')


def _check_flag(value: Any) -> bool:
    if value is True or value is False:
        return value
    raise _Invalid("true or false")


def _check_strategy(value: Any) -> str:
    if value not in STRATEGIES:
        raise _Invalid(f"one of {_quoted(list(STRATEGIES))}")
    return str(value)


def _check_world(value: Any) -> str:
    if value not in WORLDS:
        raise _Invalid(f"one of {_quoted(WORLDS)}")
    return str(value)


def _check_tools(value: Any) -> ToolsSetting:
    if value not in TOOLS_SETTINGS:
        raise _Invalid(f"one of {_quoted(TOOLS_SETTINGS)}")
    return cast(ToolsSetting, value)


def _check_env_name(value: Any) -> str:
    if not isinstance(value, str) or not _ENV_NAME.fullmatch(value):
        # Never echo it: a pasted key would end up in a log or on the screen.
        raise _Invalid(
            "the name of an environment variable (letters, digits and _) that holds the key, "
            "not the key itself",
            show_value=False,
        )
    return value


#: The longest request-log retention in days (a century).
MAX_RETENTION_DAYS = 36_500
_RETENTION = re.compile(
    r"(?P<n>[0-9]+)\s*(?:(?P<days>d|days?)|(?P<requests>requests?))?", re.IGNORECASE
)
RETENTION_EXPECTED = (
    '"all", a number of days such as "7d", or a number of requests per Mysis such as 500'
)


def _check_request_log(value: Any) -> RequestLogRetention:
    """``[storage] request_log``: ``"all"``, ``"7d"`` (or ``"7 days"``), or ``500``
    (or ``"500"``, ``"500 requests"``): requests per Mysis."""
    if isinstance(value, str) and value.strip().lower() == "all":
        return RequestLogRetention()
    if isinstance(value, int) and not isinstance(value, bool):
        count, days = value, False
    elif isinstance(value, str) and (found := _RETENTION.fullmatch(value.strip())):
        count, days = int(found["n"]), found["days"] is not None
    else:
        raise _Invalid(RETENTION_EXPECTED)
    if days:
        if not 1 <= count <= MAX_RETENTION_DAYS:
            raise _Invalid(f"a number of days from 1 to {MAX_RETENTION_DAYS}")
        return RequestLogRetention(days=count)
    if not 1 <= count <= INT_MAX:
        raise _Invalid(f"a number of requests per Mysis from 1 to {INT_MAX}")
    return RequestLogRetention(requests=count)


def parse_request_log(text: str) -> RequestLogRetention:
    """A retention policy as typed on the command line (``zoea vacuum --request-log``);
    ``ValueError`` says what was expected, in one line."""
    try:
        return _check_request_log(text)
    except _Invalid as bad:
        raise ValueError(f"expected {bad.expected}, got {show(text)}") from None


def _check_max_myses(value: Any) -> int:
    return _check_int(value, 1, MAX_MYSES)


# -- reading a table of the file -------------------------------------------------------


def _dotted(prefix: str, name: str) -> str:
    part = name if _BARE_KEY.fullmatch(name) else json.dumps(name, ensure_ascii=False)
    return f"{prefix}.{part}" if prefix else part


class _Table:
    """One table of the file, read key by key with the file name and dotted path at hand."""

    def __init__(self, data: Any, where: str, prefix: str) -> None:
        if not isinstance(data, dict):
            raise ConfigError(
                f"{where}: {prefix}: expected a table ([{prefix}]), got {show(data)}",
                source=where,
                key=prefix,
            )
        self.data: dict[str, Any] = data
        self.where = where
        self.prefix = prefix

    def key(self, name: str) -> str:
        """The dotted path of ``name`` in this table."""
        return _dotted(self.prefix, name)

    def fail(self, name: str, problem: str) -> NoReturn:
        """Raise the one-line error for key ``name``."""
        key = self.key(name)
        raise ConfigError(f"{self.where}: {key}: {problem}", source=self.where, key=key)

    def only(
        self, allowed: Sequence[str], *, other_uses: Sequence[str] = (), owner: str = ""
    ) -> None:
        """Refuse every key not in ``allowed``. ``other_uses`` are keys valid elsewhere
        (another provider type): they get "not used by ``owner``" instead of "unknown"."""
        for name in self.data:
            if name in allowed:
                continue
            if name == "api_key":
                self.fail(
                    name,
                    "keys are never read from the config file; name the "
                    "environment variable that holds it with api_key_env, or put it "
                    "in credentials.toml",
                )
            if name in other_uses:
                self.fail(name, f"not used by {owner}; its keys are: {', '.join(allowed)}")
            close = difflib.get_close_matches(name, allowed, n=1)
            hint = f' (did you mean "{close[0]}"?)' if close else ""
            self.fail(name, f"unknown key{hint}; expected one of: {', '.join(allowed)}")

    def get(self, name: str, check: Callable[[Any], T], default: T) -> T:
        """The checked value of ``name``, or ``default`` when it is absent."""
        if name not in self.data:
            return default
        value = self.data[name]
        try:
            return check(value)
        except _Invalid as bad:
            got = f", got {show(value)}" if bad.show_value else ""
            self.fail(name, f"expected {bad.expected}{got}")

    def need(self, name: str, check: Callable[[Any], T], expected: str, why: str) -> T:
        """Like :meth:`get`, for a key that must be present."""
        if name not in self.data:
            self.fail(name, f"missing {why}; expected {expected}")
        return self.get(name, check, cast(T, _MISSING))


def _int(lo: int | None = None, hi: int | None = None) -> Callable[[Any], int]:
    return lambda value: _check_int(value, lo, hi)


def _path_checker(base: Path | None) -> Callable[[Any], Path]:
    def check(value: Any) -> Path:
        path = Path(_check_text(value)).expanduser()
        return path if path.is_absolute() or base is None else base / path

    return check


# -- the sections ------------------------------------------------------------------------


#: The check of each key of the plain sections read by :func:`_section` (a section's
#: keys are its dataclass's fields; ``[paths]`` and ``[providers]`` have their own readers).
_CHECKS: dict[str, dict[str, Callable[[Any], Any]]] = {
    "swarm": {
        "max_myses": _check_max_myses,
        "default_provider": _check_text,
        "strategy": _check_strategy,
    },
    "context": {
        "max_context_messages": _int(1),
        "window_margin": _int(1),
        "max_tool_iterations": _int(1),
        "tool_result_max_tokens": _int(1),
        "summarize_threshold": _int(0),
    },
    "nudge": {
        "idle_seconds": _number_checker(0),
        "wait_state_seconds": _number_checker(0),
        "max_encouragements": _int(1),
    },
    "game": {
        "endpoint": _check_game_endpoint,
        "seed": _int(),
        "tick_seconds": _number_checker(0),
        "starting_credits": _int(0),
        "timeout": _number_checker(0),
        "world": _check_world,
    },
    "storage": {"request_log": _check_request_log},
}


def _section(table: _Table, section: type[S]) -> S:
    """A plain section as its dataclass: each key read with its check (:data:`_CHECKS`),
    the dataclass's default where the file has none; any other key refused."""
    table.only(_SECTION_KEYS[table.prefix])
    default = section()
    return section(
        **{
            key: table.get(key, check, getattr(default, key))
            for key, check in _CHECKS[table.prefix].items()
        }
    )


def _provider(name: str, table: _Table) -> ProviderConfig:
    builtin = builtin_providers().get(name)
    types = _quoted(PROVIDER_TYPES)

    def check_type(value: Any) -> ProviderType:
        if value not in PROVIDER_TYPES:
            raise _Invalid(f"one of {types}")
        return cast(ProviderType, value)

    if builtin is not None and "type" not in table.data:
        kind = builtin.type
    else:
        kind = table.need(
            "type",
            check_type,
            f"one of {types}",
            "(the provider type is always stated, never guessed from the URL)",
        )
    table.only(PROVIDER_KEYS[kind], other_uses=ALL_PROVIDER_KEYS, owner=f'type "{kind}"')

    declared = KINDS[kind]
    remote = declared.remote
    for_kind = f'for type "{kind}"'
    if remote:
        endpoint: str | None = table.need(
            "endpoint", _check_url, 'an http(s) URL such as "http://localhost:11434"', for_kind
        )
        model = table.need("model", _check_text, 'the model\'s name, e.g. "qwen3:8b"', for_kind)
    else:
        endpoint = None
        model = table.get("model", _check_text, declared.default_model)
    window_default = declared.default_context_window
    prices = _prices(table)
    return ProviderConfig(
        name=name,
        type=kind,
        endpoint=endpoint,
        model=model,
        temperature=table.get("temperature", _number_checker(0, 2), None),
        max_tokens=table.get("max_tokens", _int(1), None),
        context_window=table.get("context_window", _int(MIN_CONTEXT_WINDOW), window_default),
        timeout=table.get("timeout", _number_checker(0), 600.0),
        api_key_env=table.get("api_key_env", _check_env_name, None),
        seed=table.get("seed", _int(), None),
        stream=table.get("stream", _check_stream, "auto") if remote else "auto",
        tools=table.get("tools", _check_tools, "auto"),
        cache_reuse=table.get("cache_reuse", _int(0), DEFAULT_CACHE_REUSE),
        cache_control=table.get("cache_control", _check_flag, False),
        max_answer_bytes=table.get(
            "max_answer_bytes", _int(MIN_ANSWER_BYTES), DEFAULT_MAX_ANSWER_BYTES
        ),
        price_in=prices.input,
        price_cached=prices.cached,
        price_cache_write=prices.cache_write,
        price_out=prices.output,
        max_tool_iterations=table.get(
            "max_tool_iterations",
            _int(1),
            builtin.max_tool_iterations if builtin is not None else None,
        ),
    )


def _prices(table: _Table) -> Prices:
    """A provider's prices (``core/pricing.py``), checked to price every token: set,
    ``price_in`` and ``price_out`` go together, and a cache's prices need them."""
    prices = {name: table.get(name, _check_price, None) for name in PRICE_KEYS}
    named = [name for name in PRICE_KEYS if prices[name] is not None]
    if named and (prices["price_in"] is None or prices["price_out"] is None):
        missing = "price_in" if prices["price_in"] is None else "price_out"
        table.fail(
            missing,
            f"missing beside {', '.join(named)}: a cost needs the price of every token "
            "(0 for free), never a guess",
        )
    return Prices(
        prices["price_in"], prices["price_cached"], prices["price_cache_write"], prices["price_out"]
    )


def _providers(table: _Table) -> dict[str, ProviderConfig]:
    providers = builtin_providers()
    for name, raw in table.data.items():
        if not _PROVIDER_NAME.fullmatch(name):
            table.fail(
                name,
                "expected a provider name of letters, digits, - and _ "
                "(at most 64, starting with a letter or digit)",
            )
        providers[name] = _provider(name, _Table(raw, table.where, table.key(name)))
    return providers


def _paths(table: _Table, base: Path | None) -> PathsConfig:
    table.only(_SECTION_KEYS["paths"])
    check = _path_checker(base)
    return PathsConfig(data_dir=table.get("data_dir", check, None), db=table.get("db", check, None))


def _check_default_provider(name: str, providers: Mapping[str, ProviderConfig]) -> str:
    if name not in providers:
        raise _Invalid(f"one of the defined providers ({', '.join(sorted(providers))})")
    return name


def build_config(
    data: Mapping[str, Any], where: str, *, source: Path | None = None, base_dir: Path | None = None
) -> Config:
    """Check parsed TOML ``data`` and build the :class:`Config` it describes.

    ``where`` names the file in messages; relative ``[paths]`` are taken from ``base_dir``.
    """
    root = _Table(dict(data), where, "")
    for name, value in root.data.items():
        home = next((section for section, keys in _SECTION_KEYS.items() if name in keys), None)
        if name not in SECTIONS and home is not None and not isinstance(value, dict):
            root.fail(name, f"a key outside its section; it belongs under [{home}]")
        if name not in SECTIONS:
            close = difflib.get_close_matches(name, SECTIONS, n=1)
            hint = f' (did you mean "{close[0]}"?)' if close else ""
            root.fail(name, f"unknown section{hint}; expected one of: {', '.join(SECTIONS)}")

    def section(name: str) -> _Table:
        return _Table(root.data.get(name, {}), where, name)

    swarm_table = section("swarm")
    swarm = _section(swarm_table, SwarmConfig)
    context = _section(section("context"), ContextConfig)
    nudge = _section(section("nudge"), NudgeConfig)
    providers = _providers(section("providers"))
    game = _section(section("game"), GameConfig)
    paths_config = _paths(section("paths"), base_dir)
    storage = _section(section("storage"), StorageConfig)
    # Checked last: it must name a provider defined above (the built-ins always are).
    swarm_table.get(
        "default_provider", lambda value: _check_default_provider(value, providers), None
    )
    return Config(
        swarm=swarm,
        context=context,
        nudge=nudge,
        providers=providers,
        game=game,
        paths=paths_config,
        storage=storage,
        source=source,
    )


# -- the environment ---------------------------------------------------------------------


def _env_value(
    env: Mapping[str, str], name: str, key: str, check: Callable[[Any], T], *, integer: bool = False
) -> T | None:
    raw = env.get(name, "")
    if raw == "":
        return None
    value: Any = raw.strip()
    if integer and _INT_TEXT.fullmatch(value):
        value = int(value)
    try:
        return check(value)
    except _Invalid as bad:
        raise ConfigError(
            f"environment variable {name} ({key}): expected {bad.expected}, got {show(raw)}",
            source=f"${name}",
            key=key,
        ) from None


def apply_env(config: Config, env: Mapping[str, str]) -> Config:
    """``config`` with the ``ZOEA_*`` overrides of ``env`` applied (checked like the file)."""
    swarm, game = config.swarm, config.game
    max_myses = _env_value(env, ENV_MAX_MYSES, "swarm.max_myses", _check_max_myses, integer=True)
    if max_myses is not None:
        swarm = dataclasses.replace(swarm, max_myses=max_myses)
    strategy = _env_value(env, ENV_STRATEGY, "swarm.strategy", _check_strategy)
    if strategy is not None:
        swarm = dataclasses.replace(swarm, strategy=strategy)
    provider = _env_value(
        env,
        ENV_DEFAULT_PROVIDER,
        "swarm.default_provider",
        lambda v: _check_default_provider(v, config.providers),
    )
    if provider is not None:
        swarm = dataclasses.replace(swarm, default_provider=provider)
    endpoint = _env_value(env, ENV_GAME_ENDPOINT, "game.endpoint", _check_game_endpoint)
    if endpoint is not None:
        game = dataclasses.replace(game, endpoint=endpoint)
    return dataclasses.replace(config, swarm=swarm, game=game)


# -- the conventions of other tools ------------------------------------------------------


def _ollama_url(value: Any) -> str:
    """``OLLAMA_HOST`` as Ollama reads it: ``host``, ``host:port`` or a URL; http and port
    11434 unless it says otherwise."""
    text = str(value).strip()
    if "://" not in text:
        text = f"http://{text}"
    try:
        text = check_endpoint(text)
    except ValueError as exc:
        raise _Invalid(f'a host, host:port or URL such as "127.0.0.1:11434" ({exc})') from None
    parts = urlsplit(text)
    if parts.port is None and parts.scheme == "http":
        assert parts.hostname is not None  # checked
        host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
        text = parts._replace(netloc=f"{host}:{OLLAMA_PORT}").geturl()
    return text.rstrip("/")


def convention_providers(env: Mapping[str, str]) -> dict[str, ProviderConfig]:
    """The providers the environment's conventions add when there is no config file."""
    found: dict[str, ProviderConfig] = {}
    base = _env_value(env, ENV_OPENAI_BASE_URL, "providers.openai.endpoint", _check_url)
    if base is not None:
        found["openai"] = ProviderConfig(
            name="openai",
            type="openai",
            endpoint=base,
            api_key_env=ENV_OPENAI_API_KEY,
            origin=f"${ENV_OPENAI_BASE_URL}",
        )
    host = _env_value(env, ENV_OLLAMA_HOST, "providers.ollama.endpoint", _ollama_url)
    if host is not None:
        found["ollama"] = ProviderConfig(
            name="ollama", type="ollama", endpoint=host, origin=f"${ENV_OLLAMA_HOST}"
        )
    return found


def conventions_note(config: Config, env: Mapping[str, str] = os.environ) -> str:
    """Which configuration applied, in a line: the file (and the conventions it silences),
    or the conventions that added providers, or the defaults."""
    named = [v for v in (ENV_OPENAI_BASE_URL, ENV_OLLAMA_HOST) if env.get(v, "").strip()]
    if config.source is not None:
        silenced = f" ({' and '.join(named)} not read: a config file always wins)" if named else ""
        return f"{config.source}{silenced}"
    added = [
        f"{p.origin} adds provider {p.name} ({p.endpoint})"
        for p in config.providers.values()
        if p.origin
    ]
    if added:
        return "no config file; " + "; ".join(added)
    return (
        f"no config file (the defaults; {ENV_OPENAI_BASE_URL} or {ENV_OLLAMA_HOST} would add "
        "a provider)"
    )


# -- the file ----------------------------------------------------------------------------


def locate_config(
    path: str | Path | None = None, env: Mapping[str, str] = os.environ
) -> Path | None:
    """The config file to read: ``path``, else ``$ZOEA_CONFIG``, else the default file if
    it exists, else None (the defaults). A named file that does not exist is an error."""
    if path is not None and str(path) != "":
        named, by = Path(path).expanduser(), ""
    elif env.get(ENV_CONFIG, ""):
        named, by = Path(env[ENV_CONFIG]).expanduser(), f" (named by ${ENV_CONFIG})"
    else:
        default = paths.default_config_path()
        return default if default.is_file() else None
    if not named.exists():
        raise ConfigError(f"{named}: no such config file{by}", source=str(named))
    if not named.is_file():
        raise ConfigError(
            f"{named}: is not a file{by}; expected a TOML config file", source=str(named)
        )
    return named


def read_toml(path: Path) -> dict[str, Any]:
    """Parse a TOML file; any failure is a one-line :class:`ConfigError` naming the file
    (and the line and column of a syntax error)."""
    where = str(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{where}: cannot read: {exc.strerror or exc}", source=where) from None
    try:
        text = raw.decode("utf-8-sig")  # a byte-order mark (Notepad writes one) is no text
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ConfigError(f"{where}: line {line}: not UTF-8 text", source=where) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc).splitlines()[0] if str(exc) else "syntax error"
        found = _TOML_POSITION.match(message)
        if found is None:
            position = ""
        elif found["end"]:
            message = found["msg"]
            position = f" at the end of the file (line {text.count(chr(10)) + 1})"
        else:
            message = found["msg"]
            position = f" at line {found['line']}, column {found['col']}"
        raise ConfigError(f"{where}: invalid TOML{position}: {message}", source=where) from None


def load_config(path: str | Path | None = None, env: Mapping[str, str] = os.environ) -> Config:
    """The configuration to run with (see the module docstring for the lookup order and
    the environment overrides). Raises :class:`ConfigError` on any mistake."""
    file = locate_config(path, env)
    if file is None:
        config = Config(providers={**builtin_providers(), **convention_providers(env)})
    else:
        config = build_config(
            read_toml(file), str(file), source=file, base_dir=file.absolute().parent
        )
    return apply_env(config, env)
