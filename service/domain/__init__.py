"""Layer 3, service functions: what a request changes and what a caller may see.

Each function takes a ``Store`` and plain values and returns plain values or raises a
``Problem``. The HTTP resources, the web pages, the mail receiver's jobs and the workers all
call these same functions: there is no second path to the store. Imports the store, the
foundations and the engine, never an adapter (tests/test_architecture.py).
"""
