"""A model, picked from the list a server gives or typed: the model row of the forms.

With no list it is a text field. Given models (:meth:`ModelField.offer`), it is a list of
them with "other… (type it)" last, which opens the text field beside it.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Input, Select

#: The list's last choice: type the model's name instead.
OTHER = "\x00other"


class ModelField(Horizontal):
    """A model list (``#form-model-list``) and a text field (``#form-model``)."""

    DEFAULT_CSS = """
    ModelField {
        width: 1fr;
        height: 1;
    }
    """

    def __init__(self, value: str = "", placeholder: str = "", **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._value = value
        self._placeholder = placeholder
        #: The models offered (empty: the text field alone).
        self.models: list[str] = []

    def compose(self) -> ComposeResult:
        """The list (hidden until there are models) and the text field."""
        picker: Select[str] = Select([], allow_blank=True, id="form-model-list", compact=True)
        picker.display = False
        yield picker
        yield Input(value=self._value, placeholder=self._placeholder, id="form-model", compact=True)

    @property
    def picker(self) -> Select[str]:
        """The model list."""
        return self.query_one("#form-model-list", Select)

    @property
    def field(self) -> Input:
        """The text field."""
        return self.query_one("#form-model", Input)

    def offer(self, models: list[str]) -> None:
        """Offer ``models`` (the typed model chosen when listed, else the first; a typed
        model the list lacks stays typed under "other…"); none: the text field alone."""
        self.models = list(models)
        picker, field = self.picker, self.field
        if not models:
            picker.display, field.display = False, True
            return
        typed = field.value.strip()
        picker.set_options([(Text(m), m) for m in models] + [(Text("other… (type it)"), OTHER)])
        picker.value = typed if typed in models else (OTHER if typed else models[0])
        picker.display = True
        field.display = picker.value == OTHER

    @on(Select.Changed, "#form-model-list")
    def _picked(self, event: Select.Changed) -> None:
        event.stop()
        field = self.field
        field.display = event.value == OTHER
        if field.display:
            field.focus()

    @property
    def value(self) -> str | None:
        """The model picked or typed (None: nothing typed)."""
        picker = self.picker
        if picker.display and not picker.is_blank() and picker.value != OTHER:
            return str(picker.value)
        return self.field.value.strip() or None
