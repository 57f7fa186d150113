"""Attika (Hans im Glück, 2003): the rules engine. ``GAME`` is the engine instance."""
