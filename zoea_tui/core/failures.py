"""The one classification of failures that reach the commander.

A model server's failure is told in one of these classes, with the server's own words,
in every view: the Mysis pane, the focus view, the request inspector, and the human
output and JSON of ``zoea simulate`` and ``zoea arena`` (docs/ARCHITECTURE.md,
'Failures'). The providers decide the class (``providers/base.py``); everyone else
reads it from here.
"""

from __future__ import annotations

from typing import Literal

#: No connection; no complete answer in time; the server said no (4xx); the server
#: asked to slow down (429: rate limited, tried again after its ``Retry-After``); the server
#: failed (5xx); the answer is no OpenAI-compatible one (a web page, an empty 200, not
#: JSON); the answer stopped before its end (a broken stream); the answer grew past the
#: provider's ``max_answer_bytes`` (its read stopped there); the answer ended with
#: nothing in it (no text, no call, no finish reason).
FailureKind = Literal[
    "unreachable",
    "timeout",
    "refused",
    "rate_limited",
    "server_error",
    "not_compatible",
    "cut_short",
    "too_large",
    "empty_answer",
]

#: How each class reads in one line, for the commander.
FAILURE_LABELS: dict[str, str] = {
    "unreachable": "unreachable",
    "timeout": "timed out",
    "refused": "refused",
    "rate_limited": "rate limited",
    "server_error": "server error",
    "not_compatible": "not an OpenAI-compatible answer",
    "cut_short": "cut short",
    "too_large": "too large",
    "empty_answer": "empty answer",
}


def failure_label(kind: str | None) -> str:
    """The words for a failure class (an unknown or missing one reads "failed")."""
    return FAILURE_LABELS.get(kind or "", "failed")
