"""`kurier moderator grant|revoke NAME` and `kurier moderator list`: who moderates
(service/domain/moderation.py; docs/operations.md, "Moderators")."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def add_parser(commands: Any) -> None:
    moderator = commands.add_parser(
        "moderator", help="grant or revoke the moderator role, or list the moderators"
    )
    moderator.add_argument("action", choices=["grant", "revoke", "list"])
    moderator.add_argument(
        "player", nargs="?", help="a player's name (unique) or id (p_…); not for list"
    )


def cmd_moderator(args: argparse.Namespace) -> int:
    from service.common.problems import Problem
    from service.domain import moderation
    from service.store import Store

    store = Store.from_env()
    try:
        if args.action == "list":
            for player in moderation.moderators(store):
                print(f"{player['id']}\t{player['name']}")
            return 0
        if not args.player:
            print(f"kurier moderator {args.action}: name the player", file=sys.stderr)
            return 2
        granted = args.action == "grant"
        try:
            player = moderation.set_moderator(store, args.player, granted)
        except Problem as error:
            print(f"kurier moderator {args.action}: {error.description}", file=sys.stderr)
            return 1
        done = "is now a moderator" if granted else "is no longer a moderator"
        print(f"{player['name']} ({player['id']}) {done}")
        return 0
    finally:
        store.close()
