"""Which invitations a new game owes (service/domain/invites.py), with a real Redis: the game's
creating commit owes one ``game.invited`` job per invited player some channel reaches, none
for the creator, none for a player who turned the kind off, and nothing on later changes."""

from __future__ import annotations

from service.domain import invites, prefs, rematch
from service.domain.games import lifecycle, play
from service.store import Store, owed
from service.store.queues import INVITE_NOTIFY_JOB


def _owed_invites(store: Store, game_id: str) -> set[str]:
    jobs = owed.owed_jobs(store.queue_raw, INVITE_NOTIFY_JOB)
    return {job.args[1] for job in jobs if job.args[0] == game_id}


def test_the_creating_commit_owes_one_notice_per_reachable_invited_player(store: Store) -> None:
    ann = store.players.create("Ann", "ann@mail.test")[0]
    bea = store.players.create("Bea", "bea@mail.test")[0]
    cid = store.players.create("Cid", "cid@mail.test")[0]
    dot = store.players.create("Dot", None)[0]  # no address, no webhook: nothing reaches her
    prefs.apply(store, cid["id"], {"notify": {invites.INVITED: []}})
    invited = [bea["id"], cid["id"], dot["id"], ann["id"]]
    made = lifecycle.create_game(store, ann, "attila", None, None, 5, invited=invited).body
    assert _owed_invites(store, made["id"]) == {bea["id"]}
    job = invites.job(made["id"], bea["id"])
    assert job.id == f"inv-{made['id']}-{bea['id']}" and job.func == INVITE_NOTIFY_JOB
    # A later change of the game owes none again (the job, if run, was once).
    owed.settle(store.queue_raw, job.id)
    lifecycle.join_game(store, bea, made["id"], None)
    assert _owed_invites(store, made["id"]) == set()


def test_a_rematch_owes_the_other_players_theirs(store: Store) -> None:
    ann = store.players.create("Ann", "ann@mail.test")[0]
    bob = store.players.create("Bob", "bob@mail.test")[0]
    made = lifecycle.create_game(store, ann, "attika", None, None, 2).body
    lifecycle.join_game(store, bob, made["id"], made["invite_code"])
    lifecycle.start_game(store, ann, made["id"])
    play.play(store, bob, made["id"], None, {"type": "resign"}, None, None, None)
    new = rematch.rematch(store, ann, made["id"]).body["id"]
    assert _owed_invites(store, new) == {bob["id"]}
    notice = invites.invitation(store, store.get_game(new))
    assert notice["rematch_of"] == made["id"] and notice["invited_by"]["name"] == "Ann"
    assert "invite" not in notice  # never the code
