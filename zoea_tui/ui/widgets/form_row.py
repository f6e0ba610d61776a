"""A form's fields: a labelled row, and the text field and the choice every form builds
its rows from (compact, their labels plain text, never markup)."""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual.containers import Horizontal
from textual.widget import Widget
from textual.widgets import Input, Label, Select


def form_row(label: str, field: Widget) -> Horizontal:
    """The row of a form that holds ``field`` after its ``label`` (styled as
    ``.form-row``)."""
    return Horizontal(Label(label), field, classes="form-row")


def text_field(placeholder: str, id: str, *, max_length: int = 0) -> Input:
    """A line of text to type (``max_length`` 0: no limit)."""
    return Input(placeholder=placeholder, id=id, max_length=max_length, compact=True)


def choice(options: Iterable[tuple[str, str]], value: str, id: str) -> Select[str]:
    """One of ``options`` (each its label and its value) to pick, ``value`` at first;
    never blank."""
    return Select(
        [(Text(label), option) for label, option in options],
        value=value,
        allow_blank=False,
        id=id,
        compact=True,
    )
