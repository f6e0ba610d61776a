"""What tokens cost: a provider's prices, one request's bill, and spend added up (pure).

The one place a cost is worked out: the command center's meter
(``orchestrator/spend.py``), ``zoea simulate``/``replay`` and the arena's estimate and
report all price tokens here. Prices are USD per million tokens, the provider's
``price_in``, ``price_cached``, ``price_cache_write`` and ``price_out``. A prompt token
is one of three: *uncached* (read by the model in full, ``price_in``), a *cache read*
(served from the server's prompt cache, ``price_cached``) or a *cache write* (read in
full and written to the cache for later requests, ``price_cache_write``: Anthropic's
cache creation). A cache price left unset is ``price_in`` (the server bills such a token
as any other); without ``price_in`` and ``price_out`` nothing is priced: a view shows
tokens only, never a guessed price.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Tokens in a million (prices are per million tokens).
MILLION = 1_000_000


@dataclass(frozen=True, slots=True)
class Prices:
    """A provider's prices in USD per million tokens (None: not known)."""

    #: An uncached prompt token.
    input: float | None = None
    #: A prompt token read from the server's cache (None: ``input``).
    cached: float | None = None
    #: A prompt token written to the server's cache (None: ``input``).
    cache_write: float | None = None
    #: An answer token.
    output: float | None = None

    @property
    def known(self) -> bool:
        """True when tokens can be priced (``input`` and ``output`` both set)."""
        return self.input is not None and self.output is not None

    def cost(
        self, *, uncached: float, cache_read: float = 0, cache_write: float = 0, output: float = 0
    ) -> float | None:
        """USD for one request's tokens (or a sum of them): its uncached prompt tokens,
        cache reads, cache writes and answer tokens; None when the prices are not known."""
        if self.input is None or self.output is None:
            return None
        read = self.cached if self.cached is not None else self.input
        write = self.cache_write if self.cache_write is not None else self.input
        total = uncached * self.input + cache_read * read + cache_write * write
        return (total + output * self.output) / MILLION

    def describe(self) -> str:
        """The prices in words (USD per million tokens), "" when not known:
        ``$3/M in, $0.3/M cache reads, $3.75/M cache writes, $15/M out``."""
        if self.input is None or self.output is None:
            return ""
        parts = [f"${self.input:g}/M in"]
        if self.cached is not None:
            parts.append(f"${self.cached:g}/M cache reads")
        if self.cache_write is not None:
            parts.append(f"${self.cache_write:g}/M cache writes")
        return ", ".join([*parts, f"${self.output:g}/M out"])


def uncached(prompt: float, cache_read: float | None, cache_write: float | None) -> float:
    """The prompt tokens neither read from nor written to the cache (``prompt`` counts
    all of them, as :class:`~zoea_tui.providers.base.Usage` does)."""
    return max(0.0, prompt - (cache_read or 0) - (cache_write or 0))


@dataclass(frozen=True, slots=True)
class Bill:
    """The tokens of one request (or of many, added up) and what they cost."""

    #: Requests counted.
    requests: int = 0
    #: Prompt tokens, all of them (cache reads and writes included).
    prompt: int = 0
    #: Of them, read from the server's cache.
    cache_read: int = 0
    #: Of them, written to the server's cache.
    cache_write: int = 0
    #: Answer tokens.
    output: int = 0
    #: USD of the requests whose prices were known (None: none of them was priced).
    usd: float | None = None
    #: Requests counted without a price (their provider has none).
    unpriced: int = 0

    @classmethod
    def of(
        cls,
        prices: Prices,
        prompt: int | None,
        output: int | None,
        cache_read: int | None = None,
        cache_write: int | None = None,
    ) -> Bill:
        """One request's bill from the counts its server reported (None: not reported)."""
        p, o = prompt or 0, output or 0
        r, w = cache_read or 0, cache_write or 0
        usd = prices.cost(uncached=uncached(p, r, w), cache_read=r, cache_write=w, output=o)
        return cls(1, p, r, w, o, usd, int(usd is None))

    def __add__(self, other: Bill) -> Bill:
        """Both bills together."""
        usd = (
            None
            if self.usd is None and other.usd is None
            else (self.usd or 0.0) + (other.usd or 0.0)
        )
        return Bill(
            self.requests + other.requests,
            self.prompt + other.prompt,
            self.cache_read + other.cache_read,
            self.cache_write + other.cache_write,
            self.output + other.output,
            usd,
            self.unpriced + other.unpriced,
        )

    @property
    def tokens(self) -> int:
        """Prompt and answer tokens."""
        return self.prompt + self.output

    @property
    def cache_share(self) -> float:
        """The share of the prompt tokens read from the cache (0 without prompt tokens)."""
        return self.cache_read / self.prompt if self.prompt else 0.0


def usd_text(usd: float) -> str:
    """A cost as a person reads it: ``$12.34``, ``$0.123``, ``$0.0012``."""
    if usd >= 1 or usd == 0:
        return f"${usd:,.2f}"
    if usd >= 0.01:
        return f"${usd:.3f}"
    return f"${usd:.4f}" if usd >= 0.0001 else "<$0.0001"
