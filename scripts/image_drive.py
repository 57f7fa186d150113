"""Drive the roles of a built image from outside (scripts/image-check): the API answers
/healthz 200, a game is created and moved, the worker resolves a conflict, and mail-in accepts a
reply to a mailed notice. Standard library only (the host's Python runs it).

Usage: python scripts/image_drive.py API_URL MAILIN_PORT OUTBOX_DIR
"""

from __future__ import annotations

import email
import email.policy
import json
import smtplib
import sys
import time
import urllib.error
import urllib.request
from email.message import EmailMessage
from pathlib import Path
from typing import Any

BOUND = 120.0


def call(base: str, method: str, path: str, token: str = "", body: Any = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def wait_for(what: str, check: Any) -> Any:
    deadline = time.monotonic() + BOUND
    while True:
        try:
            found = check()
        except OSError:
            found = None
        if found:
            return found
        if time.monotonic() > deadline:
            raise SystemExit(f"image-check: no {what} within {BOUND:.0f} s")
        time.sleep(0.5)


def main(base: str, mailin_port: int, outbox: Path) -> None:
    wait_for("/healthz 200", lambda: call(base, "GET", "/healthz")[0] == 200)
    print("image-check: /healthz 200")
    players = []
    for name in ("Ada", "Bo"):
        status, made = call(
            base, "POST", "/v1/players", body={"name": name, "email": f"{name.lower()}@image.test"}
        )
        assert status == 201, made
        players.append(made)
    status, game = call(
        base, "POST", "/v1/games", players[0]["token"], {"type": "attila", "seats": 2}
    )
    assert status == 201, game
    gid = game["id"]
    status, _ = call(
        base,
        "POST",
        f"/v1/games/{gid}/seats",
        players[1]["token"],
        {"invite_code": game["invite_code"]},
    )
    assert status == 201
    assert call(base, "POST", f"/v1/games/{gid}/start", players[0]["token"])[0] == 200
    moves = resolved = 0
    deadline = time.monotonic() + BOUND
    while not resolved:
        assert time.monotonic() < deadline, "image-check: no resolution by the worker"
        _, view = call(base, "GET", f"/v1/games/{gid}")
        humans = [d for d in view["waiting_for"] if d["seat"] >= 0]
        if view["status"] != "active":
            break
        if not humans:
            time.sleep(0.2)  # the worker owes a resolution
        else:
            mover = players[humans[0]["seat"]]
            _, legal = call(base, "GET", f"/v1/games/{gid}/legal-actions", mover["token"])
            body = {"notation": legal["actions"][0]["notation"]}
            status, _ = call(base, "POST", f"/v1/games/{gid}/actions", mover["token"], body)
            assert status in (200, 202), status
            moves += 1
        _, log = call(base, "GET", f"/v1/games/{gid}/events?limit=500")
        resolved = sum(1 for entry in log["items"] if entry["kind"] == "resolve")
    print(f"image-check: {moves} moves, {resolved} resolution(s) by the worker")

    def a_notice() -> EmailMessage | None:
        for file in sorted((outbox / "new").glob("*")) if (outbox / "new").exists() else []:
            parsed = email.message_from_bytes(file.read_bytes(), policy=email.policy.default)
            if parsed["Reply-To"] and isinstance(parsed, EmailMessage):
                return parsed
        return None

    notice = wait_for("mailed notice with a reply address", a_notice)
    reply = EmailMessage()
    reply["From"] = str(notice["To"])
    reply["To"] = str(notice["Reply-To"])
    reply["Subject"] = "Re: " + str(notice["Subject"])
    reply["In-Reply-To"] = str(notice["Message-ID"])
    reply.set_content("legal\n")
    with smtplib.SMTP("127.0.0.1", mailin_port, timeout=30) as smtp:
        refused = smtp.send_message(reply)
    assert not refused, refused
    print("image-check: mail-in accepted a reply")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), Path(sys.argv[3]))
