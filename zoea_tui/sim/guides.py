"""The in-game guides (`get_guide`): short playbooks for each way to earn a living."""

from __future__ import annotations

GUIDES: dict[str, dict[str, str]] = {
    "getting-started": {
        "title": "Getting started",
        "text": "You start docked at your empire's home station. get_status shows your ship "
        "and credits; get_system lists the POIs of your system. Undock, travel to an "
        "asteroid belt, mine until the hold is full, travel back, dock and sell. One action "
        "per tick; queries are free.",
    },
    "miner": {
        "title": "Mining",
        "text": "Mine at asteroid belts (get_poi shows each deposit and what is left). Deposits "
        "deplete and regenerate slowly. Sell at stations: view_market's best_buy is what the "
        "station pays. Better ore (titanium, gold) pays far more than iron.",
    },
    "trader": {
        "title": "Trading",
        "text": "analyze_market compares every station's prices and lists the best routes. "
        "Buy where an item is cheap, jump to where it is dear, sell. create_sell_order lists "
        "cargo at your price (NPC buyers take orders priced at or below the station's ask); "
        "create_buy_order bids for items. view_orders and cancel_order manage your orders.",
    },
    "explorer": {
        "title": "Exploration",
        "text": "get_map shows every system and its jump links; find_route plans a path and "
        "its fuel. Each jump costs 2 fuel: refuel at stations (refuel while docked) before "
        "the tank drops below 30 %. Barnard's Star has no station.",
    },
    "missions": {
        "title": "Missions",
        "text": "Every station has a mission board: get_missions lists it, accept_mission "
        "takes one, get_active_missions shows progress, complete_mission turns it in at the "
        "station it names, abandon_mission drops it. Missions fit a starter ship: deliveries, "
        "mining quotas, courier trips and pirate hunts.",
    },
    "pirate-hunter": {
        "title": "Pirate hunting",
        "text": "Pirates lurk at the belts of low-security systems (police level 3 or less). "
        "Buy a weapon (pulse_laser_i) and a defence module (shield_booster_i or "
        "armor_plate_i) at a station, install_mod them while docked, find pirates with "
        "get_nearby, then attack(target_id) once per tick. They fire back every tick while "
        "you stay; shields recharge, repair the hull at a station. Destroyed pirates pay a "
        "bounty and leave a wreck: get_wrecks, then loot_wreck.",
    },
}

ALIASES: dict[str, str] = {
    "combat": "pirate-hunter",
    "pirates": "pirate-hunter",
    "mining": "miner",
    "trading": "trader",
    "exploration": "explorer",
    "navigation": "explorer",
    "start": "getting-started",
    "basics": "getting-started",
}
