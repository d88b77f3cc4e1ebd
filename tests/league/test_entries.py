"""`arena.league.entries`: a submission's entry key reads back as its id, a reference bot's SPEC
(or any other text) as no submission, and no text makes the parser fail."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.league.entries import (
    CURRENT,
    PASSED,
    Status,
    is_submission,
    submission_key,
    submission_of,
)


@given(st.integers(min_value=0, max_value=2**63))
def test_a_submission_key_reads_back_as_its_id(sid: int) -> None:
    key = submission_key(sid)
    assert key == f"sub:{sid}"  # the text league.sqlite has always held
    assert submission_of(key) == sid
    assert is_submission(key)


@pytest.mark.parametrize("spec", ["players.L0", "players/L1.py", "L0", "connectx.schillaci.Bot",
                                  "sub:", "sub:abc", "sub:-3", "sub:1.5", "sub: 7", "Sub:7",
                                  "xsub:7", "sub:٣", "sub:²", ""])
def test_a_reference_bot_or_other_text_is_no_submission(spec: str) -> None:
    assert submission_of(spec) is None
    assert not is_submission(spec)


@given(st.text())
def test_any_text_is_read_without_failing(text: str) -> None:
    for key in (text, "sub:" + text):
        sid = submission_of(key)
        assert sid is None or (sid >= 0 and is_submission(key))


@given(st.text(alphabet="0123456789", min_size=1))
def test_ascii_digits_after_the_prefix_are_the_id(digits: str) -> None:
    assert submission_of("sub:" + digits) == int(digits)


def test_the_states_are_the_stored_texts() -> None:
    assert [s.value for s in Status] == ["queued", "checking", "failed", "rating", "active",
                                         "superseded", "disabled"]
    assert Status("rating") is Status.RATING and str(Status.RATING) == "rating"
    assert f"{Status.DISABLED}" == "disabled" and Status.QUEUED == "queued"
    assert set(CURRENT) < set(PASSED) and Status.SUPERSEDED in PASSED
    assert not {Status.QUEUED, Status.CHECKING, Status.FAILED, Status.DISABLED} & set(PASSED)
