"""SMBench's six scenarios as the arena plays them (reference: SMBench's scenario list).

Each :class:`Scenario` has SMBench's id and tick budget, the task given to the Mysis as
the commander's first message (in our words: the same objective, rules and success
criteria as SMBench's scenario file, which ``--smbench`` sends instead), how many
companion Myses share the world (s4 needs someone to talk to), and its three success
levels as predicates over the run's metrics. The score itself is
:func:`~zoea_tui.arena.scoring.score_run`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

Metrics = Mapping[str, float]
Level = Callable[[Metrics], bool]

#: The success levels, in order.
LEVELS = ("pass", "good", "excellent")
#: What a run's ``level`` may be: none reached, or the highest one reached.
ALL_LEVELS = ("none", *LEVELS)


def _m(metrics: Metrics, key: str) -> float:
    return float(metrics.get(key, 0) or 0)


def _at_least(key: str, value: float) -> Level:
    return lambda m: _m(m, key) >= value


def _thresholds(key: str, values: tuple[float, float, float]) -> tuple[Level, Level, Level]:
    """The three levels of a scenario scored on one metric: at least each of ``values``."""
    low, mid, high = values
    return (_at_least(key, low), _at_least(key, mid), _at_least(key, high))


@dataclass(frozen=True, slots=True)
class Scenario:
    """One SMBench scenario."""

    key: str
    id: str
    name: str
    budget: int
    task: str
    levels: tuple[Level, Level, Level]
    #: What each level asks, for tables and the leaderboard.
    level_text: tuple[str, str, str]
    #: Companion Myses (autopilot) sharing the world.
    companions: int = 0
    #: The raw figures the scenario is about (shown beside its score, averaged per cell).
    raw: tuple[str, ...] = ()

    def achieved(self, metrics: Metrics) -> dict[str, bool]:
        """``{"pass": …, "good": …, "excellent": …}`` for a run's metrics."""
        return {name: bool(level(metrics)) for name, level in zip(LEVELS, self.levels, strict=True)}

    def level(self, metrics: Metrics) -> str:
        """The highest success level reached ("none" when not even the first)."""
        reached = "none"
        for name, ok in self.achieved(metrics).items():
            if not ok:
                break
            reached = name
        return reached


def _social_pass(m: Metrics) -> bool:
    return _m(m, "chats") >= 3 and _m(m, "status_set") >= 1


def _social_good(m: Metrics) -> bool:
    return (
        _m(m, "chats_local") >= 1
        and _m(m, "chats_global") >= 1
        and _m(m, "log_entries") >= 2
        and _m(m, "forum_posts") >= 1
        and _m(m, "status_set") >= 1
        and _m(m, "colors_set") >= 1
    )


def _social_excellent(m: Metrics) -> bool:
    return _social_good(m) and (
        _m(m, "replies_received") >= 1 or _m(m, "forum_posts_meaningful") >= 1
    )


def _combat_survived(m: Metrics) -> bool:
    return _m(m, "pirates_engaged") >= 1 and _m(m, "destroyed") == 0


SCENARIOS: dict[str, Scenario] = {
    s.key: s
    for s in (
        Scenario(
            "s1",
            "s1-bootstrap-grind",
            "Bootstrap & grind",
            200,
            "Arena scenario s1, Bootstrap and grind (200 ticks). Mine ore at the asteroid belts "
            "of your home system and sell it at the station there, again and again, to earn as "
            "many credits as you can. You start new, in a basic ship; every action costs a "
            "tick, so waste none. Do not leave your home system and do not fight. Refuel "
            "and repair at the station when low. Success: 500 credits earned passes, 1 500 "
            "is good, 3 000 is excellent.",
            _thresholds("credits_earned", (500, 1_500, 3_000)),
            ("earn ≥ 500 cr", "earn ≥ 1 500 cr", "earn ≥ 3 000 cr"),
            raw=("credits_earned", "credits_spent", "ore_mined"),
        ),
        Scenario(
            "s2",
            "s2-navigation",
            "Navigation",
            200,
            "Arena scenario s2, Navigation (200 ticks). Explore: visit as many star systems as "
            "you can, starting from your home station in a basic ship. Use the map and the "
            "route tools to plan your jumps, and refuel at a station whenever your fuel falls "
            "below 30 percent. Success: 3 systems visited passes, 6 is good, 10 is "
            "excellent.",
            _thresholds("systems_explored", (3, 6, 10)),
            ("visit ≥ 3 systems", "visit ≥ 6 systems", "visit ≥ 10 systems"),
            raw=("systems_explored",),
        ),
        Scenario(
            "s3",
            "s3-trading",
            "Trading",
            300,
            "Arena scenario s3, Trading (300 ticks). Trade for profit: buy goods where they are "
            "cheap and sell them where they are dear, across systems and on the exchange (use "
            "the market analysis and buy and sell orders). You start with the starter credits "
            "and may mine first to raise capital. End with as many credits as you can. "
            "Success: ending with 1 000 credits passes, 5 000 is good, 15 000 is excellent.",
            _thresholds("final_credits", (1_000, 5_000, 15_000)),
            ("end with ≥ 1 000 cr", "end with ≥ 5 000 cr", "end with ≥ 15 000 cr"),
            raw=("final_credits", "credits_earned", "credits_spent"),
        ),
        Scenario(
            "s4",
            "s4-social",
            "Social",
            100,
            "Arena scenario s4, Social (100 ticks). Socialise with the other pilots: chat in "
            "the local channel and in a wide channel, answer pilots who talk to you, write two "
            "captain's log entries, post on the forum, set a status message and choose your "
            "ship's colours. Success: three chats and a status pass, all of it is good, a "
            "reply from a pilot or a forum thread of your own is excellent.",
            (_social_pass, _social_good, _social_excellent),
            ("3 chats and a status", "all of it", "a reply received or real forum content"),
            companions=2,
            raw=("chats", "log_entries", "forum_posts"),
        ),
        Scenario(
            "s5",
            "s5-combat",
            "Combat",
            300,
            "Arena scenario s5, Combat (300 ticks). Hunt pirates: earn credits, buy and install "
            "a weapon module and a defence module, find pirate NPCs and fight them. Keep an "
            "eye on your hull and shield, and repair before they fail. Success: a weapon "
            "installed passes, a pirate engaged and survived is good, a pirate destroyed is "
            "excellent.",
            (
                _at_least("weapons_installed", 1),
                _combat_survived,
                _at_least("pirates_destroyed", 1),
            ),
            ("a weapon installed", "a pirate engaged and survived", "a pirate destroyed"),
            raw=("weapons_installed", "pirates_engaged", "pirates_destroyed", "destroyed"),
        ),
        Scenario(
            "s6",
            "s6-mission-runner",
            "Mission runner",
            300,
            "Arena scenario s6, Mission runner (300 ticks). Run missions: take missions from "
            "the station mission boards that your ship can do, complete them and turn them in "
            "for their rewards, one after another. Success: a mission accepted passes, one "
            "completed is good, three completed is excellent.",
            (
                _at_least("missions_accepted", 1),
                _at_least("missions_completed", 1),
                _at_least("missions_completed", 3),
            ),
            ("≥ 1 accepted", "≥ 1 completed", "≥ 3 completed"),
            raw=("missions_accepted", "missions_completed", "credits_earned"),
        ),
    )
}


def resolve(names: str) -> list[Scenario]:
    """``"s1"``, a full id (``"s1-bootstrap-grind"``) or ``"all"``: the scenarios meant.

    Raises ``ValueError`` naming the choices for anything else.
    """
    if names == "all":
        return list(SCENARIOS.values())
    key = names.split("-", 1)[0].lower()
    if key in SCENARIOS and names.lower() in (key, SCENARIOS[key].id):
        return [SCENARIOS[key]]
    raise ValueError(f"unknown scenario {names!r}; expected one of: {', '.join(SCENARIOS)}, all")
