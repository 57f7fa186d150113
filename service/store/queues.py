"""The rq queues, the jobs the service enqueues (by dotted path, so nothing here imports a
worker) and their ids.

Job arguments are JSON (``JSONSerializer``: no pickle from Redis), and job ids are derived from
what the job does, so enqueueing the same work twice collapses onto one job.
"""

from __future__ import annotations

from typing import Any

from rq import Queue
from rq.serializers import JSONSerializer

#: Resolutions, deadlines and mail in.
DEFAULT_QUEUE = "default"
#: Notifications: never delay a resolution.
NOTIFY_QUEUE = "low"
DEADLINE_QUEUE = DEFAULT_QUEUE
#: Webhook attempts wait on other people's servers: their own queue and workers
#: (`kurier worker --queues webhooks`), so a slow receiver holds up no game work.
WEBHOOK_QUEUE = "webhooks"
#: Computer opponents' moves (service/domain/bots.py): a queue of their own, since a hard
#: bot's move takes up to its CPU budget (KURIER_BOT_SECONDS). A game worker serves it last; an
#: installation with many bot tables runs workers of their own for it
#: (`kurier worker --queues bots`).
BOT_QUEUE = "bots"
#: What a game worker serves, in priority order.
WORKER_QUEUES = ("high", DEFAULT_QUEUE, NOTIFY_QUEUE, BOT_QUEUE)

RESOLVE_JOB = "workers.jobs.resolve"
NOTIFY_JOB = "workers.notify.notify"
DEADLINE_JOB = "workers.notify.deadline"
REMIND_JOB = "workers.notify.remind"
WEBHOOK_JOB = "workers.notify.deliver_webhook"
INBOUND_JOB = "workers.mailin.process_inbound"
COMPACT_JOB = "workers.jobs.compact"
RATE_JOB = "workers.ratings.rate"
MESSAGE_JOB = "workers.notify.notify_message"
MAILBAG_JOB = "workers.notify.send_mailbag"
SIGNIN_MAIL_JOB = "workers.webmail.send_signin_links"
BOT_JOB = "workers.bots.move"
REVIEW_JOB = "workers.review.review"
REVIEW_FAILED_CALLBACK = "workers.review.review_failed"
TOURNAMENT_ROUND_JOB = "workers.tournaments.pair_round"
TOURNAMENT_NOTIFY_JOB = "workers.tournaments.notify_round"
INVITE_NOTIFY_JOB = "workers.invites.notify_invited"
MODERATION_NOTICE_JOB = "workers.moderation.notify_player"


def queue(connection: Any, name: str = DEFAULT_QUEUE) -> Queue:
    """A queue on ``connection`` (a bytes client: rq needs one) with the JSON serializer."""
    return Queue(name, connection=connection, serializer=JSONSerializer)


def resolve_job_id(game_id: str, ref: str) -> str:
    return f"resolve-{game_id}-{ref}"


def notify_job_id(game_id: str, version: int, kind: str, seat: int) -> str:
    return f"n-{game_id}-{version}-{kind.removeprefix('game.').replace('.', '_')}-{seat}"


def message_job_id(game_id: str, message_id: str, seat: int) -> str:
    return f"m-{game_id}-{message_id.replace('-', '_')}-{seat}"


def mailbag_job_id(game_id: str, seat: int, window: str) -> str:
    """``window``: the window's number, or ``at<unix second>`` for a held notice's job."""
    return f"bag-{game_id}-{seat}-{window}"


def compact_job_id(game_id: str) -> str:
    return f"compact-{game_id}"


def rate_job_id(game_id: str) -> str:
    return f"rate-{game_id}"


def deadline_job_id(game_id: str, version: int, seat: int | None = None) -> str:
    """A game's deadline at ``version``; under a time bank, one per ``seat`` whose clock runs."""
    return f"deadline-{game_id}-{version}" + ("" if seat is None else f"-seat{seat}")


def remind_job_id(game_id: str, version: int, seat: int | None = None) -> str:
    return f"remind-{game_id}-{version}" + ("" if seat is None else f"-seat{seat}")


def bot_job_id(game_id: str, version: int, seat: int) -> str:
    """A bot's move for the game at ``version``: one job however often it is owed."""
    return f"bot-{game_id}-{version}-{seat}"


def review_job_id(game_id: str, player_id: str) -> str:
    """The review of one player's decisions in a finished game: one job however often asked."""
    return f"review-{game_id}-{player_id}"


def tournament_round_job_id(tournament_id: str, number: int) -> str:
    """The pairing of one round of a tournament (service/domain/tournaments.py)."""
    return f"tournament-{tournament_id}-round-{number}"


def tournament_notify_job_id(tournament_id: str, number: int, player_id: str) -> str:
    return f"tn-{tournament_id}-{number}-{player_id}"


def invite_notify_job_id(game_id: str, player_id: str) -> str:
    """Telling one invited player of a new game (service/domain/invites.py): once per
    (game, player), however often it is owed."""
    return f"inv-{game_id}-{player_id}"
