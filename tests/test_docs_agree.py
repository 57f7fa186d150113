"""Docs that said other than what happens (issue 36, item 14): each claim here is checked
against behaviour elsewhere (named), and these tests keep the words from drifting back."""

from __future__ import annotations

import re

from tests.conftest import ROOT

OPERATIONS = (ROOT / "docs" / "operations.md").read_text()
API = (ROOT / "docs" / "api.md").read_text()


def test_resign_by_mail_is_documented_as_it_plays() -> None:
    """tests/test_mail_play.py (test_say_talks_and_resign_leaves_by_mail): a mailed `resign`
    takes the seat out. operations.md said it was not supported."""
    assert not re.search(r"`resign`[^.]*not supported", OPERATIONS)
    assert "A `resign` line resigns" in OPERATIONS


def test_the_talk_after_a_handover_is_documented_as_it_happens() -> None:
    """tests/test_messages.py (test_who_reads_what_after_a_seat_changes_hands). api.md said
    private messages "stay with the two people who exchanged them": the former player reads
    them no more."""
    assert "stay with the two people who\n  exchanged them" not in API
    section = API[API.index("**Messages after a handover:**") :]
    assert "no longer reads it" in section and "does not read the predecessor's" in section


def test_health_has_a_word_for_each_state() -> None:
    """tests/test_service_players.py (the healthz tests): 200 `degraded`, 503 `unavailable`."""
    rows = dict(re.findall(r"^\| `(\w+)` \| (\d{3}) \|", OPERATIONS, re.MULTILINE))
    assert rows == {"ok": "200", "degraded": "200", "unavailable": "503"}
