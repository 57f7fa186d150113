"""Game operations, generic over game types through ``engine.registry``: a game's lifecycle
(lifecycle.py: create, join, start, the lobby), play (play.py: moves, sealed choices,
resolutions, timeouts, and the one write path every change takes) and what each caller may
see of a game (views.py: the caller's view, legal actions, redacted log entries, the record).

Secrets and who may see them:
- the engine state: only through ``Game.view(state, seat)``;
- the seed: its SHA-256 from creation on, the seed itself once the game is over;
- a sealed choice: its commitment at once; the choice and salt to its author, and to everyone in
  the reveal that the resolution appends;
- the invite code: to the creator only.
"""
