"""A tournament's round start told by mail and webhook (workers/tournaments.py): real SMTP,
a webhook receiver on loopback, the real workers; each entrant once, in their language, with
their game or their bye; nobody who asked for neither."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest

from service.domain import tournaments
from tests.notify_stack import NotifyStack, shared_stack
from tests.receivers import HookSink, wait_for


@pytest.fixture(scope="module")
def stack(notify_stack: NotifyStack) -> Iterator[NotifyStack]:
    with shared_stack(notify_stack) as s:
        yield s


@pytest.fixture
def hooks() -> Iterator[HookSink]:
    sink = HookSink().start()
    yield sink
    sink.stop()


def test_round_start_by_mail_and_webhook(stack: NotifyStack, hooks: HookSink) -> None:
    k = stack.client
    ana, _ = stack.player("Ana", email="ana@mail.test", webhook_url=hooks.url)
    ben, _ = stack.player("Ben", email="ben@mail.test", language="de")
    cy, _ = stack.player("Cy", email="cy@mail.test")
    quiet, _ = stack.player("Dee", email="dee@mail.test", notify={"tournament.round_started": []})
    eve, _ = stack.player("Eve", email="eve@mail.test")
    body = {"name": "Spring cup", "type": "attila", "seats": 2, "format": "round_robin"}
    r = k.call("POST", "/v1/tournaments", ana, json=body)
    assert r.status_code == 201, r.text
    tid = r.json()["id"]
    for p in (ana, ben, cy, quiet, eve):
        assert k.call("POST", f"/v1/tournaments/{tid}/entrants", p).status_code == 200
    r = k.call("POST", f"/v1/tournaments/{tid}/start", ana)
    assert r.status_code == 200, r.text
    first = r.json()["played_rounds"][0]
    [bye] = first["byes"]

    def round_mail(address: str) -> list[object]:
        return [m for m in stack.smtp.to(address) if "Spring cup" in str(m["Subject"])]

    by_id = {p.id: f"{p.name.lower()}@mail.test" for p in (ana, ben, cy, quiet, eve)}
    for player_id, address in by_id.items():
        if player_id != quiet.id:
            wait_for(lambda a=address: round_mail(a), 30, f"the round mail to {address}")
    assert stack.store is not None
    notice = tournaments.round_notice(stack.store, tid, 1, bye["id"])
    assert notice["game_id"] is None and notice["opponents"] == []
    if bye["id"] != quiet.id:  # the seeding is drawn: Dee, who hears nothing, may have it
        [bye_mail] = round_mail(by_id[bye["id"]])
        text = bye_mail.get_body(("plain",)).get_content()
        assert "bye" in text or "spielfrei" in text
    [german] = round_mail("ben@mail.test")
    assert "Runde 1" in str(german["Subject"])
    for table in first["tables"]:
        for player in table["players"]:
            if player["id"] == quiet.id:
                continue
            [mail] = round_mail(by_id[player["id"]])
            content = mail.get_body(("plain",)).get_content()
            assert f"/games/{table['game_id']}" in content
    hook = wait_for(
        lambda: [
            json.loads(c.body)
            for c in hooks.calls
            if json.loads(c.body)["type"] == "tournament.round_started"
        ],
        30,
        "the round webhook",
    )[0]
    assert hook["data"]["tournament_id"] == tid and hook["data"]["round"] == 1
    assert "ana@mail.test" not in json.dumps(hook)
    time.sleep(1)  # Dee's job ran with the others': it sends nothing
    assert not round_mail("dee@mail.test")
