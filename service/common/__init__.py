"""Layer 1, foundations: what every layer above may use and that reaches no Redis or HTTP.

Problems (RFC 9457), logs, languages, reading numbers, small caches, the secrets of sealed
choices, reply addresses and their signatures, the rules for webhook URLs. Imports only the
engine and itself (tests/test_architecture.py).
"""
