"""A player at the table gets no mail of the game (service/domain/presence.py), in a real
Chromium on a whole notification stack (Redis, the API, the workers, an SMTP sink, a webhook
receiver): while their page is open and visible, the other player's moves mail them nothing
(each notice's webhook still arrives); once they hide or close the page, what still asks
them to act is mailed once, after the grace period; "mail me anyway" mails every notice.
Short beats and grace through the configuration; every wait is bounded on a condition."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from service.store import owed
from service.store.keys import mailbag_key, presence_key
from service.store.queues import NOTIFY_JOB
from tests.client import Player
from tests.notify_stack import NotifyStack, webhook_stack
from tests.receivers import HookSink, wait_for

GRACE = 3.0
BEAT = 1.0
SETTINGS = {
    "KURIER_PRESENCE_GRACE_SECONDS": str(int(GRACE)),
    "KURIER_PRESENCE_BEAT_SECONDS": str(int(BEAT)),
}
#: Makes the page hidden, as a switched tab or a minimised window is (a headless page never is).
HIDE = """() => {
  Object.defineProperty(Document.prototype, "visibilityState", { get: () => "hidden" });
  document.dispatchEvent(new Event("visibilitychange"));
}"""


@pytest.fixture(scope="module")
def stack() -> Iterator[NotifyStack]:
    with pytest.MonkeyPatch.context() as mp:
        for name, value in SETTINGS.items():
            mp.setenv(name, value)  # the API in this process: the page's beat
        with webhook_stack(env=SETTINGS) as s:
            yield s


@pytest.fixture
def hooks() -> Iterator[HookSink]:
    sink = HookSink().start()
    yield sink
    sink.stop()


def _at_the_table(browser: Any, stack: NotifyStack, player: Player, game_id: str) -> Any:
    """The player's page of the game, signed in by token, once the server has their mark."""
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.goto(stack.base + "/")
    page.locator("form[action='/signin/token'] input[name=token]").fill(player.token)
    page.locator("form[action='/signin/token'] button").click()
    page.wait_for_selector("text=Your games")
    page.goto(f"{stack.base}/games/{game_id}")
    assert stack.store is not None
    key = presence_key(game_id, player.id)
    wait_for(lambda: stack.store.queue_r.get(key) == "here", 10, "the page's mark")
    return page


def _decisions(stack: NotifyStack, game_id: str) -> list[dict[str, Any]]:
    """What the game waits for; a resolution under way (nothing asked yet) is waited out."""
    return wait_for(
        lambda: [d for d in stack.client.view(game_id)["waiting_for"] if d["seat"] >= 0],
        20,
        "a decision",
    )


def _move(stack: NotifyStack, game_id: str, player: Player) -> None:
    k = stack.client
    legal = k.call("GET", f"/v1/games/{game_id}/legal-actions", player).json()["actions"]
    r = k.call(
        "POST", f"/v1/games/{game_id}/actions", player, json={"notation": legal[0]["notation"]}
    )
    assert r.status_code in (200, 202), r.text  # 202: a sealed choice


def _notified(stack: NotifyStack) -> None:
    """Every notice's job has run (its mail sent or put in a bag, its webhook started)."""
    assert stack.store is not None
    raw = stack.store.queue_raw
    wait_for(lambda: not owed.owed_jobs(raw, NOTIFY_JOB), 20, "the notices' jobs")


def _play_until_turn_of(stack: NotifyStack, game_id: str, seated: list[Player], seat: int) -> int:
    """Moves and choices (the first seat's too: a conflict's cards) until the game waits for
    ``seat`` to move; the version then, once its notices' jobs have run."""
    for _ in range(30):
        decisions = _decisions(stack, game_id)
        if any(d["seat"] == seat and d["kind"] == "move" for d in decisions):
            _notified(stack)
            return int(stack.client.view(game_id)["version"])
        _move(stack, game_id, seated[decisions[0]["seat"]])
    raise AssertionError("the turn never came")


def _play_out_turn_of(stack: NotifyStack, game_id: str, player: Player, seat: int) -> None:
    for _ in range(6):
        if not any(d["seat"] == seat and d["kind"] == "move" for d in _decisions(stack, game_id)):
            return
        _move(stack, game_id, player)
    raise AssertionError("the turn never ended")


def _turn_hooks(hooks: HookSink) -> list[int]:
    """The versions of the turn webhooks received."""
    bodies = [json.loads(call.body) for call in hooks.calls]
    return [b["data"]["version"] for b in bodies if b["type"] == "game.turn_started"]


def _game_of_two(stack: NotifyStack, hooks: HookSink, tag: str, **prefs: Any) -> Any:
    """A started game of two: the first player (a webhook, ``prefs``) is the one at the table."""
    table, _ = stack.player(
        f"Table{tag}", email=f"table-{tag}@mail.test", webhook_url=hooks.url, **prefs
    )
    other, _ = stack.player(f"Other{tag}", email=f"other-{tag}@mail.test")
    seated = [table, other]
    game_id = stack.game(seated, seed=f"presence-{tag}")
    # The game's first notices were mailed before anyone sat down at the table.
    _notified(stack)
    wait_for(lambda: stack.smtp.to(f"table-{tag}@mail.test"), 20, "the first mails")
    return game_id, seated


def _turns_at_the_table(
    stack: NotifyStack, game_id: str, seated: list[Player], rounds: int, mails: Any = None
) -> int:
    """``rounds`` of the first seat playing its turn out, if it has one, through the API and
    the other player moving until it is the first seat's turn again; the last turn's version.
    ``mails(round)``, if given, is called as each turn has come."""
    version = 0
    for round_ in range(rounds):
        _play_out_turn_of(stack, game_id, seated[0], 0)
        version = _play_until_turn_of(stack, game_id, seated, 0)
        if mails is not None:
            mails(round_)
    return version


def test_no_mail_at_the_table_and_one_after_leaving_it(
    browser: Any, stack: NotifyStack, hooks: HookSink
) -> None:
    game_id, seated = _game_of_two(stack, hooks, "hide")
    address = "table-hide@mail.test"
    page = _at_the_table(browser, stack, seated[0], game_id)
    before = len(stack.smtp.to(address))
    hooked = len(_turn_hooks(hooks))
    version = _turns_at_the_table(stack, game_id, seated, rounds=3)
    assert len(_turn_hooks(hooks)) >= hooked + 2  # webhooks at the table as ever
    assert len(stack.smtp.to(address)) == before  # and not one mail
    assert stack.store is not None
    assert stack.store.queue_r.xlen(mailbag_key(game_id, 0)) >= 2  # they wait

    left = time.monotonic()
    page.evaluate(HIDE)
    wait_for(lambda: len(stack.smtp.to(address)) > before, GRACE + 15, "the mail after leaving")
    waited = time.monotonic() - left
    assert waited >= GRACE - 0.5, f"mailed {waited:.1f} s after leaving: within the grace"
    # One mail, of the turn still owed: nothing of the turns played out at the table.
    wait_for(lambda: stack.store.queue_r.xlen(mailbag_key(game_id, 0)) == 0, 10, "the bag emptied")
    mails = stack.smtp.to(address)[before:]
    assert len(mails) == 1
    assert mails[0]["X-Kurier-Version"] == str(version)
    page.context.close()


def test_closing_the_page_mails_the_turn_after_the_grace_period(
    browser: Any, stack: NotifyStack, hooks: HookSink
) -> None:
    game_id, seated = _game_of_two(stack, hooks, "close")
    address = "table-close@mail.test"
    page = _at_the_table(browser, stack, seated[0], game_id)
    before = len(stack.smtp.to(address))
    _turns_at_the_table(stack, game_id, seated, rounds=1)
    assert len(stack.smtp.to(address)) == before
    assert stack.store is not None
    key = presence_key(game_id, seated[0].id)
    left = time.monotonic()
    page.close()  # its beacon says it left
    wait_for(lambda: stack.store.queue_r.get(key) == "left", 5, "the page's word that it left")
    wait_for(lambda: len(stack.smtp.to(address)) > before, GRACE + 15, "the mail after leaving")
    assert time.monotonic() - left >= GRACE - 0.5
    assert len(stack.smtp.to(address)) == before + 1


def test_mail_me_anyway_mails_every_turn_at_the_table(
    browser: Any, stack: NotifyStack, hooks: HookSink
) -> None:
    game_id, seated = _game_of_two(stack, hooks, "anyway", mail_at_table=True)
    address = "table-anyway@mail.test"
    page = _at_the_table(browser, stack, seated[0], game_id)
    counts = [len(stack.smtp.to(address))]

    def mailed(round_: int) -> None:
        wait_for(lambda: len(stack.smtp.to(address)) > counts[-1], 20, "the turn's mail")
        counts.append(len(stack.smtp.to(address)))

    _turns_at_the_table(stack, game_id, seated, rounds=2, mails=mailed)
    assert len(counts) == 3
    assert stack.store is not None
    assert stack.store.queue_r.get(presence_key(game_id, seated[0].id)) == "here"
    page.context.close()


def test_only_a_seated_player_is_marked(browser: Any, stack: NotifyStack, hooks: HookSink) -> None:
    """A signed-in player without a seat may post the page's word: 204, nothing marked; a
    post without the session's CSRF token is refused."""
    game_id, _seated = _game_of_two(stack, hooks, "guest")
    guest, _ = stack.player("Guest", email="guest@mail.test")
    page = browser.new_context().new_page()
    page.goto(stack.base + "/")
    page.locator("form[action='/signin/token'] input[name=token]").fill(guest.token)
    page.locator("form[action='/signin/token'] button").click()
    page.wait_for_selector("text=Your games")
    page.goto(f"{stack.base}/games/{game_id}")
    assert page.locator("[data-presence]").count() == 0  # a spectator's page says nothing
    post = """async ([url, csrf]) => {
      const body = new FormData(); body.append("state", "visible");
      if (csrf) { body.append("csrf", document.querySelector("input[name=csrf]").value); }
      return (await fetch(url, { method: "POST", body })).status;
    }"""
    url = f"/games/{game_id}/presence"
    assert page.evaluate(post, [url, True]) == 204
    assert page.evaluate(post, [url, False]) == 403
    assert stack.store is not None
    assert stack.store.queue_r.get(presence_key(game_id, guest.id)) is None
    page.context.close()


def test_the_settings_page_sets_mail_me_anyway(browser: Any, stack: NotifyStack) -> None:
    """The box on the settings page sets and clears the preference ``PATCH /v1/me`` sets,
    and says it in German to a German player."""
    player, _ = stack.player("Boxed", email="boxed@mail.test")
    page = browser.new_context().new_page()
    page.goto(stack.base + "/")
    page.locator("form[action='/signin/token'] input[name=token]").fill(player.token)
    page.locator("form[action='/signin/token'] button").click()
    page.wait_for_selector("text=Your games")

    def chosen() -> bool:
        me = stack.client.call("GET", "/v1/me", player).json()
        return bool(me["mail_at_table"])

    box = "input[type=checkbox][name=mail_at_table]"
    for wanted in (True, False):
        page.goto(stack.base + "/settings")
        assert page.is_checked(box) is not wanted
        page.set_checked(box, wanted)
        page.locator("form[action='/settings'] button").click()
        page.wait_for_selector("text=Saved.")
        assert chosen() is wanted
    r = stack.client.call("PATCH", "/v1/me", player, json={"mail_at_table": "yes"})
    assert r.status_code == 422 and not chosen()
    stack.client.call("PATCH", "/v1/me", player, json={"language": "de"})
    page.goto(stack.base + "/settings")
    assert page.locator("text=Schick mir trotzdem Mails").count() == 1
    page.context.close()
