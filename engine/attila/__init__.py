"""Attila (Hans im Glück, 2000): the rules engine. ``GAME`` is the engine instance."""
