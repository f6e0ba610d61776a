"""The configuration as typed, frozen values, with the defaults of
docs/ARCHITECTURE.md, 'Configuration'.

Nothing here reads files or the environment (see :mod:`.load`). API keys are never
part of these values: a provider names the environment variable that holds its key
(``api_key_env``) and :func:`~zoea_tui.config.credentials.resolve_api_key` fetches the
key when a client is built, so no ``repr`` of a config can leak one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ..core.composition import DEFAULT_CONTEXT_WINDOW, DEFAULT_WINDOW_MARGIN, ComposeSettings
from ..core.game_tool import ToolsSetting
from ..core.pricing import Prices
from ..core.strategies import DEFAULT_STRATEGY
from .kinds import KINDS, LOCAL_CONTEXT_WINDOW, LOCAL_MODEL, ProviderKind

#: A provider kind's name (a key of :data:`~zoea_tui.config.kinds.KINDS`).
ProviderType = str

#: The ``stream`` key: always, never, or ``"auto"`` (stream, and send unstreamed for the
#: session once the server has broken two streamed answers it then answered unstreamed).
StreamSetting = bool | Literal["auto"]

#: Every provider type, in the order error messages list them.
PROVIDER_TYPES: tuple[ProviderType, ...] = tuple(KINDS)

#: Provider types that talk to a server over HTTP (they need an endpoint and a model).
REMOTE_TYPES: frozenset[str] = frozenset(name for name, kind in KINDS.items() if kind.remote)

#: The ``game.endpoint`` value that selects the in-process world.
EMBEDDED = "embedded"

#: The embedded world's profiles (``game.world``; ``zoea_tui/sim/profiles.py``).
WORLDS: tuple[str, ...] = ("classic", "smbench")


class ConfigError(Exception):
    """The configuration cannot be used; ``str(error)`` is one line for the user.

    It names where the mistake is (the file, or the environment variable), the dotted
    key (``providers.zen-nano.temperature``) and what was expected.
    """

    def __init__(self, message: str, *, source: str | None = None, key: str | None = None):
        super().__init__(message)
        self.message = message
        self.source = source
        self.key = key


@dataclass(frozen=True, slots=True)
class SwarmConfig:
    """``[swarm]``: how many Myses, and what new ones start with."""

    #: Most Myses alive at once (1..100).
    max_myses: int = 16
    #: The provider used by the starter swarm and the new-Mysis wizard.
    default_provider: str = "autopilot"
    #: The default composition strategy (a name of ``core.strategies.STRATEGIES``).
    strategy: str = DEFAULT_STRATEGY


#: ``max_answer_bytes``' default: the most bytes one answer may take, streamed or not
#: (4 MiB: some 800 000 tokens of text, far past any ``max_tokens``).
DEFAULT_MAX_ANSWER_BYTES = 4 * 1024 * 1024

#: ``cache_reuse``'s default: llama.cpp's own suggestion for its ``--cache-reuse``.
DEFAULT_CACHE_REUSE = 256


@dataclass(frozen=True, slots=True)
class ContextConfig:
    """``[context]``: the knobs of composition and of the turn loop."""

    #: The scan window (docs/CONTEXT.md, 'sliding-window'): the last N memories
    #: considered for a request.
    max_context_messages: int = 20
    #: Most tool rounds in one turn.
    max_tool_iterations: int = 10
    #: Tool results longer than this (estimated tokens) are truncated.
    tool_result_max_tokens: int = 4000
    #: The ``summarize`` strategy writes a summary above this many tokens; 0 disables.
    summarize_threshold: int = 200_000
    #: At ``max_context_messages`` the window is cut back this far in one step (at most
    #: half of it) and grows again, so requests between cuts repeat each other (prompt
    #: caches reuse them). Turn paging grows a turn this far past the maximum.
    window_margin: int = DEFAULT_WINDOW_MARGIN


@dataclass(frozen=True, slots=True)
class NudgeConfig:
    """``[nudge]``: when a silent Mysis is nudged, and when it is given up on."""

    #: Seconds after a finished turn before the first nudge.
    idle_seconds: float = 30.0
    #: The same, when the last tool result put the Mysis in a wait state (travel, cooldown).
    wait_state_seconds: float = 120.0
    #: Nudges without a productive answer before the Mysis goes idle with an error.
    max_encouragements: int = 3


@dataclass(frozen=True, slots=True)
class ProviderConfig:
    """``[providers.NAME]``: one model behind one provider type.

    ``type`` is always stated (or, for the built-in names ``autopilot`` and ``local``,
    taken from the built-in); it is never guessed from the endpoint.
    """

    name: str
    type: ProviderType
    #: Base URL of the server (``openai``/``ollama`` only), e.g. ``http://localhost:11434``.
    endpoint: str | None = None
    #: The model name the server knows (``qwen3:8b``), or the local model's name.
    model: str = ""
    #: Sampling temperature, 0..2; 0 is sent as 0. None: not sent (the server's default).
    temperature: float | None = None
    #: Cap on the answer's tokens, sent with every request (``max_tokens``; Ollama's
    #: ``options.num_predict``); None: the room the composer keeps for the answer
    #: (``core.composition.ANSWER_RESERVE``, 1 024). The ``local`` type caps by its own
    #: budgets (128 tokens with tools, 512 without) unless it is set.
    max_tokens: int | None = None
    #: The model's context window in tokens: the composer's budget and Ollama's ``num_ctx``.
    context_window: int = DEFAULT_CONTEXT_WINDOW
    #: Seconds one whole request may take (connect, prompt processing, full answer).
    timeout: float = 600.0
    #: The environment variable holding the API key (the key itself is never stored here).
    api_key_env: str | None = None
    #: Sampling seed sent to servers that accept one; None: not sent.
    seed: int | None = None
    #: Stream answers: True, False, or "auto" (fall back to unstreamed once the server has
    #: broken two streamed answers to tool requests and answered them unstreamed, as
    #: llama-cpp-python's server does; ``providers/_http.py``, ``HttpProvider``).
    stream: StreamSetting = "auto"
    #: How requests carry the game's tools: ``"full"``, a schema per game command (about
    #: 5 800 tokens); ``"compact"``, one ``game(command, args)`` tool whose description
    #: lists the commands and their arguments once (``core/game_tool.py``); ``"auto"``,
    #: the full ones unless the least request with them does not fit the context, then
    #: compact (``core.game_tool.tools_modes``).
    tools: ToolsSetting = "auto"
    #: ``openai`` on a llama-server (a server that counts prompts): the fewest tokens of an
    #: earlier prompt the server may move to where a request holds them and reuse from its
    #: cache (its ``n_cache_reuse``), so a window cut or a paging step costs the new part
    #: only; 0 sends nothing. The moved tokens keep what they attended to before the cut.
    cache_reuse: int = DEFAULT_CACHE_REUSE
    #: ``openai`` in front of Anthropic models (OpenRouter): mark the prompt-cache
    #: breakpoints Anthropic caches only up to (``cache_control`` on the system prompt's
    #: part and on the last message's last part), as the ``anthropic`` type always does.
    cache_control: bool = False
    #: ``openai``/``ollama``: the most bytes one answer may take, streamed or not; past it
    #: the read stops and the call fails "too large" (memory stays bounded).
    max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES
    #: Where the provider comes from when no file defined it: the environment variable of
    #: a convention (``"$OPENAI_BASE_URL"``, ``"$OLLAMA_HOST"``); None for the file's and
    #: the built-ins. Shown in the help and on the provider line.
    origin: str | None = None
    #: Prices in USD per million tokens (``core/pricing.py``): uncached prompt tokens,
    #: prompt tokens read from the server's cache and written to it (None: ``price_in``),
    #: answer tokens. None: not known; costs are then never shown, only tokens (the
    #: configuration sets ``price_in`` and ``price_out`` together). Only ever read to
    #: show and report what requests cost.
    price_in: float | None = None
    price_cached: float | None = None
    price_cache_write: float | None = None
    price_out: float | None = None
    #: Rounds of tool calls a turn may take on this provider; None: ``[context]
    #: max_tool_iterations``. The built-in autopilot plays longer turns (a cycle of
    #: mining and selling is some twenty rounds, and a round costs it nothing).
    max_tool_iterations: int | None = None

    @property
    def kind(self) -> ProviderKind:
        """The declaration of its type (``config/kinds.py``)."""
        return KINDS[self.type]

    @property
    def prices(self) -> Prices:
        """Its prices, as every cost is worked out from them."""
        return Prices(self.price_in, self.price_cached, self.price_cache_write, self.price_out)

    @property
    def is_remote(self) -> bool:
        """True for the types that call a server over HTTP."""
        return self.type in REMOTE_TYPES

    @property
    def has_model(self) -> bool:
        """True for the types that fly a model (a Mysis's own may replace ``model``)."""
        return self.kind.has_model


#: Rounds a turn of the built-in autopilot may take (``[providers.autopilot]
#: max_tool_iterations``): several cycles of mining, selling and flying back, so that a
#: swarm left alone is seen playing rather than waiting for its nudges.
AUTOPILOT_TURN_ROUNDS = 100


def builtin_providers() -> dict[str, ProviderConfig]:
    """The providers every configuration has unless its file redefines them."""
    return {
        "autopilot": ProviderConfig(
            name="autopilot", type="autopilot", max_tool_iterations=AUTOPILOT_TURN_ROUNDS
        ),
        "local": ProviderConfig(
            name="local", type="local", model=LOCAL_MODEL, context_window=LOCAL_CONTEXT_WINDOW
        ),
    }


@dataclass(frozen=True, slots=True)
class GameConfig:
    """``[game]``: where the game is, and the embedded world's knobs."""

    #: ``"embedded"`` (the in-process world) or the game's MCP URL.
    endpoint: str = EMBEDDED
    #: Seed of the embedded world (galaxy layout and every random draw).
    seed: int = 0
    #: Real seconds per embedded-world tick (the real game ticks every 10 s).
    tick_seconds: float = 1.0
    #: Credits of a new pilot in the embedded world; None: each empire's real amount.
    starting_credits: int | None = None
    #: Read timeout of one MCP call in seconds (the real game can hold a call for minutes).
    timeout: float = 600.0
    #: The embedded world's profile: ``"classic"``, or ``"smbench"``, the world calibrated
    #: against SMBench's published runs (the arena's; ``zoea_tui/sim/profiles.py``).
    world: str = "classic"

    @property
    def embedded(self) -> bool:
        """True when the game is the in-process world."""
        return self.endpoint == EMBEDDED


@dataclass(frozen=True, slots=True)
class PathsConfig:
    """``[paths]``: where data lives, when neither the command line nor the environment says.

    Relative paths in a file are taken relative to that file's folder.
    """

    #: The data folder (database, logs); None: the platform's user data folder.
    data_dir: Path | None = None
    #: The database file; None: ``zoea.db`` in the data folder.
    db: Path | None = None


@dataclass(frozen=True, slots=True)
class RequestLogRetention:
    """How much of the request log is kept in full (``[storage] request_log``).

    ``"all"`` (both None): every request. ``"7d"``: the requests of the last 7 days.
    ``500``: the newest 500 requests of each Mysis. The others are *thinned*: still
    listed with their figures and recomposed, but without the memory ids, facts and
    digest that check them byte for byte. Memories are never dropped.
    """

    #: Keep in full the requests of the last this many days.
    days: int | None = None
    #: Keep in full the newest this many requests of each Mysis.
    requests: int | None = None

    @property
    def keeps_all(self) -> bool:
        """True when nothing is ever thinned."""
        return self.days is None and self.requests is None

    def describe(self) -> str:
        """The policy in words, as messages show it."""
        if self.days is not None:
            return f"the last {self.days} day{'s' * (self.days != 1)}"
        if self.requests is not None:
            return f"the newest {self.requests} request{'s' * (self.requests != 1)} of each Mysis"
        return "every request"

    def spec(self) -> str:
        """The policy as the configuration writes it (``"all"``, ``"7d"``, ``"500"``)."""
        if self.days is not None:
            return f"{self.days}d"
        if self.requests is not None:
            return str(self.requests)
        return "all"


@dataclass(frozen=True, slots=True)
class StorageConfig:
    """``[storage]``: what the database keeps."""

    #: How much of the request log is kept in full (:class:`RequestLogRetention`).
    request_log: RequestLogRetention = field(default_factory=RequestLogRetention)


@dataclass(frozen=True, slots=True)
class Config:
    """The whole configuration; ``Config()`` is the configuration with no file."""

    swarm: SwarmConfig = field(default_factory=SwarmConfig)
    context: ContextConfig = field(default_factory=ContextConfig)
    nudge: NudgeConfig = field(default_factory=NudgeConfig)
    #: Every provider by name, the built-ins included. Treat as read-only.
    providers: dict[str, ProviderConfig] = field(default_factory=builtin_providers)
    game: GameConfig = field(default_factory=GameConfig)
    paths: PathsConfig = field(default_factory=PathsConfig)
    storage: StorageConfig = field(default_factory=StorageConfig)
    #: The file this came from; None when no file was read.
    source: Path | None = field(default=None, compare=False)

    def provider(self, name: str | None = None) -> ProviderConfig:
        """The provider called ``name`` (the default provider when None).

        Raises :class:`ConfigError` naming the defined providers when there is none.
        """
        key = self.swarm.default_provider if name is None else name
        try:
            return self.providers[key]
        except KeyError:
            known = ", ".join(sorted(self.providers))
            raise ConfigError(
                f'unknown provider "{key}"; defined providers: {known}', key=key
            ) from None

    def compose_settings(self, provider: str | None = None) -> ComposeSettings:
        """Composition knobs for a Mysis on ``provider`` (the default provider when None)."""
        return ComposeSettings(
            max_context_messages=self.context.max_context_messages,
            window_margin=self.context.window_margin,
            tool_result_max_tokens=self.context.tool_result_max_tokens,
            summarize_threshold=self.context.summarize_threshold,
            context_window=self.provider(provider).context_window,
            compact_tools=self.provider(provider).tools == "compact",
        )
