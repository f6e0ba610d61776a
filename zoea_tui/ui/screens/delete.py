"""Deleting a Mysis (key ``d``): a question that deletes it on yes.

A screen row of the command table (``ui/commands.py``); the delete runs through the app's
:class:`~zoea_tui.ui.screens.base.CommandCenter`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Self

from rich.text import Text

from .. import formatting as fmt
from ..sanitize import one_line
from .base import ZoeaModalScreen, targeted
from .confirm import ConfirmScreen

if TYPE_CHECKING:
    from ...orchestrator.events import MysisView


class DeleteScreen(ConfirmScreen, ZoeaModalScreen[bool]):
    """Delete Mysis ``view`` and its memories? Yes deletes it (the answer is the result)."""

    @classmethod
    def opened(cls, view: MysisView | None) -> Self:
        """The question for Mysis ``view`` (the ``d`` command's)."""
        return cls(targeted(view, cls))

    def __init__(self, view: MysisView) -> None:
        self.mysis_id = view.id
        self.mysis_name = one_line(view.name, 40)
        question = Text()
        question.append("Delete ", style=fmt.TEXT)
        question.append(self.mysis_name, style=f"bold {fmt.TEAL}")
        question.append(" and all its memories?\n", style=fmt.TEXT)
        question.append("This cannot be undone; its game account is released.", style=fmt.MUTED)
        super().__init__(question, yes="Delete", no="Keep", danger=True)

    def answered(self, yes: bool) -> None:
        """On yes, delete the Mysis and say so once it is gone."""
        commander, mysis_id = self.center.commander, self.mysis_id
        if yes and commander is not None:
            self.center.run_command(
                "delete",
                lambda: commander.delete_mysis(mysis_id),
                done=f"{self.mysis_name} deleted",
            )
