"""Every Redis key of a game or a player, built in one place.

All keys of one game share the ``{<game id>}`` hash tag, and all keys of one player the
``{<player id>}`` tag, so each group lives in one Redis Cluster slot and commits in one
transaction. What each key holds is described in service/store/__init__.py's module docstring.
"""

from __future__ import annotations

import hashlib
import re
import zlib

#: The next game's sequence number (a game's creation order, used to page listings).
GAME_SEQ = "kurier:seq:games"
#: Games anyone may join that still have a free seat (member: game id, score: its sequence).
OPEN_GAMES = "kurier:games:open"
#: Sorted set of ``"<game> <ref>"``: where resolutions were owed before service/store/owed.py; a
#: worker's start moves what is left there into the owed jobs (workers/jobs.py).
LEGACY_RESOLVE_INDEX = "kurier:resolve:pending"
#: Set of ``"<game type> <rules version>"``: compaction keeps every event of a finished game
#: under these rules (none rebuilt by replay), so that a release of other rules reads its log.
#: ``kurier games compact --keep-events`` adds the running engines' (docs/operations.md,
#: Upgrades).
KEEP_EVENTS_OF = "kurier:compact:keep-events"
#: Matches a game record's key and captures the game id (``SCAN`` over stored games).
GAME_KEY_PATTERN = "kurier:game:{*}"
_GAME_KEY = re.compile(r"^kurier:game:\{([^}]+)\}$")


def game_key(game_id: str) -> str:
    return f"kurier:game:{{{game_id}}}"


def game_id_of(key: str) -> str | None:
    """The game id in a record key found by ``GAME_KEY_PATTERN``, None for its other keys."""
    found = _GAME_KEY.match(key)
    return found.group(1) if found else None


def events_key(game_id: str) -> str:
    return f"{game_key(game_id)}:events"


def review_key(game_id: str, player_id: str) -> str:
    """A finished game's review of one player's decisions (service/domain/review.py)."""
    return f"{game_key(game_id)}:review:{player_id}"


def idem_key(game_id: str, player_id: str, key: str) -> str:
    return f"{game_key(game_id)}:idem:{player_id}:{hashlib.sha256(key.encode()).hexdigest()}"


def messages_key(game_id: str) -> str:
    """Stream of the game's messages (table and private), ID = when it was posted."""
    return f"{game_key(game_id)}:messages"


def hidden_messages_key(game_id: str) -> str:
    """Set of the ids of messages the game's creator hid."""
    return f"{game_key(game_id)}:messages:hidden"


def message_rate_key(player_id: str, window: int) -> str:
    """Messages a player sent in one rate-limit window (a counter that expires)."""
    return f"kurier:player:{{{player_id}}}:messages:{window}"


def player_key(player_id: str) -> str:
    return f"kurier:player:{{{player_id}}}"


def player_games_key(player_id: str) -> str:
    return f"{player_key(player_id)}:games"


def player_tokens_key(player_id: str) -> str:
    """Hash of a player's tokens: token id -> JSON (name, created_at, the token's key)."""
    return f"{player_key(player_id)}:tokens"


def token_key(token: str) -> str:
    return f"kurier:auth:token:{hashlib.sha256(token.encode()).hexdigest()}"


def outbox_key(game_id: str) -> str:
    """Stream of what the game's commits still owe other slots and the queue Redis."""
    return f"{game_key(game_id)}:outbox"


#: Games whose outbox may hold entries, spread over this many sorted sets (cluster slots).
OUTBOX_BUCKETS = 16


def dirty_key(game_id: str) -> str:
    """The sorted set that marks ``game_id``'s outbox as possibly non-empty."""
    return dirty_bucket_key(zlib.crc32(game_id.encode()) % OUTBOX_BUCKETS)


def dirty_bucket_key(bucket: int) -> str:
    return f"kurier:outbox:dirty:{{{bucket}}}"


def relayed_key(game_id: str) -> str:
    """On the queue Redis: the last outbox entry (a version) of the game relayed there."""
    return f"kurier:outbox:relayed:{game_id}"


def email_key(email: str) -> str:
    """Set of the players who gave this address (lower-cased; hashed: no address in a key)."""
    return f"kurier:email:{hashlib.sha256(email.strip().lower().encode()).hexdigest()}"


def session_key(session_id: str) -> str:
    """A browser session (service/domain/websessions.py); only the id's hash is a key."""
    return f"kurier:session:{hashlib.sha256(session_id.encode()).hexdigest()}"


def signin_key(token: str) -> str:
    """A one-time sign-in link's token (hashed), valid for minutes."""
    return f"kurier:signin:{hashlib.sha256(token.encode()).hexdigest()}"


def stream_ticket_key(ticket: str) -> str:
    """A one-time stream ticket (hashed), valid for a minute (service/store/tokens.py)."""
    return f"kurier:streamticket:{hashlib.sha256(ticket.encode()).hexdigest()}"


# -- ratings and finished games (service/domain/ratings.py)
# ---------------------------------------------

#: Finished public games, newest first (member: game id, score: when it finished).
FINISHED_GAMES = "kurier:games:finished"


def finished_games_key(game_type: str | None = None) -> str:
    """Finished public games (all types, or of one type): game id -> when it finished."""
    return f"{FINISHED_GAMES}:{game_type}" if game_type else FINISHED_GAMES


def ratings_tag(game_type: str) -> str:
    """All rating keys of one game type share this hash tag: one slot, one atomic update."""
    return f"kurier:{{ratings:{game_type}}}"


def ratings_players_key(game_type: str) -> str:
    """Hash: player id -> JSON rating (mu, sigma, games, wins) in this game type."""
    return f"{ratings_tag(game_type)}:players"


def ratings_rated_key(game_type: str) -> str:
    """Set of the game ids already applied to this game type's ratings."""
    return f"{ratings_tag(game_type)}:rated"


def ratings_board_key(game_type: str) -> str:
    """Sorted set: player id -> conservative rating (mu - 3 sigma), the leaderboard."""
    return f"{ratings_tag(game_type)}:board"


def ratings_changes_key(game_type: str) -> str:
    """Hash: game id -> JSON, each player's conservative rating before and after that rated
    game (the end screen's rating changes), written with the ratings by the same script."""
    return f"{ratings_tag(game_type)}:changes"


def player_finished_key(player_id: str) -> str:
    """Sorted set of the player's finished games (rated or not): game id -> when it finished."""
    return f"{player_key(player_id)}:finished"


def player_won_key(player_id: str) -> str:
    """Sorted set of the finished games the player won: game id -> when it finished."""
    return f"{player_key(player_id)}:won"


def player_public_finished_key(player_id: str) -> str:
    """The player's finished public games (shown on the profile): game id -> when it finished."""
    return f"{player_key(player_id)}:finished:public"


def presence_key(game_id: str, player_id: str) -> str:
    """A player's mark of being at a game's table, with a TTL (service/domain/presence.py)."""
    return f"kurier:presence:{game_id}:{player_id}"


def mailbag_key(game_id: str, seat: int) -> str:
    """Mail notices to one seat waiting to go out together (service/domain/mailbag.py)."""
    return f"kurier:mailbag:{game_id}:{seat}"


# -- the club (service/domain/club.py, service/store/follows.py) ------------------------------

#: Public games in play, the latest move first (member: game id, score: when it last moved).
LIVE_GAMES = "kurier:games:live"


def rating_history_key(game_type: str, player_id: str) -> str:
    """Sorted set of a player's rating after each rated game of ``game_type``: member
    ``<game id> <conservative rating>``, score: when it was applied. In the type's ratings slot,
    so the rating update writes it in the same script."""
    return f"{ratings_tag(game_type)}:history:{player_id}"


def player_stats_key(player_id: str) -> str:
    """Hash of counters over the player's finished games, counted once per game:
    ``played:<type>:<seats>``, ``won:<type>:<seats>``, ``decisions``, ``timeouts``,
    ``abandoned``."""
    return f"{player_key(player_id)}:stats"


def player_following_key(player_id: str) -> str:
    """Set of the players this player follows (a small set: service/store/follows.py)."""
    return f"{player_key(player_id)}:following"


# -- tournaments (service/domain/tournaments.py, service/store/tournaments.py) -----------------

#: Tournaments, newest first (member: tournament id, score: when it was created).
TOURNAMENTS = "kurier:tournaments"
#: Hash: game id -> the tournament id it was paired for.
TOURNAMENT_GAMES = "kurier:tournaments:games"


def tournament_key(tournament_id: str) -> str:
    """Hash of one tournament: ``v`` its version, ``doc`` its JSON (entrants, rounds, results)."""
    return f"kurier:tournament:{{{tournament_id}}}"


# -- blocks, private notes, moderation (service/store/social.py) -------------------------------


def player_blocks_key(player_id: str) -> str:
    """Set of the players this player blocks (service/store/social.py)."""
    return f"{player_key(player_id)}:blocks"


def player_blocked_by_key(player_id: str) -> str:
    """Set of the players who block this player: read only to keep them apart at a table."""
    return f"{player_key(player_id)}:blocked-by"


def player_notes_key(player_id: str) -> str:
    """Hash: game id -> this player's private note on that game (JSON: text, updated_at)."""
    return f"{player_key(player_id)}:notes"


def player_warnings_key(player_id: str) -> str:
    """List of the warnings moderators gave this player (JSON each), newest first."""
    return f"{player_key(player_id)}:warnings"


#: The moderation keys share one hash tag: a report and its audit entry are written together.
MODERATION_TAG = "kurier:{moderation}"
#: Set of the players the operator made moderators (``kurier moderator grant``).
MODERATORS = f"{MODERATION_TAG}:moderators"
#: Hash: report id -> the report (JSON).
REPORTS = f"{MODERATION_TAG}:reports"
#: Sorted set of the open reports (member: report id, score: when it was made).
OPEN_REPORTS = f"{MODERATION_TAG}:reports:open"
#: Stream: the moderators' audit log, append-only (nothing here ever deletes or trims it).
AUDIT_LOG = f"{MODERATION_TAG}:audit"
