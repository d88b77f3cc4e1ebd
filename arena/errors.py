"""Errors of the harness itself (not of bots): shown as one clear line, exit code 2."""


class UsageError(Exception):
    """A usage or configuration error: what is wrong, where, and what to do, in one line."""
