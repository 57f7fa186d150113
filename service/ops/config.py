"""Every environment variable Kurier reads, with its default and a check (``kurier config check``).

Configuration comes only from the environment. This table is the one list: docs/operations.md
shows the same rows (a test compares them), and a test fails when code reads a variable that is
not listed here.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from email.utils import parseaddr
from pathlib import Path
from typing import cast
from urllib.parse import urlsplit

import redis

from service.common import webhook_urls
from service.common.numbers import is_ascii_digits
from service.store import redis_urls
from service.store.redis_server import (
    LOG_NODE_BYTES,
    RECORD_VALUE_BYTES,
    RedisServer,
    data_dir_from_env,
)

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
DEFAULT_MAILIN_PORT = 2525
#: Schemes `workers.mail` understands.
SMTP_SCHEMES = ("smtp", "smtp+starttls", "smtps")


class Invalid(ValueError):
    """A setting's value is wrong; the message says why (and never repeats a secret)."""


@dataclass(frozen=True)
class Finding:
    name: str
    level: str  # ok | warning | error
    message: str


@dataclass(frozen=True)
class Setting:
    name: str
    default: str  # shown in the docs; "" = unset
    help: str
    check: Callable[[str], str | None] | None = None  # raises Invalid; may return a warning
    secret: bool = False  # may hold a password: never printed
    #: What an unset value means, when that depends on the rest of the environment.
    if_unset: Callable[[Mapping[str, str]], Finding] | None = None


def _int_between(low: int, high: int) -> Callable[[str], None]:
    def check(value: str) -> None:
        if not is_ascii_digits(value.strip()) or not low <= int(value) <= high:
            raise Invalid(f"must be a whole number from {low} to {high}")

    return check


def _number_between(low: float, high: float) -> Callable[[str], None]:
    def check(value: str) -> None:
        try:
            number = float(value)
        except ValueError:
            raise Invalid(f"must be a number from {low} to {high}") from None
        if not low <= number <= high:  # NaN too
            raise Invalid(f"must be a number from {low} to {high}")

    return check


def _one_of(*choices: str) -> Callable[[str], None]:
    def check(value: str) -> None:
        if value.lower() not in choices:
            raise Invalid(f"must be one of {', '.join(choices)}")

    return check


def _mail_keys(value: str) -> None:
    from service.common.replies import parse_keys

    try:
        parse_keys(value)
    except ValueError as error:
        raise Invalid(str(error).removeprefix("KURIER_MAIL_KEYS: ")) from None


def _writable_dir(value: str) -> None:
    path = Path(value).resolve()
    existing = next(p for p in (path, *path.parents) if p.exists())
    if not existing.is_dir() or not os.access(existing, os.W_OK):
        raise Invalid(f"{existing} is not a writable directory")


def check_smtp_url(value: str) -> None:
    parts = urlsplit(value)
    if parts.scheme.lower() not in SMTP_SCHEMES:
        raise Invalid(f"scheme must be one of {', '.join(SMTP_SCHEMES)}")
    if not parts.hostname:
        raise Invalid("names no host (smtp://host:port)")
    try:
        parts.port  # noqa: B018 - urlsplit checks the port only when asked
    except ValueError:
        raise Invalid("has a malformed port") from None


def _mail_from(value: str) -> None:
    if "@" not in parseaddr(value)[1]:
        raise Invalid("must be an address such as 'Kurier <kurier@example.org>'")


class Info(str):
    """What a check found, when all is well but worth saying (e.g. which Redis answered)."""


def check_redis_url(value: str) -> str | None:
    """Well-formed, answering, and what the URL says it is (a plain URL to a cluster node,
    a Sentinel or a replica is refused); says which topology answered; warns about settings
    that risk games. A Sentinel or Cluster deployment any of whose data nodes runs without AOF
    is refused: such a node restarted comes back empty (or from an old snapshot) and takes the
    store back in time, newer tokens answering 401 and newer games 404 for good."""
    try:
        found = redis_urls.probe(value)
    except ValueError as error:
        raise Invalid(f"malformed: {error}") from None
    except redis_urls.TopologyError as error:
        unreachable = isinstance(error.__cause__, (redis.ConnectionError, redis.TimeoutError))
        raise Invalid(f"unreachable: {error}" if unreachable else str(error)) from None
    except (redis.RedisError, redis.exceptions.RedisClusterException) as error:
        raise Invalid(f"unreachable: {type(error).__name__}") from None
    target = redis_urls.parse(value)
    unsure = _every_node_has_aof(value, found) if target.mode != "single" else []
    if target.mode == "cluster":
        # The other settings differ per node: check each node's own by hand.
        return f"{found}: {'; '.join(unsure)}" if unsure else Info(found)
    client = redis_urls.connect(target, decode_responses=True, socket_timeout=3, max_connections=2)
    try:
        server = cast(redis.Redis, client)  # not a cluster (above)
        warnings = [*unsure, *_redis_warnings(server, aof=target.mode == "single")]
    except redis.RedisError as error:
        raise Invalid(f"unreachable: {type(error).__name__}") from None
    finally:
        client.close()
    return f"{found}: {'; '.join(warnings)}" if warnings else Info(found)


def _every_node_has_aof(url: str, found: str) -> list[str]:
    """Raises Invalid naming the data nodes (primary and replicas, every cluster node) that
    run without AOF; returns warnings for those whose setting could not be read."""
    off, unsure = [], []
    for name, client in redis_urls.data_nodes(url):
        try:
            if client.config_get("appendonly").get("appendonly") != "yes":
                off.append(name)
        except redis.ResponseError:
            unsure.append(f"appendonly of {name} unknown (CONFIG refused): make sure it is yes")
        except redis.RedisError as error:
            unsure.append(f"appendonly of {name} unknown ({type(error).__name__})")
        finally:
            client.close()
    if off:
        raise Invalid(
            f"{found}: appendonly is off on {', '.join(off)}; such a node restarted comes back "
            "empty or from an old snapshot, and the store goes back in time (newer tokens 401, "
            "newer games 404): set appendonly yes on every node (docs/operations.md, "
            '"Persistence")'
        )
    return unsure


def check_queue_url(value: str) -> str | None:
    try:
        if redis_urls.parse(value).mode == "cluster":
            raise Invalid("cannot be a Redis Cluster (rq issue 1942): a single Redis or Sentinel")
    except ValueError as error:
        raise Invalid(f"malformed: {error}") from None
    return check_redis_url(value)


def _queues_with_state(environ: Mapping[str, str]) -> Finding:
    state = environ.get("REDIS_URL", "")
    try:
        if state and redis_urls.parse(state).mode == "cluster":
            return Finding(
                "KURIER_QUEUE_URL",
                "error",
                "unset, but REDIS_URL is a Redis Cluster, which cannot hold the job queues: "
                "set KURIER_QUEUE_URL to a single Redis or a redis+sentinel:// URL",
            )
    except ValueError:
        pass  # REDIS_URL's own finding says what is wrong with it
    return Finding("KURIER_QUEUE_URL", "ok", "unset: the job queues share REDIS_URL's Redis")


def _redis_warnings(client: redis.Redis, aof: bool = True) -> list[str]:
    """Settings of one server that risk games or make them bigger; ``aof``: warn about AOF off
    too (one server: a warning; a Sentinel's or Cluster's nodes: an error, said elsewhere)."""
    try:
        config = client.config_get("maxmemory-policy") | client.config_get("appendonly")
        compact = cast(  # a text client (decode_responses): every name and value is a str
            dict[str, str],
            client.config_get("hash-max-*-value") | client.config_get("stream-node-*-bytes"),
        )
    except redis.ResponseError:
        return []  # CONFIG is often disabled on managed Redis: nothing to check then
    problems = []
    if config.get("maxmemory-policy") != "noeviction":
        problems.append("maxmemory-policy is not noeviction (games could be evicted)")
    if aof and config.get("appendonly") != "yes":
        problems.append("appendonly is off (a crash loses everything since the last RDB)")
    problems += _memory_warnings(compact)
    return problems


def _memory_warnings(config: Mapping[str, str]) -> list[str]:
    """Settings that make every game bigger than the launcher's do (docs/operations.md,
    "Persistence"): a record kept as a hash table, a log in 4 KB stream nodes."""
    found = []
    numbers = {k: int(v) for k, v in config.items() if is_ascii_digits(v)}  # as Redis says them
    record = [v for k, v in numbers.items() if k.startswith("hash-max-")]
    if record and min(record) < RECORD_VALUE_BYTES:
        found.append(
            f"hash-max-listpack-value is {min(record)}, not {RECORD_VALUE_BYTES} "
            "(a game's record takes 2.6 KB instead of 1 KB)"
        )
    node = numbers.get("stream-node-max-bytes", LOG_NODE_BYTES)
    if node == 0 or node > LOG_NODE_BYTES:  # 0: no limit, a node preallocated at 4 KB
        found.append(
            f"stream-node-max-bytes is {node}, not {LOG_NODE_BYTES} "
            "(an active game's log takes up to 3 KB more)"
        )
    return found


def _embedded_redis(environ: Mapping[str, str]) -> Finding:
    """No REDIS_URL is the embedded default: `kurier run` (`make run`) starts its own Redis.
    If that one is running, it is checked like any other."""
    server = RedisServer(data_dir_from_env(environ))
    if server.socket.exists():
        try:
            warning = check_redis_url(server.url)
        except Invalid:
            pass  # a socket left by a killed Redis: `kurier run` starts a new one
        else:
            return _judged("REDIS_URL", f"unset: the embedded Redis {server.url}", warning)
    return Finding(
        "REDIS_URL",
        "ok",
        f"unset: `kurier run` starts the embedded Redis in {server.data_dir} "
        "(`kurier web`, `worker` and `mail-in` alone need REDIS_URL)",
    )


def _rate_limit(value: str) -> None:
    from service.domain.ratelimit import check_limit

    try:
        check_limit(value)
    except ValueError:
        raise Invalid("must be limits such as 120/minute or 10/minute;100/hour") from None


def _public_url(value: str) -> None:
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise Invalid("must be an http(s) URL with a host, e.g. https://kurier.example.org")


Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def trusted_proxies(value: str) -> list[Network]:
    """KURIER_TRUSTED_PROXIES (``10.0.0.0/8, 127.0.0.1, ::1``) as networks; raises Invalid
    naming the part that is neither an address nor a network."""
    networks = []
    for part in value.split(","):
        text = part.strip()
        if not text:
            continue
        try:
            networks.append(ipaddress.ip_network(text))
        except ValueError as error:
            raise Invalid(f"{text!r} is not an address or network ({error})") from None
    return networks


def _trusted_proxies(value: str) -> None:
    trusted_proxies(value)


def _delays(value: str) -> None:
    try:
        delays = [float(part) for part in value.split(",") if part.strip()]
    except ValueError:
        raise Invalid("must be seconds separated by commas, e.g. 5,300,1800") from None
    if not delays or any(d < 0 for d in delays):
        raise Invalid("must list at least one delay, none negative")


SETTINGS: tuple[Setting, ...] = (
    Setting(
        "REDIS_URL",
        "",
        "The Redis holding every game: one server (`redis://`, `rediss://`, `unix://`), a "
        "Sentinel-managed primary (`redis+sentinel://h:p,h:p/<service>`) or a Redis Cluster "
        "(`redis+cluster://h:p,h:p`). Required by `web` and `worker`; unset, `kurier run` "
        "starts an embedded Redis",
        check_redis_url,
        secret=True,
        if_unset=_embedded_redis,
    ),
    Setting(
        "KURIER_QUEUE_URL",
        "",
        "The Redis of the job queues (one server or `redis+sentinel://`, never a cluster); "
        "unset: REDIS_URL's, which then must not be a cluster",
        check_queue_url,
        secret=True,
        if_unset=_queues_with_state,
    ),
    Setting(
        "KURIER_WAIT_REPLICAS",
        "0",
        "Answer a change (a move, a new player or token, a setting, a message...) only once this "
        "many replicas have it (Redis WAIT); 0: don't wait",
        _int_between(0, 16),
    ),
    Setting(
        "KURIER_WAIT_MS",
        "1000",
        "How long a change waits for its replicas before it is answered 503 not-replicated",
        _int_between(1, 60_000),
    ),
    Setting(
        "KURIER_LEAVE_DAYS",
        "30",
        "Days of leave each player may take a year (calendar year in the player's time zone; "
        "service/domain/leave.py); 0: no leave",
        _int_between(0, 366),
    ),
    Setting(
        "KURIER_LEAVE_MIN_DAYS",
        "3",
        "The shortest leave, in days",
        _int_between(1, 366),
    ),
    Setting(
        "KURIER_VACATION_WITHOUT_BUDGET",
        "1",
        "1: players may still set `vacation_until` (a date that pauses their clocks outside "
        "the leave budget); 0: it is refused (409 vacation-needs-leave) and leave is the way",
        _one_of("0", "1"),
    ),
    Setting(
        "KURIER_MAIL_BATCH_SECONDS",
        "20",
        "Mail notices to one seat within this window go out as one mail "
        "(service/domain/mailbag.py); "
        "0: one mail per notice. Webhooks are never held",
        _int_between(0, 3600),
    ),
    Setting(
        "KURIER_MAIL_PICTURES",
        "1",
        "0: mails go without the board's pictures (their text says the same; rasterising them "
        "is most of a mail's CPU: the tests' whole games by mail that read only the text)",
        _one_of("0", "1"),
    ),
    Setting(
        "KURIER_PRESENCE_GRACE_SECONDS",
        "120",
        "A player who leaves a game's table (its page hidden or closed) is mailed what still "
        "asks them to act once this long has passed (service/domain/presence.py)",
        _int_between(1, 3600),
    ),
    Setting(
        "KURIER_PRESENCE_BEAT_SECONDS",
        "20",
        "A visible game page says its player is at the table this often; three beats missed "
        "(a closed laptop, a killed browser) and the player has left",
        _int_between(1, 300),
    ),
    Setting(
        "KURIER_BOT_SECONDS",
        "2",
        "CPU seconds a computer opponent's move may take (service/domain/bots.py; the hard "
        "level searches that long)",
        _number_between(0.01, 60),
    ),
    Setting(
        "KURIER_BOT_ITERATIONS",
        "",
        "At most this many search iterations per hard bot move (a move then depends on its "
        "inputs only); unset: the CPU budget alone",
        _int_between(1, 10_000_000),
    ),
    Setting(
        "KURIER_REVIEW_SECONDS",
        "0.5",
        "Seconds of the hard level's search per decision in a finished game's review "
        "(service/domain/review.py; the bots' iteration cap applies too)",
        _number_between(0.05, 60),
    ),
    Setting(
        "KURIER_DATA_DIR",
        ".kurier/redis",
        "Data directory of the embedded Redis (`kurier run`, `kurier redis`)",
        _writable_dir,
    ),
    Setting("KURIER_HOST", "127.0.0.1", "Address `kurier web`/`run` listen on (image: 0.0.0.0)"),
    Setting("KURIER_PORT", "8000", "Port `kurier web`/`run` listen on", _int_between(1, 65535)),
    Setting(
        "KURIER_STREAM_PORT",
        "KURIER_PORT + 1",
        "Port `kurier streams` (the Server-Sent Events server) and `kurier run` listen on for "
        "`/v1/games/{id}/stream` and `/v1/me/stream`",
        _int_between(1, 65535),
    ),
    Setting(
        "KURIER_STREAM_URL",
        "KURIER_PUBLIC_URL with port KURIER_STREAM_PORT",
        "Where the API redirects (307) stream requests: the stream server as clients reach it; "
        "set it to KURIER_PUBLIC_URL when a proxy routes the stream paths (docs/operations.md)",
        _public_url,
    ),
    Setting(
        "KURIER_STREAM_WORKERS",
        "2",
        "gevent worker processes of `kurier streams`",
        _int_between(1, 64),
    ),
    Setting(
        "KURIER_STREAM_CONNECTIONS",
        "1000",
        "Open streams per `kurier streams` process (each holds one Redis connection while it "
        "waits; Redis's maxclients must cover them all)",
        _int_between(10, 100_000),
    ),
    Setting(
        "KURIER_STREAM_HEARTBEAT",
        "15",
        "Seconds between `: ping` comments on an idle stream (proxies' read timeouts must be "
        "longer)",
        _int_between(1, 60),
    ),
    Setting(
        "KURIER_STREAM_LIFETIME",
        "3600",
        "Seconds after which the stream server closes a stream (clients resume with "
        "Last-Event-ID; a revoked token's streams end within a heartbeat)",
        _int_between(10, 86_400),
    ),
    Setting(
        "KURIER_WEB_WORKERS",
        "",
        "gunicorn worker processes; unset: two per CPU core (docs/performance.md)",
        _int_between(1, 64),
    ),
    Setting(
        "KURIER_WEB_NICE",
        "5",
        "CPU niceness of the API and stream server processes: above the workers' 0, so that "
        "under load conflict resolutions and notifications are not starved",
        _int_between(0, 19),
    ),
    Setting(
        "KURIER_KEEPALIVE",
        "60",
        "Seconds an idle kept-alive API connection stays open, as every answer says "
        "(Keep-Alive: timeout=N); the server closes it 5 s later, so that a client heeding it "
        "never meets the close",
        _int_between(1, 3600),
    ),
    Setting(
        "KURIER_WEB_THREADS", "4", "Threads per gunicorn worker (gthread)", _int_between(1, 64)
    ),
    Setting(
        "KURIER_LOG_LEVEL",
        "INFO",
        "Log level of the JSON logs on stderr",
        _one_of("debug", "info", "warning", "error", "critical"),
    ),
    Setting(
        "PROMETHEUS_MULTIPROC_DIR",
        "a new temporary directory",
        "Where gunicorn's processes share metric values (`kurier web` creates and empties it)",
        _writable_dir,
    ),
    Setting(
        "KURIER_RATE_LIMIT",
        "120/minute",
        "Requests per caller (a token's hash, a signed-in browser's player, else the client's "
        "address) over all routes, e.g. `120/minute;2000/hour`; over it: 429 with Retry-After",
        _rate_limit,
    ),
    Setting(
        "KURIER_TRUSTED_PROXIES",
        "",
        "Addresses or networks of the reverse proxies in front of the API, comma-separated "
        "(e.g. `127.0.0.1, 10.0.0.0/8`): only from these is X-Forwarded-For (the client's "
        "address, for the rate limit) and X-Forwarded-Proto believed; unset: from none",
        _trusted_proxies,
    ),
    Setting(
        "KURIER_RATE_LIMIT_HEADERS",
        "",
        "`1`: every response carries `X-RateLimit-Limit`, `-Remaining` and `-Reset` (a second "
        "Redis call per request); unset, only a 429 says when to retry",
        _one_of("", "0", "1", "true", "false", "yes", "no", "on", "off"),
    ),
    Setting(
        "KURIER_SIGNUP_RATE_LIMIT",
        "10/minute;100/hour",
        "`POST /v1/players`, and the pages' `POST /register` and `POST /signin`, per client "
        "address, on top of `KURIER_RATE_LIMIT`",
        _rate_limit,
    ),
    Setting(
        "KURIER_SIGNIN_MAIL_LIMIT",
        "3/hour",
        "Sign-in mails to one address (the pages' sign-in and registration), whoever asks; "
        "over it the page says a link was sent already",
        _rate_limit,
    ),
    Setting(
        "KURIER_SMTP_URL",
        "",
        "Mail relay: `smtp://host:25`, `smtp+starttls://user:pass@host:587` or "
        "`smtps://user:pass@host:465`; unset, mail goes to the maildir `KURIER_OUTBOX`",
        check_smtp_url,
        secret=True,
    ),
    Setting(
        "KURIER_OUTBOX", ".kurier/outbox", "Maildir for outgoing mail without SMTP", _writable_dir
    ),
    Setting("KURIER_MAIL_DOMAIN", "kurier.localhost", "Domain of Message-IDs and the sender"),
    Setting(
        "KURIER_MAIL_KEYS",
        "",
        "Reply-address signing keys `id:base64,…` (first signs, all verify); unset, a random "
        "key kept in Redis",
        _mail_keys,
        secret=True,
    ),
    Setting("KURIER_MAILIN_HOST", "127.0.0.1", "Address `kurier mail-in` (SMTP) listens on"),
    Setting(
        "KURIER_MAILIN_PORT", "2525", "Port `kurier mail-in` listens on", _int_between(1, 65535)
    ),
    Setting(
        "KURIER_MAIL_AUTHSERV_ID",
        "",
        "authserv-id of the relay in front of `kurier mail-in` that checks DKIM/SPF/DMARC and "
        "prepends Authentication-Results; set, a mail plays only with its pass",
    ),
    Setting(
        "KURIER_MAIL_FROM",
        "Kurier <kurier@KURIER_MAIL_DOMAIN>",
        "The From: of outgoing mail",
        _mail_from,
    ),
    Setting(
        "KURIER_PUBLIC_URL",
        "http://KURIER_HOST:KURIER_PORT",
        "The API's address as players reach it: links in mails and webhooks; unset, the "
        "address `kurier run` listens on (127.0.0.1 for 0.0.0.0)",
        _public_url,
    ),
    Setting(
        "KURIER_WEBHOOK_RETRY_SCHEDULE",
        "",
        "Seconds between webhook retries, comma-separated; unset: the built-in schedule",
        _delays,
    ),
    Setting(
        "KURIER_WEBHOOK_TIMEOUT",
        "10",
        "Seconds one webhook attempt may take in all (connect, request, the whole answer); "
        "slower is a failed attempt, retried on the schedule",
        _int_between(1, 60),
    ),
    Setting(
        "KURIER_WEBHOOK_ALLOW",
        "public",
        "Webhook targets allowed: `public` (https, public addresses), `loopback`, `any`",
        _one_of(*webhook_urls.MODES),
    ),
)

BY_NAME: Mapping[str, Setting] = {s.name: s for s in SETTINGS}


def listen_address(
    environ: Mapping[str, str], host: str | None = None, port: int | None = None
) -> tuple[str, int]:
    """Where `kurier web`/`run` listen: the options, else KURIER_HOST and KURIER_PORT.
    Raises Invalid naming the variable when KURIER_PORT is malformed."""
    host = host or environ.get("KURIER_HOST") or DEFAULT_HOST
    return host, port or _port(environ, "KURIER_PORT", DEFAULT_PORT)


def mailin_address(environ: Mapping[str, str]) -> tuple[str, int]:
    """Where `kurier mail-in` listens: KURIER_MAILIN_HOST and KURIER_MAILIN_PORT."""
    host = environ.get("KURIER_MAILIN_HOST") or DEFAULT_HOST
    return host, _port(environ, "KURIER_MAILIN_PORT", DEFAULT_MAILIN_PORT)


def _port(environ: Mapping[str, str], name: str, default: int) -> int:
    value = environ.get(name)
    if not value:
        return default
    finding = _check_one(BY_NAME[name], value)
    if finding.level == "error":
        raise Invalid(f"{name}: {finding.message}")
    return int(value)


def stream_address(environ: Mapping[str, str], port: int | None = None) -> tuple[str, int]:
    """Where `kurier streams` listens: KURIER_HOST, KURIER_STREAM_PORT (default: the API's
    port + 1; ``port`` is the API's port when an option gave it)."""
    host, api_port = listen_address(environ, None, port)
    default = api_port + 1 if api_port < 65535 else api_port - 1
    return host, _port(environ, "KURIER_STREAM_PORT", default)


def stream_url(environ: Mapping[str, str]) -> str:
    """KURIER_STREAM_URL, else the public URL with the stream server's port."""
    if environ.get("KURIER_STREAM_URL"):
        return environ["KURIER_STREAM_URL"].rstrip("/")
    public = urlsplit(public_url(environ))
    try:
        port = stream_address(environ)[1]
    except Invalid:
        port = DEFAULT_PORT + 1
    host = public.hostname or DEFAULT_HOST
    shown = f"[{host}]" if ":" in host else host
    return f"{public.scheme}://{shown}:{port}{public.path.rstrip('/')}"


def url_of(host: str, port: int) -> str:
    """The http URL of a listening address; a wildcard address is reached on loopback."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return f"http://{host}:{port}"  # a name
    if address.is_unspecified:
        address = ipaddress.ip_address("::1" if address.version == 6 else DEFAULT_HOST)
    shown = f"[{address}]" if address.version == 6 else str(address)
    return f"http://{shown}:{port}"


def outbox_path(environ: Mapping[str, str]) -> Path:
    """The maildir mail goes to without a relay (KURIER_OUTBOX), as an absolute path."""
    return Path(environ.get("KURIER_OUTBOX") or BY_NAME["KURIER_OUTBOX"].default).resolve()


def local_outbox(environ: Mapping[str, str]) -> Path | None:
    """Where mail goes in the local default (no KURIER_SMTP_URL): the outbox's ``new`` folder,
    for people to look; None when a relay sends it."""
    return None if environ.get("KURIER_SMTP_URL") else outbox_path(environ) / "new"


def public_url(environ: Mapping[str, str]) -> str:
    """KURIER_PUBLIC_URL, else the address `kurier web`/`run` listen on with this environment."""
    if environ.get("KURIER_PUBLIC_URL"):
        return environ["KURIER_PUBLIC_URL"].rstrip("/")
    try:
        return url_of(*listen_address(environ))
    except Invalid:  # `config check` says what is wrong with KURIER_PORT
        return url_of(DEFAULT_HOST, DEFAULT_PORT)


def check(environ: Mapping[str, str]) -> list[Finding]:
    """Check every setting present in `environ`, and what the unset ones will mean."""
    findings = []
    for setting in SETTINGS:
        value = environ.get(setting.name)
        if value:
            findings.append(_check_one(setting, value))
        elif setting.if_unset:
            findings.append(setting.if_unset(environ))
        else:
            findings.append(Finding(setting.name, "ok", f"default: {setting.default}"))
    return findings


def _check_one(setting: Setting, value: str) -> Finding:
    shown = "set" if setting.secret else repr(value)
    try:
        warning = setting.check(value) if setting.check else None
    except Invalid as error:
        return Finding(setting.name, "error", f"{shown}: {error}")
    return _judged(setting.name, shown, warning)


def _judged(name: str, shown: str, said: str | None) -> Finding:
    """What a check said of a setting: an ``Info`` is all well (a str too, so test it first),
    any other text a warning."""
    if isinstance(said, Info):
        return Finding(name, "ok", f"{shown}: {said}")
    if said:
        return Finding(name, "warning", f"{shown}: {said}")
    return Finding(name, "ok", shown)
