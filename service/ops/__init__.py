"""Layer 3, operations: the settings and their check, metrics, archives, and the operator
commands of ``kurier`` (``web``, ``config check``, ``verify``, ``archive``...). Beside the
service functions; imports them, the store and the foundations, never an adapter."""
