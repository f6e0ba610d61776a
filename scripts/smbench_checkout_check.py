"""Check that the autopilot reads its task in a real SMBench checkout's own wording, and
that the arena's scoring recomputes the checkout's published tables to the decimal.

    .venv/bin/python scripts/smbench_checkout_check.py PATH/TO/smbench

The suite checks the same against a fake checkout laid out like SMBench's
(tests/arena/test_smbench_prompt.py); this script is for a user's real checkout, which
the tests cannot have (nothing of SMBench's is in this repository). Exit 0 when every
scenario file is read as the kind of order its scenario is and every published figure is
recomputed (``zoea_tui/arena/published.py``), 1 otherwise.
"""

from __future__ import annotations

import sys
from pathlib import Path

from zoea_tui.arena.published import PublishedError, recompute
from zoea_tui.arena.smbench import CheckoutError, load
from zoea_tui.providers.autopilot.orders import parse_order

EXPECTED_ORDERS = {
    "s1": "mine",
    "s2": "explore",
    "s3": "trade",
    "s4": "social",
    "s5": "combat",
    "s6": "missions",
}


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: smbench_checkout_check.py PATH/TO/smbench", file=sys.stderr)
        return 2
    try:
        checkout = load(Path(argv[0]))
    except CheckoutError as error:
        print(f"smbench_checkout_check: {error}", file=sys.stderr)
        return 2
    wrong = 0
    for key in checkout.scenarios:
        order = parse_order(checkout.task(key))
        kind = None if order is None else order.kind
        ok = kind == EXPECTED_ORDERS.get(key)
        wrong += not ok
        print(
            f"{key}: read as {kind!r}, expected {EXPECTED_ORDERS.get(key)!r}"
            + ("" if ok else "  <- wrong")
        )
    try:
        comparison = recompute(Path(argv[0]))
    except PublishedError as error:
        print(f"published tables: none to recompute ({error})")
    else:
        print(f"published tables: {comparison.summary()}")
        for mismatch in comparison.mismatches:
            print(f"  {mismatch}")
        wrong += len(comparison.mismatches)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
