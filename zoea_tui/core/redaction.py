"""Secrets out of sight: the one place that masks passwords, session ids and tokens.

Every door through which text reaches a person or a model masks it here: the router
(every game result, success or refusal, before it is stored or shown to a model), the
game-state cache (what the focus view's sidebar shows), the TUI's sanitizer (the
conversation, the request inspector, previews, panes, screenshots), the command line's
human output and ``zoea export``. The commander sees *that* a secret is kept ("[password
stored by Zoea Nova]"), never its value.

Two rules, applied together:

- a **known** value (the account pool's passwords, a provider's API key) is replaced
  wherever it stands, in any text;
- the value of a **field named like a secret** (``password``, ``session_id``,
  ``token``, ``api_key``, ``secret``…) is replaced even when the value is not known: in a
  mapping (:func:`mask_data`), and in text (:func:`mask_text`) where the field is quoted
  as JSON or a Python repr writes it, or as JSON quoted inside a JSON string (a tool
  call's arguments in a logged request), also when the text ends inside the value.

Pure functions, no I/O: ``core`` imports nothing else of the package.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

PASSWORD_MASK = "[password stored by Zoea Nova]"
SESSION_MASK = "[session id kept by Zoea Nova]"
TOKEN_MASK = "[secret kept by Zoea Nova]"
#: Known values shorter than this are not masked (a one-letter "password" would mask
#: that letter in every text).
MIN_KNOWN_CHARS = 4

#: Field names whose string values are secrets: (the endings that make one, mask). A
#: name is a secret's when it ends with one, in any case (``password``, ``access_token``,
#: ``clientSecret``; not ``tokens``).
_FIELDS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("password", "passwd", "passphrase"), PASSWORD_MASK),
    (("session_id", "session-id", "sessionid"), SESSION_MASK),
    (("token", "api_key", "api-key", "apikey", "secret", "authorization"), TOKEN_MASK),
)
_ENDINGS = tuple((ending, mask) for endings, mask in _FIELDS for ending in endings)
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-")
#: ASCII letters to lower case, every other character kept (``str.lower`` may change a
#: text's length, and the positions found in it must be those of the text).
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
#: Between a quoted name and the opening quote of its value.
_COLON = re.compile(r"\s*:\s*")
#: A value's characters up to its closing quote, by the quote that opened it: ``"`` (JSON),
#: ``'`` (a Python repr) or ``\"`` (JSON quoted inside a JSON string). Escaped quotes
#: belong to the value; a value cut short runs to the end of its line.
_VALUE = {
    '"': re.compile(r'(?:\\.|[^"\\\n])*'),
    "'": re.compile(r"(?:\\.|[^'\\\n])*"),
    # Each escape of the inner value is escaped again: \\ then \", \\ or a letter.
    '\\"': re.compile(r'(?:\\\\(?:\\"|\\\\|[^\\\n])|[^\\\n])*'),
}


def secret_mask(name: str) -> str | None:
    """The mask for a field called ``name``, or None when it is not a secret's field.

    >>> secret_mask("password"), secret_mask("session_id"), secret_mask("max_tokens")
    ('[password stored by Zoea Nova]', '[session id kept by Zoea Nova]', None)
    """
    lowered = name.lower()
    for ending, mask in _ENDINGS:
        if lowered.endswith(ending):
            return mask
    return None


def _quote_before(text: str, start: int) -> str | None:
    """The quote that opens a name starting at ``start`` (None: it is not quoted)."""
    if text[start - 2 : start] == '\\"' and start >= 2:
        return '\\"'
    if start >= 1 and text[start - 1] in "\"'":
        return text[start - 1]
    return None


def _field_value(text: str, lowered: str, end: int) -> tuple[int, int, str] | None:
    """The span of the value of the quoted secret's field whose name ends at ``end``,
    and its mask; None when no such field ends there."""
    start = end
    while start > 0 and lowered[start - 1] in _NAME_CHARS:
        start -= 1
    quote = _quote_before(text, start)
    if quote is None or not text.startswith(quote, end):
        return None
    mask = secret_mask(lowered[start:end])
    colon = _COLON.match(text, end + len(quote))
    if mask is None or colon is None:
        return None
    opening = text[colon.end() : colon.end() + len(quote)]
    plain = ('"', "'")
    if opening != quote and not (quote in plain and opening in plain):
        return None  # not a quoted value (a Python repr quotes each string its own way)
    value_start = colon.end() + len(quote)
    value = _VALUE[opening].match(text, value_start)
    value_end = value.end() if value is not None else value_start
    return value_start, value_end, mask


def _mask_fields(text: str) -> str:
    """``text`` with the value of every quoted secret's field masked."""
    lowered = text.lower()
    if not any(ending in lowered for ending, _ in _ENDINGS):
        return text
    if len(lowered) != len(text):
        lowered = text.translate(_ASCII_LOWER)
    spans: list[tuple[int, int, str]] = []
    for ending, _ in _ENDINGS:
        at = lowered.find(ending)
        while at >= 0:
            span = _field_value(text, lowered, at + len(ending))
            if span is not None and span[1] > span[0]:
                spans.append(span)
            at = lowered.find(ending, at + 1)
    if not spans:
        return text
    out: list[str] = []
    done = 0
    for start, end, mask in sorted(spans):
        if start < done:
            continue  # inside a value already masked
        out += (text[done:start], mask)
        done = end
    out.append(text[done:])
    return "".join(out)


def _known(values: Iterable[str]) -> list[str]:
    """The known values worth masking, longest first (a value inside another stays hidden)."""
    return sorted(
        {v for v in values if isinstance(v, str) and len(v) >= MIN_KNOWN_CHARS},
        key=len,
        reverse=True,
    )


def mask_text(text: str, known: Iterable[str] = (), *, mask: str = PASSWORD_MASK) -> str:
    """``text`` with every ``known`` value replaced by ``mask`` and the value of every
    quoted secret's field masked."""
    for value in _known(known):
        if value in text:
            text = text.replace(value, mask)
    if '"' in text or "'" in text:
        text = _mask_fields(text)
    return text


def mask_data(data: Any, known: Iterable[str] = (), *, mask: str = PASSWORD_MASK) -> Any:
    """A copy of ``data`` (JSON-like: mappings, lists, scalars) with the value of every
    secret's field masked and every string passed through :func:`mask_text`."""
    return _mask_value(data, _known(known), mask)


def _mask_value(data: Any, known: list[str], mask: str) -> Any:
    if isinstance(data, str):
        return mask_text(data, known, mask=mask)
    if isinstance(data, Mapping):
        out: dict[Any, Any] = {}
        for key, value in data.items():
            field_mask = secret_mask(key) if isinstance(key, str) else None
            if field_mask is not None and isinstance(value, str) and value:
                out[key] = field_mask
            else:
                out[key] = _mask_value(value, known, mask)
        return out
    if isinstance(data, list | tuple):
        return [_mask_value(item, known, mask) for item in data]
    return data
