"""Everything the service keeps in Redis, and the one place where a game changes.

``Store`` (service/store/games.py) is the object passed around: the connections
(service/store/connections.py), the one writer of games, and beside it small repositories, each
with its own keys: ``store.players`` (service/store/players.py), ``store.tokens``
(service/store/tokens.py), ``store.messages`` (service/store/messages.py), ``store.indexes``
(service/store/indexes.py: players' game lists, the lobby, summaries, resolutions owed),
``store.follows`` (service/store/follows.py), ``store.tournaments`` (service/store/tournaments.py),
``store.blocks``, ``store.notes`` and ``store.moderation`` (service/store/social.py).

Data model (key names in service/store/keys.py; every key of one game shares the ``{<game id>}``
hash tag; what the bytes mean is in service/store/record.py):

- ``kurier:game:{g}`` hash: the game record; ``state``, ``seed``, ``sealed`` and ``invite``
  are secret and never leave the store unredacted.
- ``kurier:game:{g}:events`` stream: one entry per version, ID ``<version>-0``: one field ``z``,
  the entry compressed with the record's ``log_codec`` (service/store/eventlog.py), or for games
  without a codec the fields themselves (kind, seat, action, ref, commitment, events, at).
- ``kurier:game:{g}:idem:<player>:<sha256(key)>`` string: a replayable response, 24 h
  (compressed with the game's codec, behind the ``z:`` prefix).
- ``kurier:game:{g}:review:<player>`` string: a finished game's review of one player's
  decisions, JSON (service/domain/review.py).
- ``kurier:game:{g}:messages`` stream and ``:messages:hidden`` set: the game's messages
  (service/store/messages.py).
- ``kurier:player:{p}`` hash (service/store/players.py), ``kurier:player:{p}:games`` sorted set
  (score: creation order; written by the game writer, read by service/store/indexes.py).
- ``kurier:auth:token:<sha256(token)>`` hash: the player a bearer token stands for, and
  ``kurier:player:{p}:tokens`` hash: the player's tokens (service/store/tokens.py).
- ``kurier:games:live`` sorted set: public games in play by their latest commit (the watch
  page; kept by the game writer), ``kurier:player:{p}:following`` set (service/store/follows.py).
- ``kurier:player:{p}:blocks``, ``:blocked-by`` sets, ``:notes`` hash, ``:warnings`` list, and
  ``kurier:{moderation}:moderators``, ``:reports``, ``:reports:open``, ``:audit`` (one hash
  tag): blocks, private notes, reports and the moderators' audit log (service/store/social.py).
- ``kurier:tournament:{t}`` hash (version and JSON document, replaced by compare-and-set),
  ``kurier:tournaments`` sorted set and ``kurier:tournaments:games`` hash: tournaments, their
  listing and which tournament a game belongs to (service/store/tournaments.py).
- ``kurier:game:{g}:outbox`` stream and ``kurier:outbox:dirty:{n}`` sorted sets: what commits
  still owe other slots and the queue Redis (service/store/outbox.py; not used when colocated).
- ``kurier:epoch`` hash (one ``kurier:epoch:{<n>}`` per master of a cluster): whether the store
  went back in time (service/store/epoch.py).
- ``kurier:compact:keep-events`` set of ``"<type> <rules version>"``: rules whose finished
  games compaction packs with every event (``Store.compact``; `kurier games compact
  --keep-events` before an upgrade of rules).
- On the queue Redis (the same one unless ``KURIER_QUEUE_URL`` says otherwise): rq's keys,
  ``kurier:owed`` sorted set and ``kurier:owed:jobs`` hash: the jobs owed (resolutions,
  notifications, deadlines), written with the commit that makes them due (service/store/owed.py);
  ``kurier:alive:*`` heartbeats; ``kurier:outbox:relayed:<g>``.

``Store.transact`` is the only writer of game keys: one pipelined read of the record and the
idempotency record, the change computed in Python, then one server-side script (the commit,
service/store/writes.py) that compares the version and writes record, log entry, idempotency record
and what the commit brings along, or nothing. A concurrent writer moves the version and we start
over from a fresh read, so no two changes ever apply to the same version and nothing
half-written is ever visible. For a move through the API, that first read rides in the request's
first round trip, the token check's (service/store/early.py).

What a commit brings along (owed jobs and rq's entries: service/store/owed.py and
service/store/game_jobs.py; players' game lists, the lobby) is recorded, not sent
(service/store/writes.py). When the game store and the queues are one Redis (``colocated``) it
runs inside the commit script. Otherwise (a Redis Cluster, or the queues on ``KURIER_QUEUE_URL``)
it goes into the game's outbox in the same script and is relayed right after
(service/store/outbox.py): at least once, applied once, swept if the writer dies.

Two round trips per change (read, commit), three or four with an outbox.

Every other write goes through ``Connections.write`` (service/store/connections.py): one
pipeline, followed by ``WAIT`` when ``KURIER_WAIT_REPLICAS`` asks for replicas. Both it and the
game writer first ask ``Epoch`` (service/store/epoch.py, at most once a second) whether the store
went back in time, and write nothing on one that did.
"""

from service.store.connections import REDIS_FAILED
from service.store.game_jobs import resolve_job
from service.store.games import Followups, LogWatch, Store
from service.store.indexes import MAX_INDEX
from service.store.record import Entries
from service.store.tokens import TOKEN_PREFIX

__all__ = [
    "MAX_INDEX",
    "REDIS_FAILED",
    "TOKEN_PREFIX",
    "Entries",
    "Followups",
    "LogWatch",
    "Store",
    "resolve_job",
]
