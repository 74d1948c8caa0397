#!/usr/bin/env python3
"""Drives the official Dropbox Python SDK (PyPI `dropbox`) against a running `byteclub serve`.

Every endpoint the club server implements is called through the SDK, so the SDK's own stone
validators check each answer as they would against Dropbox (an account id of the wrong length
raises `ValidationError`). On top of that, every raw answer is decoded again in *strict* mode
against the route's result or error type, endpoint by endpoint: a field the spec does not have,
a union tag it does not know, a missing required field or a string outside its length or
pattern fails here, before it fails someone's script.

    python3 scripts/sdk-interop.py --url http://127.0.0.1:PORT --token TOKEN \
        --member-token ray=TOKEN2 --photo Resources/SampleClub/byteclub/photos/alps-sunrise.jpg

Prints one line per check and exits 1 if any failed (the Swift test `SDKInteropTests` runs it
against a real `byteclub serve` and shows this output when it fails).
"""

import argparse
import datetime
import json
import re
import sys
import traceback
import urllib.parse

try:
    import dropbox
    import requests
    from dropbox import files, sharing, users
    from stone.backends.python_rsrc import stone_serializers
except ImportError as error:  # say how to get it rather than a bare traceback
    print(f"sdk-interop: the Dropbox SDK is missing ({error}); run `make deps`", file=sys.stderr)
    sys.exit(2)

ROUTES = {"files": files.ROUTES, "users": users.ROUTES, "sharing": sharing.ROUTES}
# The SDK knows only Dropbox's hosts and always speaks https; these are the ones it may call.
DROPBOX_HOSTS = {"api.dropboxapi.com", "content.dropboxapi.com", "notify.dropboxapi.com"}


def route_for(path):
    """The stone route of a URL path: "/2/files/copy_v2" is files.ROUTES["copy:2"]."""
    parts = path.strip("/").split("/", 2)
    if len(parts) != 3 or parts[0] != "2" or parts[1] not in ROUTES:
        return None
    name = parts[2]
    version = re.search(r"_v(\d+)$", name)
    if version:
        name = name[: version.start()] + ":" + version.group(1)
    return ROUTES[parts[1]].get(name)


class Checks:
    """What was checked and what failed, endpoint by endpoint."""

    def __init__(self):
        self.passed = 0
        self.failures = []
        self.seen = set()

    def ok(self, what):
        self.passed += 1
        print(f"ok   {what}")

    def fail(self, what, why):
        self.failures.append(what)
        print(f"FAIL {what}: {why}")


CHECKS = Checks()


class LoopbackAdapter(requests.adapters.HTTPAdapter):
    """Sends the SDK's https://*.dropboxapi.com requests to the club server instead, and checks
    each raw answer strictly against its route's stone type before the SDK sees it."""

    def __init__(self, base):
        super().__init__()
        self.base = base.rstrip("/")

    def send(self, request, **kwargs):
        url = urllib.parse.urlsplit(request.url)
        if url.hostname not in DROPBOX_HOSTS:
            raise requests.exceptions.InvalidURL(f"sdk-interop: unexpected host {url.hostname}")
        request.url = self.base + url.path + (f"?{url.query}" if url.query else "")
        kwargs["verify"] = False
        response = super().send(request, **kwargs)
        self.check(url.path, response)
        return response

    @staticmethod
    def check(path, response):
        route = route_for(path)
        what = f"strict {path} {response.status_code}"
        if route is None:
            CHECKS.fail(what, "no such route in the SDK")
            return
        try:
            if response.status_code == 200:
                raw = response.headers.get("Dropbox-API-Result")
                if raw is None:  # an RPC answer; reading it here keeps it for the SDK
                    ctype = response.headers.get("Content-Type")
                    if ctype != "application/json":
                        raise AssertionError(f"Content-Type {ctype!r}, the SDK asserts application/json")
                    raw = response.content.decode("utf-8")
                stone_serializers.json_compat_obj_decode(route.result_type, json.loads(raw), strict=True)
            elif response.status_code == 409:
                body = json.loads(response.content.decode("utf-8"))
                if not isinstance(body.get("error_summary"), str):
                    raise AssertionError("no error_summary")
                stone_serializers.json_compat_obj_decode(route.error_type, body["error"], strict=True)
            else:
                return  # 400/401/429/5xx have their own shapes; the calls below expect none
        except Exception as error:  # a stone ValidationError, bad JSON, a wrong header
            CHECKS.fail(what, f"{type(error).__name__}: {error}: {response.content[:300]!r}")
            return
        if what not in CHECKS.seen:
            CHECKS.seen.add(what)
            CHECKS.ok(what)


def client(base, token):
    session = requests.Session()
    session.mount("https://", LoopbackAdapter(base))
    return dropbox.Dropbox(oauth2_access_token=token, session=session, max_retries_on_error=0,
                           max_retries_on_rate_limit=0, timeout=60)


def call(what, function, check=None):
    """Runs one SDK call; any exception (the SDK's ValidationError above all) fails it."""
    try:
        result = function()
        if check is not None:
            problem = check(result)
            if problem:
                CHECKS.fail(what, problem)
                return result
        CHECKS.ok(what)
        return result
    except Exception as error:
        CHECKS.fail(what, f"{type(error).__name__}: {error}\n{traceback.format_exc(limit=3)}")
        return None


def expect_error(what, function, is_expected):
    """Runs a call that must fail with a particular endpoint error, decoded by the SDK."""
    try:
        function()
        CHECKS.fail(what, "succeeded; an error was expected")
    except dropbox.exceptions.ApiError as error:
        if is_expected(error.error):
            CHECKS.ok(what)
        else:
            CHECKS.fail(what, f"wrong error {error.error!r}")
    except Exception as error:
        CHECKS.fail(what, f"{type(error).__name__}: {error}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", required=True, help="the club server, http://127.0.0.1:PORT")
    parser.add_argument("--token", required=True, help="a token of the club (shared or a member's)")
    parser.add_argument("--member-token", action="append", default=[], help="NAME=TOKEN of another member")
    parser.add_argument("--photo", required=True, help="a JPEG to upload and thumbnail")
    options = parser.parse_args()

    dbx = client(options.url, options.token)
    photo = open(options.photo, "rb").read()
    folder = "/sdk-interop"

    # Accounts: the ids must be Dropbox's 40 characters, or the SDK refuses the answer.
    me = call("users/get_current_account", dbx.users_get_current_account,
              lambda a: None if len(a.account_id) == 40 else f"account_id {a.account_id!r}")
    if me is not None:
        call("users/get_account (self)", lambda: dbx.users_get_account(me.account_id),
             lambda a: None if a.account_id == me.account_id else f"another id {a.account_id}")
    for pair in options.member_token:
        name, token = pair.split("=", 1)
        other = call(f"users/get_current_account ({name})", client(options.url, token).users_get_current_account)
        if other is not None:
            call(f"users/get_account ({name})", lambda: dbx.users_get_account(other.account_id),
                 lambda a, n=name: None if a.name.display_name == n else f"named {a.name.display_name!r}")
    expect_error("users/get_account (nobody)", lambda: dbx.users_get_account("dbid:" + "A" * 35),
                 lambda e: e.is_no_account())

    # Writes.
    call("files/create_folder_v2", lambda: dbx.files_create_folder_v2(folder))
    note = call("files/upload", lambda: dbx.files_upload(b"first line\n", f"{folder}/note.txt"),
                lambda m: None if m.size == 11 and len(m.content_hash) == 64 else f"metadata {m}")
    expect_error("files/upload (add conflict)",
                 lambda: dbx.files_upload(b"other\n", f"{folder}/note.txt", mode=files.WriteMode.add),
                 lambda e: e.is_path() and e.get_path().reason.is_conflict())
    second = None
    if note is not None:
        second = call("files/upload (update)",
                      lambda: dbx.files_upload(b"second line\n", f"{folder}/note.txt", mode=files.WriteMode.update(note.rev)),
                      lambda m: None if m.rev != note.rev else "same rev")
    call("files/upload (second note)", lambda: dbx.files_upload(b"another\n", f"{folder}/note-two.txt"))
    call("files/upload (photo)", lambda: dbx.files_upload(photo, f"{folder}/photos/desk.jpg"))

    start = call("files/upload_session/start", lambda: dbx.files_upload_session_start(b"abc"))
    if start is not None:
        cursor = files.UploadSessionCursor(session_id=start.session_id, offset=3)
        call("files/upload_session/append_v2", lambda: dbx.files_upload_session_append_v2(b"def", cursor))
        expect_error("files/upload_session/append_v2 (incorrect offset)",
                     lambda: dbx.files_upload_session_append_v2(b"xyz", files.UploadSessionCursor(start.session_id, 1)),
                     lambda e: e.is_incorrect_offset() and e.get_incorrect_offset().correct_offset == 6)
        call("files/upload_session/finish",
             lambda: dbx.files_upload_session_finish(b"g", files.UploadSessionCursor(start.session_id, 6),
                                                     files.CommitInfo(path=f"{folder}/session.bin")),
             lambda m: None if m.size == 7 else f"size {m.size}")

    # Refusals in each session route's own union: an offset past the largest file a session
    # makes is `too_large` (once, an offset near 2^63 plus a block crashed the server), and a
    # finish onto a taken name is finish's `path` (a WriteError), not an upload's path/reason.
    concurrent = call("files/upload_session/start (concurrent)",
                      lambda: dbx.files_upload_session_start(b"", session_type=files.UploadSessionType.concurrent))
    if concurrent is not None:
        for offset, data in [(1 << 62, b""), (9223372036850581504, b"x" * (4 << 20))]:
            expect_error(f"files/upload_session/append_v2 (offset {offset})",
                         lambda o=offset, d=data: dbx.files_upload_session_append_v2(
                             d, files.UploadSessionCursor(concurrent.session_id, o), close=True),
                         lambda e: e.is_too_large())
    taken = call("files/upload_session/start (for a taken name)", lambda: dbx.files_upload_session_start(b"x"))
    if taken is not None:
        expect_error("files/upload_session/finish (conflict)",
                     lambda: dbx.files_upload_session_finish(b"", files.UploadSessionCursor(taken.session_id, 1),
                                                             files.CommitInfo(path=f"{folder}/note.txt", mode=files.WriteMode.add)),
                     lambda e: e.is_path() and e.get_path().is_conflict())

    # Many small files committed in one call (upload_session/finish_batch_v2): closed sessions,
    # each entry answered at its position, a failure (a wrong offset, a taken name) beside successes.
    batch = []
    for index, data in enumerate([b"batch one\n", b"batch two\n", b"taken\n"]):
        started = call(f"files/upload_session/start (closed, batch {index})",
                       lambda d=data: dbx.files_upload_session_start(d, close=True))
        if started is not None:
            path = f"{folder}/note.txt" if index == 2 else f"{folder}/batch/note-{index}.md"
            batch.append(files.UploadSessionFinishArg(cursor=files.UploadSessionCursor(started.session_id, len(data)),
                                                      commit=files.CommitInfo(path=path, mode=files.WriteMode.add)))
    if len(batch) == 3:
        wrong = files.UploadSessionFinishArg(cursor=files.UploadSessionCursor(batch[0].cursor.session_id, 1),
                                             commit=files.CommitInfo(path=f"{folder}/batch/wrong.md"))

        def batch_answer(r):
            tags = ["success" if e.is_success() else "failure" for e in r.entries]
            if tags != ["failure", "success", "success", "failure"]:
                return f"entries {tags}"
            first, last = r.entries[0].get_failure(), r.entries[3].get_failure()
            if not (first.is_lookup_failed() and first.get_lookup_failed().is_incorrect_offset()
                    and first.get_lookup_failed().get_incorrect_offset().correct_offset == 10):
                return f"first failure {first!r}"
            if not (last.is_path() and last.get_path().is_conflict()):
                return f"last failure {last!r}"
            if r.entries[1].get_success().size != 10 or r.entries[2].get_success().path_display != f"{folder}/batch/note-1.md":
                return f"successes {r.entries[1:3]!r}"
            return None

        call("files/upload_session/finish_batch_v2", lambda: dbx.files_upload_session_finish_batch_v2([wrong] + batch),
             batch_answer)

    # Reads.
    call("files/get_metadata", lambda: dbx.files_get_metadata(f"{folder}/note.txt"),
         lambda m: None if isinstance(m, files.FileMetadata) else f"{m!r}")
    call("files/get_metadata (folder)", lambda: dbx.files_get_metadata(folder),
         lambda m: None if isinstance(m, files.FolderMetadata) else f"{m!r}")
    expect_error("files/get_metadata (missing)", lambda: dbx.files_get_metadata(f"{folder}/nothing.txt"),
                 lambda e: e.is_path() and e.get_path().is_not_found())
    call("files/download", lambda: dbx.files_download(f"{folder}/note.txt"),
         lambda r: None if r[1].content == b"second line\n" else f"bytes {r[1].content!r}")
    if note is not None:
        call("files/download (rev:)", lambda: dbx.files_download(f"rev:{note.rev}"),
             lambda r: None if r[1].content == b"first line\n" else f"bytes {r[1].content!r}")
    call("files/get_thumbnail_v2",
         lambda: dbx.files_get_thumbnail_v2(files.PathOrLink.path(f"{folder}/photos/desk.jpg"),
                                            size=files.ThumbnailSize.w64h64),
         lambda r: None if r[1].content[:2] == b"\xff\xd8" else "not a JPEG")

    listing = call("files/list_folder", lambda: dbx.files_list_folder(folder, limit=2))
    while listing is not None and listing.has_more:
        listing = call("files/list_folder/continue", lambda c=listing.cursor: dbx.files_list_folder_continue(c))
    call("files/list_folder (recursive)", lambda: dbx.files_list_folder(folder, recursive=True))
    latest = call("files/list_folder/get_latest_cursor", lambda: dbx.files_list_folder_get_latest_cursor(folder))
    found = call("files/search_v2",
                 lambda: dbx.files_search_v2("note", files.SearchOptions(path=folder, max_results=1, filename_only=True)))
    if found is not None and found.has_more and found.cursor:
        call("files/search/continue_v2", lambda: dbx.files_search_continue_v2(found.cursor),
             lambda r: None if r.matches else "no more matches")
    elif found is not None:
        CHECKS.fail("files/search/continue_v2", "search_v2 gave no cursor to continue with (two notes match)")

    # Moves, copies, deletes, and what the live club sees of them.
    call("files/copy_v2", lambda: dbx.files_copy_v2(f"{folder}/note.txt", f"{folder}/copy.txt"))
    call("files/move_v2", lambda: dbx.files_move_v2(f"{folder}/copy.txt", f"{folder}/moved.txt"))
    expect_error("files/move_v2 (missing source)",
                 lambda: dbx.files_move_v2(f"{folder}/nothing.txt", f"{folder}/else.txt"),
                 lambda e: e.is_from_lookup() and e.get_from_lookup().is_not_found())
    call("files/delete_v2", lambda: dbx.files_delete_v2(f"{folder}/moved.txt"))
    if latest is not None:
        call("files/list_folder/longpoll", lambda: dbx.files_list_folder_longpoll(latest.cursor, timeout=30),
             lambda r: None if r.changes else "no changes reported")
        call("files/list_folder/continue (delta)", lambda: dbx.files_list_folder_continue(latest.cursor),
             lambda r: None if any(isinstance(e, files.DeletedMetadata) for e in r.entries) else "no deletion")

    # History.
    revisions = call("files/list_revisions", lambda: dbx.files_list_revisions(f"{folder}/note.txt", limit=10),
                     lambda r: None if len(r.entries) >= 2 else f"{len(r.entries)} revisions")
    if revisions is not None and note is not None:
        call("files/list_revisions (id mode)",
             lambda: dbx.files_list_revisions(revisions.entries[0].id, mode=files.ListRevisionsMode.id))
        call("files/restore", lambda: dbx.files_restore(f"{folder}/note.txt", note.rev))
        expect_error("files/restore (unknown rev)", lambda: dbx.files_restore(f"{folder}/note.txt", "0123456789abcdef"),
                     lambda e: e.is_invalid_revision())
    call("files/list_revisions (deleted)", lambda: dbx.files_list_revisions(f"{folder}/moved.txt"),
         lambda r: None if r.is_deleted else "not deleted")

    # Share links: made, made again (the error carries the link), listed, revoked.
    public = sharing.SharedLinkSettings(requested_visibility=sharing.RequestedVisibility.public,
                                        expires=datetime.datetime(2100, 1, 1))
    link = call("sharing/create_shared_link_with_settings",
                lambda: dbx.sharing_create_shared_link_with_settings(f"{folder}/note.txt", public),
                lambda l: None if isinstance(l, sharing.FileLinkMetadata) and "/s/" in l.url and l.expires else f"{l!r}")
    expect_error("sharing/create_shared_link_with_settings (exists)",
                 lambda: dbx.sharing_create_shared_link_with_settings(f"{folder}/note.txt"),
                 lambda e: e.is_shared_link_already_exists() and link is not None
                 and e.get_shared_link_already_exists().get_metadata().url == link.url)
    expect_error("sharing/create_shared_link_with_settings (missing)",
                 lambda: dbx.sharing_create_shared_link_with_settings(f"{folder}/nothing.txt"),
                 lambda e: e.is_path() and e.get_path().is_not_found())
    expect_error("sharing/create_shared_link_with_settings (team only)",
                 lambda: dbx.sharing_create_shared_link_with_settings(
                     f"{folder}/note-two.txt", sharing.SharedLinkSettings(requested_visibility=sharing.RequestedVisibility.team_only)),
                 lambda e: e.is_settings_error() and e.get_settings_error().is_not_authorized())
    call("sharing/list_shared_links", lambda: dbx.sharing_list_shared_links(),
         lambda r: None if link is not None and [l.url for l in r.links] == [link.url] else f"{r!r}")
    call("sharing/list_shared_links (path)", lambda: dbx.sharing_list_shared_links(path=f"{folder}/note.txt", direct_only=True),
         lambda r: None if len(r.links) == 1 and not r.has_more else f"{r!r}")
    if link is not None:
        call("sharing/revoke_shared_link", lambda: dbx.sharing_revoke_shared_link(link.url))
        expect_error("sharing/revoke_shared_link (again)", lambda: dbx.sharing_revoke_shared_link(link.url),
                     lambda e: e.is_shared_link_not_found())
    # Tags: the SDK validates what tags/get answers and decodes the errors of add and remove.
    call("files/tags/add", lambda: dbx.files_tags_add(f"{folder}/note.txt", "Trip"))
    call("files/tags/add (second)", lambda: dbx.files_tags_add(f"{folder}/note.txt", "boat_2"))
    # A nested tag (Obsidian's `project/alpha`) travels on byteclub's own route; Dropbox's routes
    # take and answer only Dropbox's grammar (`[\w]+`), so the SDK reads every tag they return.
    def raw(route, argument):
        return requests.post(options.url.rstrip("/") + route, data=json.dumps(argument), verify=False, timeout=60,
                             headers={"Authorization": f"Bearer {options.token}", "Content-Type": "application/json"})

    def nested_tag():
        added = raw("/2/byteclub/files/tags/add", {"path": f"{folder}/note.txt", "tag_text": "Project/Alpha"})
        if added.status_code != 200:
            return f"{added.status_code} {added.text[:200]}"
        refused = raw("/2/files/tags/add", {"path": f"{folder}/note.txt", "tag_text": "project/beta"})
        if refused.status_code != 400:
            return f"Dropbox's route took a nested tag: {refused.status_code} {refused.text[:200]}"
        got = raw("/2/byteclub/files/tags/get", {"paths": [f"{folder}/note.txt"]})
        texts = [t.get("tag_text") for t in got.json()["paths_to_tags"][0]["tags"]] if got.status_code == 200 else None
        return None if texts == ["boat_2", "project/alpha", "trip"] or texts == ["trip", "boat_2", "project/alpha"] else f"club route's tags {texts}"

    problem = nested_tag()
    if problem:
        CHECKS.fail("nested tags on /2/byteclub/files/tags/*", problem)
    else:
        CHECKS.ok("nested tags on /2/byteclub/files/tags/*")
    call("files/tags/get", lambda: dbx.files_tags_get([f"{folder}/note.txt", f"{folder}/note-two.txt"]),
         lambda r: None if [[t.get_user_generated_tag().tag_text for t in p.tags] for p in r.paths_to_tags] == [["trip", "boat_2"], []]
         else f"tags {r!r}")
    # `İ` lowers to `i` and a combining dot, no `\w`: stored folded, so tags/get still validates.
    call("files/tags/add (dotted capital I)", lambda: dbx.files_tags_add(f"{folder}/note-two.txt", "İstanbul"))
    call("files/tags/get (dotted capital I)", lambda: dbx.files_tags_get([f"{folder}/note-two.txt"]),
         lambda r: None if [t.get_user_generated_tag().tag_text for t in r.paths_to_tags[0].tags] == ["istanbul"] else f"tags {r!r}")
    call("files/tags/remove (dotted capital I)", lambda: dbx.files_tags_remove(f"{folder}/note-two.txt", "istanbul"))
    call("files/tags/remove", lambda: dbx.files_tags_remove(f"{folder}/note.txt", "trip"))
    expect_error("files/tags/remove (not present)", lambda: dbx.files_tags_remove(f"{folder}/note.txt", "never"),
                 lambda e: e.is_tag_not_present())
    expect_error("files/tags/add (missing file)", lambda: dbx.files_tags_add(f"{folder}/nothing.txt", "x"),
                 lambda e: e.is_path() and e.get_path().is_not_found())
    expect_error("files/tags/get (missing file)", lambda: dbx.files_tags_get([f"{folder}/nothing.txt"]),
                 lambda e: e.is_path() and e.get_path().is_not_found())

    print(f"sdk-interop: {CHECKS.passed} checks ok, {len(CHECKS.failures)} failed")
    return 1 if CHECKS.failures else 0


if __name__ == "__main__":
    sys.exit(main())
