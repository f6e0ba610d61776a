"""A labelled row of a form: the label, then its field, side by side."""

from __future__ import annotations

from textual.containers import Horizontal
from textual.widget import Widget
from textual.widgets import Label


def form_row(label: str, field: Widget) -> Horizontal:
    """The row of a form that holds ``field`` after its ``label`` (styled as
    ``.form-row``)."""
    return Horizontal(Label(label), field, classes="form-row")
