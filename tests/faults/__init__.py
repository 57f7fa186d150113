"""Fault tests: real processes on loopback, each bounded in count and time."""
