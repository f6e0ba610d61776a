"""Add a provider to the config file without losing a comment or a blank line of it.

The TUI's add-provider form (key ``a``) saves through here: :func:`plan_provider` works
out the file's new text (the file read with ``tomlkit``, a style-preserving TOML library;
the new table rendered by it and appended at the end, so every byte of the user's text,
comments and layout stay as they were), checks that the new text loads as a
configuration, and gives the unified diff the commander confirms;
:func:`write_plan` then writes it (a whole new file in place of the old, with its mode).

A config file always wins over the environment's conventions (``load.py``): a file
created while ``OPENAI_BASE_URL`` or ``OLLAMA_HOST`` added providers would silence them,
so the plan writes those providers into it too (each with the model given for it), and
says so.
"""

from __future__ import annotations

import difflib
import os
import tempfile
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.exceptions import TOMLKitError

from .load import PROVIDER_KEYS, build_config
from .model import Config, ConfigError, ProviderConfig


@dataclass(frozen=True, slots=True)
class ProviderPlan:
    """A config file's text before and after adding providers, and what to tell."""

    path: Path
    old_text: str
    new_text: str
    #: The provider added (as the new file defines it).
    provider: ProviderConfig
    #: True when the file does not exist yet.
    creates: bool
    #: What the commander should know before saying yes ("" when nothing).
    note: str = ""

    def diff(self) -> str:
        """The change as a unified diff."""
        lines = difflib.unified_diff(
            self.old_text.splitlines(keepends=True),
            self.new_text.splitlines(keepends=True),
            fromfile="/dev/null" if self.creates else str(self.path),
            tofile=str(self.path),
        )
        return "".join(lines)


def provider_values(provider: ProviderConfig) -> dict[str, Any]:
    """The keys a provider's table needs: those set apart from their defaults."""
    defaults = ProviderConfig(name=provider.name, type=provider.type)
    values: dict[str, Any] = {}
    for key in PROVIDER_KEYS[provider.type]:
        value = getattr(provider, key)
        if key == "type" or (value is not None and value != getattr(defaults, key)):
            values[key] = value
    return values


def add_provider_text(text: str, provider: ProviderConfig, *, where: str, comment: str = "") -> str:
    """``text`` (a config file's, possibly empty) with ``[providers.NAME]`` appended at its
    end: every byte of it kept, comments and layout included. Raises :class:`ConfigError`
    when the text is no TOML or the name is taken."""
    try:
        document = tomlkit.parse(text)
    except TOMLKitError as exc:
        raise ConfigError(f"{where}: invalid TOML: {exc}", source=where) from None
    providers = document.get("providers")
    if providers is not None and not isinstance(providers, Mapping):
        raise ConfigError(f"{where}: providers: expected a table", source=where)
    if providers is not None and provider.name in providers:
        raise ConfigError(
            f"{where}: providers.{provider.name} is already defined; choose another name",
            source=where,
            key=f"providers.{provider.name}",
        )
    table = tomlkit.table()
    if comment:
        table.add(tomlkit.comment(comment))
    for key, value in provider_values(provider).items():
        table.add(key, value)
    block = tomlkit.document()
    outer = tomlkit.table(is_super_table=True)
    outer.append(provider.name, table)
    block.append("providers", outer)
    head = text if not text or text.endswith("\n") else text + "\n"
    gap = "\n" if head.strip() and not head.endswith("\n\n") else ""
    return head + gap + block.as_string().rstrip("\n") + "\n"


def check_text(text: str, where: str, path: Path) -> Config:
    """The configuration ``text`` describes (:class:`ConfigError` when it would not load)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{where}: the new text is not valid TOML: {exc}", source=where) from None
    return build_config(data, where, source=path, base_dir=path.absolute().parent)


def plan_provider(
    config: Config,
    provider: ProviderConfig,
    path: Path,
    *,
    comment: str = "",
    convention_models: Mapping[str, str] | None = None,
) -> ProviderPlan:
    """How ``path`` (``config``'s file, or the one to create) changes to define
    ``provider``; checked to load. ``convention_models`` gives the model of each provider
    the environment's conventions added, written into a file that is created (those
    without a model are left out, and the note says so)."""
    where = str(path)
    if provider.name in config.providers:
        raise ConfigError(
            f"a provider named {provider.name!r} exists already; choose another name",
            key=f"providers.{provider.name}",
        )
    creates = not path.exists()
    try:
        old_text = "" if creates else path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{where}: cannot read: {exc}", source=where) from None
    text, notes = old_text, []
    if creates:
        text = "# Zoea Nova's configuration (config.example.toml lists every key).\n"
        kept, lost = [], []
        for name, found in config.providers.items():
            model = (convention_models or {}).get(name, found.model)
            if found.origin is None:
                continue
            if not model:
                lost.append(f"{name} ({found.origin})")
                continue
            text = add_provider_text(
                text,
                ProviderConfig(
                    name=name,
                    type=found.type,
                    endpoint=found.endpoint,
                    model=model,
                    api_key_env=found.api_key_env,
                ),
                where=where,
                comment=f"was added by {found.origin}",
            )
            kept.append(name)
        notes.append(f"creates {where}: from then on the file is read")
        if kept:
            notes.append(f"{', '.join(kept)} (from the environment) written into it too")
        if lost:
            notes.append(f"{', '.join(lost)} will not be read any more: its server lists no model")
    new_text = add_provider_text(text, provider, where=where, comment=comment)
    check_text(new_text, where, path)
    return ProviderPlan(
        path=path,
        old_text=old_text,
        new_text=new_text,
        provider=provider,
        creates=creates,
        note="; ".join(notes),
    )


def write_plan(plan: ProviderPlan) -> None:
    """Write the plan's text in place of the file's (whole or not at all); an existing
    file keeps its mode, a new one is readable by its owner only."""
    path = plan.path
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if not plan.creates and path.read_text(encoding="utf-8") != plan.old_text:
            raise ConfigError(
                f"{path}: changed since the diff was shown; nothing written, try again",
                source=str(path),
            )
        mode = path.stat().st_mode & 0o777 if path.exists() else 0o600
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(plan.new_text)
            os.chmod(temporary, mode)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot write: {exc}", source=str(path)) from None
