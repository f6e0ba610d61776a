"""``zoea probe URL|PROVIDER``: what an endpoint can do for a swarm (issue 31).

Kept beside ``cli.py`` like ``cli_arena.py``: the command's flags and its output live
here, the probing itself in ``providers/probe.py`` (the TUI's add-provider form runs the
same). Exit 0 when the endpoint can fly a Mysis, 3 when it cannot (one line on standard
error, as every command whose provider answered nothing), 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from .cli_parsing import UsageError, add_config_flag, emit_json, say, text_flag
from .config import Config, ConfigError, check_endpoint, load_config, resolve_api_key, unset_key_env
from .config.kinds import PROBE_PROTOCOLS


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not 0 < value <= 3600:
        raise argparse.ArgumentTypeError(f"expected seconds from 0 to 3600, got {text}")
    return value


def add_parser(sub: Any) -> None:
    """Register ``zoea probe`` on the subcommands of ``zoea``."""
    p = sub.add_parser("probe", help="what an endpoint can do for a swarm")
    p.add_argument(
        "target", metavar="URL|PROVIDER", help="a server's URL, or a configured provider's name"
    )
    p.add_argument(
        "--type",
        choices=PROBE_PROTOCOLS,
        help="the URL's protocol (default: what it answers: /api/tags is Ollama)",
    )
    p.add_argument(
        "--model", type=text_flag, help="the model to try (default: the configured or first listed)"
    )
    p.add_argument("--api-key-env", help="the environment variable that holds the URL's key")
    p.add_argument(
        "--timeout", type=_seconds, default=60.0, help="seconds per request (default 60)"
    )
    add_config_flag(p)
    p.add_argument("--json", action="store_true", help="machine-readable report")


async def cmd_probe(args: argparse.Namespace) -> int:
    """Probe the endpoint, print what it can do, exit 0 (flies) or 3 (cannot); bad input
    is a :class:`UsageError` (one line, exit 2)."""
    from .config.load import conventions_note
    from .providers.probe import probe

    try:
        config = load_config(args.config)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    target, origin = _target(args, config)
    report = await probe(target, on_retry=lambda line: say(f"zoea probe: {line}", sys.stderr))
    applied = conventions_note(config, os.environ)
    if args.json:
        data = report.to_json()
        data["verdict"]["applied"] = applied
        emit_json(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        _print(report, origin, applied, no_file=config.source is None)
    if report.flies:
        return 0
    say(f"zoea probe: {report.endpoint}: {report.summary()}", sys.stderr)
    return 3


def _target(args: argparse.Namespace, config: Config) -> tuple[Any, str]:
    from .providers.probe import ProbeTarget

    text = args.target.strip()
    if "://" in text:
        try:
            text = check_endpoint(text)
        except ValueError as exc:
            raise UsageError(
                f"expected an http(s) URL or a provider's name, got {text!r} ({exc})"
            ) from None
        key = os.environ.get(args.api_key_env, "").strip() if args.api_key_env else None
        if args.api_key_env and not key:
            raise UsageError(f"--api-key-env {unset_key_env(args.api_key_env)}")
        target = ProbeTarget(
            endpoint=text,
            type=args.type,
            model=args.model or "",
            api_key=key or None,
            api_key_env=args.api_key_env,
            timeout=args.timeout,
        )
        return target, "a URL given on the command line"
    if args.type or args.api_key_env:
        raise UsageError("--type and --api-key-env go with a URL; a provider has its own")
    if text not in config.providers:
        configured = ", ".join(config.providers)
        raise UsageError(
            f"no provider named {text!r} (configured: {configured}); or give a server's URL"
        )
    provider = config.providers[text]
    if not provider.is_remote or provider.endpoint is None:
        raise UsageError(
            f"provider {text!r} is of type {provider.type}: it has no endpoint to probe"
        )
    try:
        key = resolve_api_key(provider)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    target = ProbeTarget.of_provider(provider, key, model=args.model or "", timeout=args.timeout)
    where = f"added by {provider.origin}" if provider.origin else "configured"
    return target, f"provider {text} ({where})"


def _print(report: Any, origin: str, applied: str, *, no_file: bool) -> None:
    say(f"zoea probe {report.endpoint} · {report.probing.label} · {origin}")
    say(f"  configuration: {applied}")
    for line in report.table():
        say(line)
    say("")
    say(f"verdict: {report.summary()}")
    if report.failures or report.notes or report.problems[1:]:
        say("what to change:")
        for problem in report.problems[1:]:
            say(f"  - {problem}")
        for failure in report.failures:
            said = f" (the server said: {failure.said})" if failure.said else ""
            say(f"  - {failure.step}: {failure.fix}{said}")
        for note in report.notes:
            say(f"  - {note}")
    if not report.reachable:
        return
    say("")
    say("paste into the config file:" if report.flies else "once it flies, paste:")
    for line in report.config_block().splitlines():
        say(f"    {line}")
    say(f"or {report.tui_line()}")
    env = report.env_line()
    if env and no_file and report.name is None:
        say(f"or, with no config file: {env}")
