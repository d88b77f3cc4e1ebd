"""The league's entries and submission states as types.

An **entry** of the league's tables (`games.side_a`, `leases.side_b`, ...) is either a submitted
version, stored as ``sub:<id>``, or a reference bot, stored as its SPEC (``players.L0``). The
text form stays what league.sqlite has always held; the code reads and writes it only through
`submission_key` and `submission_of`.

A submission's **state** (`submissions.status`) is one of `Status`; its values are the texts
stored in the table, so a league folder of any age reads as it is.
"""

from __future__ import annotations

from enum import Enum
from typing import NewType

__all__ = ["CURRENT", "PASSED", "EntryKey", "Status", "is_submission", "submission_key",
           "submission_of"]

#: an entry as the league's tables name it: ``sub:<id>`` or a reference bot's SPEC
EntryKey = NewType("EntryKey", str)

_PREFIX = "sub:"


def submission_key(submission_id: int) -> EntryKey:
    """The entry of submitted version `submission_id`: ``sub:<id>``."""
    return EntryKey(f"{_PREFIX}{int(submission_id)}")


def submission_of(key: str) -> int | None:
    """The submission id of entry `key`, or None for a reference bot (or any other text)."""
    if not key.startswith(_PREFIX):
        return None
    digits = key[len(_PREFIX):]
    # ASCII digits only: int() also reads other scripts' digits, whose key is not this text
    return int(digits) if digits.isascii() and digits.isdigit() else None


def is_submission(key: str) -> bool:
    """Whether entry `key` is a submitted version (not a reference bot)."""
    return submission_of(key) is not None


class Status(str, Enum):
    """A submission's state, as `submissions.status` stores it."""

    QUEUED = "queued"  # uploaded, its check not started
    CHECKING = "checking"  # its check is running
    FAILED = "failed"  # its check failed: never played
    RATING = "rating"  # passed its check: plays rating games while it is its user's latest
    ACTIVE = "active"  # an older league's word for RATING, still read as it
    SUPERSEDED = "superseded"  # an older league's mark of a replaced version, still read
    DISABLED = "disabled"  # taken out by the teacher (`League.disable`; undo restores it)

    def __str__(self) -> str:
        return self.value


#: the states of a version that plays rating games (its user's current version)
CURRENT = (Status.RATING, Status.ACTIVE)
#: the states of a version that passed its check (current, or replaced since)
PASSED = (*CURRENT, Status.SUPERSEDED)
