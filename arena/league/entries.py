"""The league's entries and submission states as types.

An **entry** of the league's tables (`games.side_a`, `leases.side_b`, ...) is either a submitted
version, stored as ``sub:<id>``, or a reference bot, stored as its SPEC (``players.L0``). The
text form stays what league.sqlite has always held; the code reads and writes it only through
`submission_key` and `submission_of`.

A submission's **state** (`submissions.status`) is one of `Status`; its values are the texts
stored in the table, so a league folder of any age reads as it is.

A student's **entry in the final** (`entry_of`, `league_entries`) is the version they chose
among their passed ones (`choose_entry`, kept in league.sqlite's `entry_choices`), as Kaggle
lets entrants choose, while it is still passed and not disabled; else their latest passed
version. Either was uploaded before their cut (`League.cut_of`: the deadline, their extension,
or the admin's Freeze). A student chooses until their cut; the teacher (`cxarena league entry`)
until the final starts.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, NewType

#: a league (`arena.league.db.League`) and one of its versions (`Submission`): db.py imports
#: this module, so they are named here, not imported
League = Any
Submission = Any

__all__ = ["CURRENT", "PASSED", "Entry", "EntryKey", "EntryRefused", "Status", "choose_entry",
           "entry_of", "format_time", "is_submission", "league_entries", "pick_entry",
           "submission_key", "submission_of"]

#: an entry as the league's tables name it: ``sub:<id>`` or a reference bot's SPEC
EntryKey = NewType("EntryKey", str)

_PREFIX = "sub:"


def format_time(ts: float, day: bool = True) -> str:
    """A time as the deadline is shown: the server's local time, with its zone; without the
    day when `day` is false ("14:05 UTC")."""
    return time.strftime("%Y-%m-%d %H:%M %Z" if day else "%H:%M %Z", time.localtime(ts))


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


@dataclass(frozen=True)
class Entry:
    """A student's entry in the final, and why it is that version."""

    user: str
    submission_id: int
    version: int
    #: the version its author (or the teacher) chose; False: their latest passed version
    chosen: bool
    #: the chosen version when it cannot enter ("v3"), and why ("was disabled by the teacher")
    dropped: str = ""
    dropped_why: str = ""

    def text(self) -> str:
        """"v3 (chosen)" or "v4 (latest passed)"."""
        return f"v{self.version} ({'chosen' if self.chosen else 'latest passed'})"

    def note(self) -> str:
        """Why the chosen version is not the entry ("" when it is, or none was chosen)."""
        if not self.dropped:
            return ""
        return (f"your choice, {self.dropped}, {self.dropped_why}: your latest passed "
                f"version enters instead")


class EntryRefused(ValueError):
    """A choice of final entry that cannot be made (another's version, not passed, after the
    cut, the final started), with the reason in words."""


def pick_entry(versions: Sequence[Submission], chosen: int | None,
               cut: float | None) -> Entry | None:
    """The entry among one student's `versions` (by id): the `chosen` one (a submission id)
    if it passed its check, is not disabled and was uploaded before `cut` (None: no cut yet);
    else the latest such version that passed (`CURRENT`); None when none passed."""
    before = [s for s in versions if cut is None or s.created_at <= cut]
    pick = next((s for s in before if s.id == chosen and s.status in PASSED), None)
    if pick is not None:
        return Entry(pick.user, pick.id, pick.version, True)
    latest = next((s for s in reversed(before) if s.status in CURRENT), None)
    if latest is None:
        return None
    gone = next((s for s in versions if s.id == chosen), None)
    why = ("was disabled by the teacher" if gone is not None and gone.status is Status.DISABLED
           else "cannot enter the final")
    return Entry(latest.user, latest.id, latest.version, False,
                 f"v{gone.version}" if gone is not None else "", why if gone else "")


def entry_of(league: League, user: str) -> Entry | None:
    """`user`'s entry in the final as it stands (`pick_entry` over their versions, their
    choice and their cut); None when none of their versions passed."""
    return pick_entry(league.submissions(user), league.entry_choice(user), league.cut_of(user))


def league_entries(league: League) -> list[Entry]:
    """The entry of every user not disabled who has one, by user name."""
    out = []
    for user in league.users():
        if not user.disabled:
            entry = entry_of(league, user.name)
            if entry is not None:
                out.append(entry)
    return out


def choose_entry(league: League, user: str, version: int, by: str,
                 after_cut: bool = False) -> Entry:
    """Make `user`'s version number `version` their entry in the final (chosen by `by`):
    it must have passed its check and not be disabled, and `user`'s cut (`League.cut_of`)
    must not have passed (`after_cut`: the teacher may, until the final starts). Returns the
    entry now; EntryRefused with the reason, and nothing changed, otherwise."""

    with league.write_lock():  # the checks and the choice: one transaction
        sub = next((s for s in league.submissions(user) if s.version == version), None)
        if sub is None:
            raise EntryRefused(f"{user} has no version {version}")
        if league.final_started():
            raise EntryRefused("the final round robin has started: its entries are fixed")
        cut = league.cut_of(user)
        if cut is not None and not after_cut:
            now = entry_of(league, user)
            raise EntryRefused(
                f"the final's entries were fixed at {format_time(cut)} (your deadline, or "
                f"the league's freeze): your entry can no longer change"
                + (f"; it is {now.text()}" if now is not None else ""))
        if cut is not None and sub.created_at > cut:
            raise EntryRefused(f"v{version} was uploaded after {user}'s cut "
                               f"({format_time(cut)}): it cannot enter the final")
        if sub.status is Status.DISABLED:
            raise EntryRefused(f"v{version} was disabled by the teacher: it cannot enter "
                               f"the final")
        if sub.status not in PASSED:
            raise EntryRefused(f"v{version} has not passed its check ({sub.status}): only a "
                               f"version that passed can enter the final")
        league.store_entry_choice(user, sub.id, by)
    entry = entry_of(league, user)
    assert entry is not None  # the chosen version passed
    return entry
