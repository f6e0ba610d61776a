"""Every provider kind is declared once (``config/kinds.py``), whole, and read from there."""

from __future__ import annotations

import dataclasses
import importlib

import pytest

from zoea_tui.config import KINDS, PROVIDER_KEYS, PROVIDER_TYPES, ProviderConfig, ProviderKind
from zoea_tui.config.kinds import ALL_PROVIDER_KEYS, PROBE_PROTOCOLS, Probing
from zoea_tui.providers._http import HttpProvider
from zoea_tui.providers.base import ProviderError
from zoea_tui.providers.registry import build_provider, kind_module
from zoea_tui.ui.screens.help import describe_provider


def test_the_kinds_are_listed_once_in_their_order() -> None:
    assert tuple(KINDS) == PROVIDER_TYPES
    assert tuple(name for name, kind in KINDS.items() if kind.probe) == PROBE_PROTOCOLS
    assert {name: kind.keys for name, kind in KINDS.items()} == PROVIDER_KEYS
    assert set(ALL_PROVIDER_KEYS) == {key for kind in KINDS.values() for key in kind.keys}


@pytest.mark.parametrize("name", list(KINDS))
def test_each_declaration_is_complete_and_its_module_builds_it(name: str) -> None:
    kind = KINDS[name]
    assert kind.name == name
    assert kind.problems() == []
    if kind.install_hint is None:  # an optional extra may be missing: the build says so
        module = importlib.import_module(kind.module, "zoea_tui.providers")
        assert callable(module.build)
    if kind.probe is not None:  # the probe builds its client from the kind's module
        client = getattr(kind_module(kind), kind.probe.client)
        assert issubclass(client, HttpProvider)
        assert kind.probe.env_line is None or kind.probe.env_line.format(
            endpoint="http://h:1/v1", host="h:1"
        ).endswith(f"ZOEA_DEFAULT_PROVIDER={name} zoea")


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"label": ""}, "a form label"),
        ({"module": "zoea_tui.providers.openai_compat"}, "relative to zoea_tui.providers"),
        ({"keys": ("model", "type")}, 'start with "type"'),
        ({"keys": ("type", "model", "model", "endpoint")}, "listed twice"),
        ({"keys": ("type", "model")}, 'takes "endpoint" and "model"'),
        ({"probe": None}, "the protocol it is probed with"),
        ({"remote": False, "probe": None}, 'only a kind over HTTP takes "endpoint"'),
        ({"has_model": False}, 'takes "model" or names a default'),
        ({"probe": Probing(client="", label="X")}, "names its client class"),
        ({"probe": Probing(client="C", label="")}, "its probe label"),
        (
            {"probe": Probing(client="C", label="X", template_route="/props")},
            "says where and what to fix",
        ),
        (
            {"keys": tuple(k for k in KINDS["openai"].keys if k != "price_cache_write")},
            "takes the prices: price_in, price_cached, price_cache_write, price_out",
        ),
    ],
)
def test_an_incomplete_declaration_is_rejected(change: dict[str, object], problem: str) -> None:
    broken = dataclasses.replace(KINDS["openai"], **change)  # type: ignore[arg-type]
    assert any(problem in found for found in broken.problems()), broken.problems()


def test_a_kind_without_a_model_takes_no_price() -> None:
    priced = dataclasses.replace(KINDS["autopilot"], keys=(*KINDS["autopilot"].keys, "price_in"))
    assert priced.problems() == ["a kind without a model costs nothing: it takes no price"]


def test_a_kind_whose_module_cannot_be_imported_names_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    missing = ProviderKind(
        name="missing",
        label="missing (a test's kind)",
        summary="nothing",
        keys=("type",),
        module=".no_such_provider_module",
        has_model=False,
        install_hint="the missing extra",
    )
    assert missing.problems() == []
    monkeypatch.setitem(KINDS, "missing", missing)
    with pytest.raises(ProviderError, match=r"'m' needs the missing extra \(No module named"):
        build_provider(ProviderConfig(name="m", type="missing"), env={})


def test_an_unknown_kind_is_refused_by_name() -> None:
    with pytest.raises(ProviderError, match="provider 'x' has unknown type 'nope'"):
        build_provider(ProviderConfig(name="x", type="nope"), env={})


def test_the_help_line_of_a_provider_reads_its_kind() -> None:
    pilot = ProviderConfig(name="autopilot", type="autopilot")
    local = ProviderConfig(name="local", type="local", model="smollm2-135m")
    served = ProviderConfig(name="o", type="ollama", endpoint="http://h:11434", origin="$X")
    assert describe_provider(pilot) == "the built-in rule-based pilot (no model)"
    assert describe_provider(local) == "in-process llama.cpp · smollm2-135m"
    assert describe_provider(served) == (
        "ollama · http://h:11434 · the first model the server lists · from $X"
    )
    assert not pilot.has_model and local.has_model and served.has_model
    priced = ProviderConfig(
        name="c", type="openai", endpoint="http://h/v1", model="m", price_in=3.0,
        price_cache_write=3.75, price_out=15.0,
    )  # fmt: skip
    assert describe_provider(priced) == (
        "openai · http://h/v1 · m · $3/M in, $3.75/M cache writes, $15/M out"
    )
