"""Untrusted text made safe for a terminal: one place for the TUI and the command line.

Model answers, tool results and user input may hold terminal escape sequences (a title
change, a screen clear, a hyperlink, a clipboard write), control characters and
bidirectional overrides. The TUI drops them (:func:`clean`, through
``ui/sanitize.py``); the command line's human output shows them escaped
(:func:`escaped`), so a reader sees that they were there; its JSON and JSONL output
writes them as JSON's ``\\uXXXX`` escape (:func:`json_escaped`), which reads back as
the same string. All three take the same characters, :data:`STEERING`.
"""

from __future__ import annotations

import re

_ESCAPES = re.compile(
    r"""
      \x1b\[[0-?]*[ -/]*[@-~]?            # CSI: colours, cursor moves, erase
    | \x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?  # OSC: titles, hyperlinks, clipboard
    | \x1b[PX^_][^\x1b]*(?:\x1b\\)?       # DCS, SOS, PM, APC
    | \x1b[ -/]*[0-~]?                    # other escapes (charset, keypad...)
    | \x9b[0-?]*[ -/]*[@-~]?              # 8-bit CSI
    """,
    re.VERBOSE,
)
#: The characters that can steer a terminal or reorder what it shows: C0 (except tab
#: and newline), DEL, C1, the bidirectional embeddings, overrides, isolates and marks
#: (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C) and the BOM. A regular
#: expression's character class.
STEERING = "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]"
_CONTROLS = re.compile(STEERING)


def clean(text: object) -> str:
    """``text`` without terminal escape sequences or control characters (tab, newline kept).

    ``\\r\\n`` and lone ``\\r`` become newlines; anything that is not a string is first
    turned into one.
    """
    value = text if isinstance(text, str) else str(text)
    if not value:
        return ""
    if "\r" in value:
        value = value.replace("\r\n", "\n").replace("\r", "\n")
    if "\x1b" in value or "\x9b" in value:
        value = _ESCAPES.sub("", value)
    return _CONTROLS.sub("", value)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escaped(text: object) -> str:
    """``text`` with every control character shown as its escape (``\\x1b``, ``\\u202e``),
    tab and newline kept: safe to print to a terminal, and nothing hidden from the reader.
    """
    value = text if isinstance(text, str) else str(text)
    if "\r\n" in value:
        value = value.replace("\r\n", "\n")
    return _CONTROLS.sub(_escape, value)


#: :data:`STEERING` and every character beyond ASCII: what JSON for an output whose
#: encoding holds only ASCII writes escaped.
_STEERING_OR_NON_ASCII = re.compile(f"{STEERING}|[^\x00-\x7f]")


def _json_escape(match: re.Match[str]) -> str:
    """One character as ``json.dumps`` escapes it (a surrogate pair beyond U+FFFF)."""
    code = ord(match.group())
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 | code >> 10:04x}\\u{0xDC00 | code & 0x3FF:04x}"


def json_escaped(document: str, *, ascii_only: bool = False) -> str:
    """A JSON document (``json.dumps``' output) with every :data:`STEERING` character
    written as its ``\\uXXXX`` escape: still valid JSON, read back equal.
    ``ascii_only``: every character beyond ASCII too (what ``ensure_ascii`` does), for
    an output whose encoding cannot hold them; one pass over the document either way.

    Outside its strings JSON holds none of them (tab and newline, its only whitespace
    among them, are not steering; the rest of it is ASCII), so each one found is inside
    a string, where the escape means the same character.
    """
    pattern = _STEERING_OR_NON_ASCII if ascii_only else _CONTROLS
    return pattern.sub(_json_escape, document)
