"""World catalogue benchmark: how many real tool calls name a tool the embedded world has.

Reads every `tool_call` and `tool_error` event of SMBench's run-2 play logs (real models
on the real SpaceMolt server; `../shared/data/smbench-run2/` beside the repository, or
`--data DIR`) and reports the share of calls whose tool name the embedded world's catalogue
holds, with the names it lacks. Calls whose "name" is not a tool name at all (a JSON
request, a whole command line, a model's channel tokens such as `<|constrain|>json`) are
counted and listed apart and left out of the headline share, as the issue's own figure
("about 91 %") does; `share_all_calls` includes them. It also reports how many calls to a
known tool used only argument names the world's schema lists.

With `--guide FILE` (SpaceMolt's own client's gameplay guide, `prompt.md` of a user's
commander checkout; nothing of it is copied into the results) it measures the same for
every call the guide writes (`name(arg=...)` in its code), leaving out commander's own
local tools (`save_credentials`, `update_todo`, `read_todo`, `status_log`, which never
reach the server). Writes bench/results/world_catalogue.json.

Usage: python bench/world_catalogue.py [--data DIR] [--guide FILE] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from zoea_tui.sim import World  # noqa: E402

TOOL_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "smbench-run2"
#: commander's local tools: answered by the client itself, never sent to the server.
COMMANDER_LOCAL = frozenset({"save_credentials", "update_todo", "read_todo", "status_log"})
_CODE = re.compile(r"```.*?```|`[^`\n]+`", re.DOTALL)
_CALL = re.compile(r"\b([a-z][a-z0-9_]*)\(([^()]*)\)")
_ARG = re.compile(r"\b([a-z_][a-z0-9_]*)\s*=")


def read_guide(text: str) -> list[tuple[str, dict]]:
    """Every call a guide writes in its code (`name(arg=...)`), once per distinct call,
    commander's local tools left out; an argument's value is not read, only its name."""
    calls: dict[tuple[str, tuple[str, ...]], None] = {}
    for code in _CODE.findall(text):
        for name, inside in _CALL.findall(code):
            if name not in COMMANDER_LOCAL:
                calls[(name, tuple(_ARG.findall(inside)))] = None
    return [(name, dict.fromkeys(args, "")) for name, args in calls]


def read_calls(data: Path) -> list[tuple[str, dict]]:
    """Every (tool name, arguments) of the logs' tool_call and tool_error events."""
    calls: list[tuple[str, dict]] = []
    for path in sorted(data.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if event.get("event") in ("tool_call", "tool_error"):
                args = event.get("args")
                name = str(event.get("command", ""))
                calls.append((name, args if isinstance(args, dict) else {}))
    return calls


def measure(calls: list[tuple[str, dict]]) -> dict:
    """The coverage report for these calls against the world's catalogue."""
    schemas = {s["name"]: s["input_schema"]["properties"] for s in World.tool_specs()}
    names = Counter(name for name, _ in calls)
    malformed = {n: c for n, c in names.items() if not TOOL_NAME.fullmatch(n)}
    named = {n: c for n, c in names.items() if n not in malformed}
    known = sum(c for n, c in named.items() if n in schemas)
    missing = {n: c for n, c in sorted(named.items(), key=lambda x: -x[1]) if n not in schemas}
    args_known = [set(args) <= set(schemas[name]) for name, args in calls if name in schemas]
    total_named = sum(named.values())
    return {
        "calls": len(calls),
        "calls_naming_a_tool": total_named,
        "calls_to_world_tools": known,
        "share": round(known / total_named, 4) if total_named else 0.0,
        "share_all_calls": round(known / len(calls), 4) if calls else 0.0,
        "distinct_tools_called": len(named),
        "distinct_tools_in_world": len([n for n in named if n in schemas]),
        "missing": missing,
        "malformed_names": {"calls": sum(malformed.values()), "names": sorted(malformed)},
        "arguments_all_known_share": (
            round(sum(args_known) / len(args_known), 4) if args_known else 0.0
        ),
        "world_tools": len(schemas),
        "target_share": 0.99,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--guide", type=Path, help="commander's prompt.md (its gameplay guide)")
    parser.add_argument(
        "--out", type=Path, default=ROOT / "bench" / "results" / "world_catalogue.json"
    )
    args = parser.parse_args()
    if not args.data.is_dir():
        print(f"world_catalogue: no play logs at {args.data}; skipped (use --data DIR)")
        return 0
    report = {"data": args.data.name, **measure(read_calls(args.data))}
    if args.guide is not None:
        guide = measure(read_guide(args.guide.read_text(encoding="utf-8")))
        report["guide"] = {"file": args.guide.name, **guide}
        print(
            f"world_catalogue: {guide['share']:.2%} of the {guide['calls']} calls commander's "
            f"guide writes name a world tool; missing: {', '.join(guide['missing']) or 'none'}; "
            f"arguments all known: {guide['arguments_all_known_share']:.2%}"
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(
        f"world_catalogue: {report['share']:.2%} of {report['calls_naming_a_tool']} calls name "
        f"a world tool ({report['share_all_calls']:.2%} of all {report['calls']}); "
        f"missing: {', '.join(report['missing']) or 'none'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
