"""The numbers and formulas of the embedded world (docs/ARCHITECTURE.md, 'The embedded world').

Everything here is pure integer arithmetic, so results never depend on float rounding.
"""

from __future__ import annotations

JUMP_FUEL = 2
MINING_POWER = 5
REGEN_INTERVAL_TICKS = 5
FUEL_CELL_FUEL = 20
REPAIR_PRICE_PER_HULL = 5
MARKET_LEVEL_DEPTH = 200
MARKET_LEVEL_STEP_PCT = 2
BID_PCT = 90
ASK_PCT = 110
LOG_MAX_ENTRIES = 20
LOG_MAX_BYTES = 30_000
NOTIFICATION_CAP = 100
CHAT_LOG_CAP = 500
CHAT_HISTORY_MAX = 100
USERNAME_MIN = 3
USERNAME_MAX = 24
MINING_WEAR_CHANCE_PCT = 10
MINING_WEAR_MAX = 5


def ceil_div(a: int, b: int) -> int:
    """`ceil(a / b)` for non-negative integers."""
    return -(-a // b)


def travel_ticks(distance_centi_au: int, speed: int) -> int:
    """Ticks to cross `distance` (in hundredths of an AU) at `speed` AU per tick, minimum 1."""
    return max(1, ceil_div(distance_centi_au, 100 * max(1, speed)))


def travel_fuel(distance_centi_au: int) -> int:
    """Fuel for an in-system trip: one unit per started AU, minimum 1."""
    return max(1, ceil_div(distance_centi_au, 100))


def jump_ticks(speed: int) -> int:
    """Ticks for a jump to a neighbouring system (`7 - speed`, minimum 1)."""
    return max(1, 7 - speed)


def mining_quantity(richness: int, mining_level: int) -> int:
    """Units one `mine` yields before cargo and deposit limits, at least 1."""
    scaled = MINING_POWER * richness * (100 + 5 * mining_level)
    return max(1, (scaled + 2500) // 5000)


def skill_level(xp: int) -> int:
    """The level reached with `xp`: level n needs 25·n·(n+1) XP (50, 150, 300, ...)."""
    level = 0
    while 25 * (level + 1) * (level + 2) <= xp:
        level += 1
    return level


def regen_amount(max_remaining: int) -> int:
    """Units a deposit regains every `REGEN_INTERVAL_TICKS` ticks."""
    return max(1, max_remaining // 100)


def quote(base_price: int, factor_pct: int, side_pct: int) -> int:
    """A station's top-of-book price for an item: base x station factor x side."""
    return max(1, (base_price * factor_pct * side_pct + 5000) // 10_000)


def walk_book(top_price: int, quantity: int, selling: bool) -> list[dict[str, int]]:
    """Fill `quantity` against a station book, level by level.

    Each level holds `MARKET_LEVEL_DEPTH` units; every level walked moves the price
    `MARKET_LEVEL_STEP_PCT` percent against the trader (down when selling, up when buying).
    """
    fills: list[dict[str, int]] = []
    level = 0
    left = quantity
    while left > 0:
        step = -MARKET_LEVEL_STEP_PCT if selling else MARKET_LEVEL_STEP_PCT
        price = max(1, (top_price * (100 + step * level) + 50) // 100)
        take = min(left, MARKET_LEVEL_DEPTH)
        fills.append({"price_each": price, "quantity": take, "subtotal": price * take})
        left -= take
        level += 1
    return fills
