"""A student's versions: the upload (400 refused, 429 past the daily quota, 413 past the disk
quota, 507 on a full disk; the submit page says how many uploads are left today), a version's
check, games and result against the previous version (its author's and the admins' only), its
download; the choice of the version that enters the final (its author only, until their
deadline: 403 for another's version, 409 refused with the reason); the admin's disable and
enable of one."""

from __future__ import annotations

import io
import zipfile
from dataclasses import asdict
from typing import Any

from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from arena.league import League, Submission, UploadError
from arena.league.checks import student_text, tree_of
from arena.league.db import (
    DiskFull,
    DiskQuotaExceeded,
    QuotaExceeded,
    check_file_name,
    format_time,
    uploads_left_text,
)
from arena.league.entries import PASSED, EntryRefused, choose_entry, entry_of
from arena.league.final import entries, started_entries
from arena.league.rating import versus_previous
from arena.league.standings import games_of
from arena.league.web.common import admin_only, db, form, logged_in, page, refuse, side_label, when
from arena.league.web.routes.admin import admin_page, audit

__all__ = ["routes"]


def entry_view(lg: League, user: str) -> dict[str, Any]:
    """What `user`'s pages say of their final entry: `text` ("Your final entry: v3
    (chosen)", with why a chosen version was dropped and until when it may change), the
    entry's submission id (`sid`, None without one), whether it was chosen (`chosen`) and
    whether another may be chosen now (`open`)."""
    started = started_entries(lg)
    if started is not None:  # the final's entries are the ones it started with
        sid = dict(started).get(user)
        sub = lg.submission(sid) if sid is not None else None
        text = (f"Your entry in the final: v{sub.version}; the final round robin has started, "
                f"so its entries are fixed." if sub is not None
                else "You have no entry in the final round robin, which has started.")
        return {"text": text, "sid": sid, "chosen": False, "open": False}
    entry = entry_of(lg, user)
    cut = lg.cut_of(user)
    until = (f" It was fixed at your deadline ({format_time(cut)})." if cut is not None else
             " Until your deadline you may choose another of your passed versions"
             " (\"Use this version in the final\").")
    if entry is None:
        text = ("You have no final entry: none of your versions uploaded before your deadline "
                "passed its check." if cut is not None else
                "You have no final entry yet: it is your latest version that passes its "
                "check, unless you choose one.")
        return {"text": text, "sid": None, "chosen": False, "open": cut is None}
    note = f" Note: {entry.note()}." if entry.note() else ""
    return {"text": f"Your final entry: {entry.text()}.{note}{until}", "sid": entry.submission_id,
            "chosen": entry.chosen, "open": cut is None}


def _submit_view(lg: League, user: str) -> dict[str, Any]:
    mine = lg.submissions(user)
    return {"mine": list(reversed(mine)), "config": lg.config,
            "frozen": lg.cut_of(user) is not None, "uploads_left": uploads_left_text(lg, user),
            "entry": entry_view(lg, user), "passed": [str(s) for s in PASSED],
            "last_class": mine[-1].class_name if mine else ""}


@logged_in
async def submit_get(request: Request) -> Response:
    user = request.state.user.name
    view = await db(request, lambda lg: _submit_view(lg, user))
    return page(request, "submit.html", error=None, **view)


@logged_in
async def submit_post(request: Request) -> Response:
    data = await form(request)
    files: list[tuple[str, bytes]] = []
    try:
        for item in data.getlist("files"):
            if isinstance(item, UploadFile) and item.filename:
                check_file_name(item.filename)  # as sent: a path is refused, not cut
                files.append((item.filename, await item.read()))
    except UploadError as exc:
        return refuse(request, 400, f"Upload refused: {exc}")
    kind = "kaggle" if data.get("kind") == "kaggle" else None
    chosen = data.get("class_name")
    # an empty field keeps the last version's choice; "-" clears it
    class_name = None if not isinstance(chosen, str) or not chosen.strip() else (
        "" if chosen.strip() == "-" else chosen)
    user = request.state.user.name
    try:
        sub = await db(request, lambda lg: lg.submit(user, files, kind=kind, quota=True,
                                                     class_name=class_name))
    except QuotaExceeded as exc:
        wait = str(int(exc.retry_after_s) + 1)
        return refuse(request, 429, f"Upload refused: {exc}.", {"Retry-After": wait})
    except DiskFull as exc:  # 507: the server's disk, not the student's doing
        return refuse(request, 507, f"Upload refused: {exc}.")
    except DiskQuotaExceeded as exc:  # 413: this upload is too large for what is left
        return refuse(request, 413, f"Upload refused: {exc}.")
    except UploadError as exc:
        return refuse(request, 400, f"Upload refused: {exc}")
    return RedirectResponse(f"/submissions/{sub.id}", status_code=303)


async def own_submission(request: Request) -> Submission:
    """The version of the path's ``sid``, when the user wrote it or is an admin."""
    sid = int(request.path_params["sid"])
    sub = await db(request, lambda lg: lg.submission(sid))
    if sub is None:
        raise HTTPException(404, f"No submission {sid}.")
    me = request.state.user
    if sub.user != me.name and not me.admin:
        raise HTTPException(403, f"Submission {sid} is not yours: its code, its check "
                                 "and its logs are for its author only.")
    return sub


def _status(lg: League, sub: Submission, admin: bool = False) -> dict[str, Any]:
    """A version's check, games and result against the previous version, as JSON values. A
    student reads the check's text with paths relative to their upload and only their own
    traceback frames (`student_text`); an admin reads it as stored."""
    games = []
    for summary in games_of(lg, sub.id):
        g = asdict(summary)
        g["finished"] = when(summary.finished_at)
        g["opponent_label"] = side_label(lg, summary.opponent)
        games.append(g)
    fresh = lg.submission(sub.id) or sub
    check, stderr = fresh.check_summary, fresh.check_stderr
    if not admin:
        folder = tree_of(lg.dir, fresh.id, fresh.fingerprint)
        check, stderr = student_text(check, folder), student_text(stderr, folder)
    return {"id": fresh.id, "status": fresh.status, "check_summary": check,
            "check_stderr": stderr, "games": games,
            "versus": versus_previous(lg, sub.id)}


@logged_in
async def submission(request: Request) -> Response:
    sub = await own_submission(request)
    admin = request.state.user.admin
    status, entry = await db(request, lambda lg: (_status(lg, sub, admin),
                                                  entry_view(lg, sub.user)))
    return page(request, "submission.html", sub=sub, st=status, entry=entry,
                own=sub.user == request.state.user.name, passed=[str(s) for s in PASSED])


@logged_in
async def choose(request: Request) -> Response:
    """Make the path's version its author's entry in the final (`choose_entry`): only its
    author may (403 for anyone else's, admins included: the teacher uses `cxarena league
    entry`), until their deadline (409 after it, with the reason)."""
    await form(request)
    sid = int(request.path_params["sid"])
    me = request.state.user.name
    sub = await db(request, lambda lg: lg.submission(sid))
    if sub is None:
        raise HTTPException(404, f"No submission {sid}.")
    if sub.user != me:
        raise HTTPException(403, f"Submission {sid} is not yours: only its author chooses "
                                 f"their entry in the final.")
    try:
        await db(request, lambda lg: choose_entry(lg, me, sub.version, by=me))
    except EntryRefused as exc:
        return refuse(request, 409, f"Refused: {exc}.")
    return RedirectResponse(f"/submissions/{sid}", status_code=303)


@logged_in
async def submission_status(request: Request) -> Response:
    sub = await own_submission(request)
    admin = request.state.user.admin
    return JSONResponse(await db(request, lambda lg: _status(lg, sub, admin)))


@logged_in
async def download(request: Request) -> Response:
    sub = await own_submission(request)
    files = await db(request, lambda lg: lg.submission_files(sub.id))
    if len(files) == 1:
        name, data = files[0]
    else:
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
            for n, d in files:
                zf.writestr(n, d)
        name, data = f"submission-{sub.id}.zip", buf.getvalue()
    safe = "".join(c for c in name if c.isalnum() or c in "._-") or "download"
    return Response(data, media_type="application/octet-stream",
                    headers={"Content-Disposition": f'attachment; filename="{safe}"'})


@admin_only
async def disable_or_enable(request: Request) -> Response:
    """Disable a version (`League.disable`, /admin/disable) or undo it (`League.enable`,
    /admin/enable), saying whose entry it leaves; a disabling offers its undo."""
    disable = request.url.path == "/admin/disable"
    data = await form(request)
    try:
        sid: int | None = int(str(data.get("submission_id")))
    except ValueError:
        sid = None
    sub = None if sid is None else await db(request, lambda lg: lg.submission(sid))
    if sid is None or sub is None:
        raise HTTPException(404, f"No submission {data.get('submission_id')!s:.40}.")

    def act(lg: League) -> str:
        lg.disable(sid) if disable else lg.enable(sid)
        entry = dict(entries(lg)).get(sub.user)
        now = lg.submission(entry) if entry is not None else None
        return (f"{sub.user}'s entry is now v{now.version}" if now is not None
                else f"{sub.user} has no entry now (no other version passed its check)")

    where = await db(request, act)
    label = f"{sub.user} v{sub.version}"
    undo = None
    if disable:
        notice = (f"Submission {sid} ({label}) is disabled: out of the rating games, the "
                  f"leaderboard and the final; {where}.")
        undo = {"action": "/admin/enable", "fields": {"submission_id": str(sid)},
                "label": f"Undo: enable {label} again"}
    else:
        notice = f"Submission {sid}: {label} is enabled again; {where}."
    await audit(request, "disable submission" if disable else "enable submission",
                f"{label} (submission {sid})", where)
    return await admin_page(request, notice=notice, undo=undo)


routes = [
    Route("/submit", submit_get, methods=["GET"]),
    Route("/submit", submit_post, methods=["POST"]),
    Route("/submissions/{sid:int}", submission),
    Route("/submissions/{sid:int}/status.json", submission_status),
    Route("/submissions/{sid:int}/download", download),
    Route("/submissions/{sid:int}/entry", choose, methods=["POST"]),
    Route("/admin/disable", disable_or_enable, methods=["POST"]),
    Route("/admin/enable", disable_or_enable, methods=["POST"]),
]
