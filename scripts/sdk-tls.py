#!/usr/bin/env python3
"""The official Dropbox Python SDK against a `byteclub serve` speaking HTTPS, trusting only the
server's own certificate as its CA (`ca_certs`, as `dropbox.create_session` takes it).

    python3 scripts/sdk-tls.py --url https://127.0.0.1:PORT --token TOKEN --ca ROOT/.byteclub/tls/cert.pem [--reader]

As an editor it uploads, lists and downloads a file. With --reader the token is a reader's: it
lists, downloads and searches, every write must fail with the SDK's `no_write_permission`, and
metadata must say `sharing_info.read_only`. A server whose certificate is not the CA given fails
the first call. Prints one line per check; exits 1 if any failed, 2 without the SDK.
"""

import argparse
import sys
import urllib.parse

try:
    import dropbox
    import requests
    from dropbox import files, exceptions
except ImportError as error:
    print(f"sdk-tls: the Dropbox SDK is missing ({error}); run `make deps`", file=sys.stderr)
    sys.exit(2)

FAILED = []


class ClubAdapter(dropbox.session._SSLAdapter):
    """The SDK's own adapter (`ca_certs` as its only CA, certificates required), sending its
    https://*.dropboxapi.com requests to the club server. The SDK asks every call with
    `verify=True`, which requests would answer with the system's CAs: the CA file is passed
    instead, so the server's certificate is checked against it and its host name."""

    def __init__(self, base, ca):
        super().__init__(ca_certs=ca)
        self.base = base.rstrip("/")
        self.ca = ca

    def send(self, request, **kwargs):
        url = urllib.parse.urlsplit(request.url)
        request.url = self.base + url.path + (f"?{url.query}" if url.query else "")
        kwargs["verify"] = self.ca
        return super().send(request, **kwargs)


def check(what, condition, detail=""):
    print(f"{'ok' if condition else 'FAIL'}: {what}{'' if condition else ' ' + detail}")
    if not condition:
        FAILED.append(what)


def refused(what, function, tagged=True):
    """The call must raise the SDK's ApiError; `tagged`: one whose error says no_write_permission
    (routes whose union has no such tag read it as `other`)."""
    try:
        function()
    except exceptions.ApiError as error:
        check(what, not tagged or "no_write_permission" in repr(error.error), repr(error.error))
        return
    except Exception as error:  # a wrong kind of failure
        check(what, False, f"{type(error).__name__}: {error}")
        return
    check(what, False, "the write was accepted")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--ca", required=True)
    parser.add_argument("--reader", action="store_true")
    parser.add_argument("--folder", default="/byteclub")
    args = parser.parse_args()

    session = dropbox.create_session(ca_certs=args.ca)
    session.mount("https://", ClubAdapter(args.url, args.ca))
    dbx = dropbox.Dropbox(oauth2_access_token=args.token, session=session, max_retries_on_error=0, max_retries_on_rate_limit=0, timeout=30)

    account = dbx.users_get_current_account()
    check("users/get_current_account over TLS", bool(account.account_id))
    if not args.reader:
        meta = dbx.files_upload(b"over tls\n", f"{args.folder}/tls-note.md", mode=files.WriteMode.overwrite)
        check("files/upload", meta.size == 9)
    listing = dbx.files_list_folder(args.folder)
    names = [entry.name for entry in listing.entries]
    check("files/list_folder", "tls-note.md" in names, str(names))
    _, response = dbx.files_download(f"{args.folder}/tls-note.md")
    check("files/download", response.content == b"over tls\n", repr(response.content[:40]))
    if args.reader:
        note = [e for e in listing.entries if e.name == "tls-note.md"][0]
        check("sharing_info.read_only for a reader", note.sharing_info is not None and note.sharing_info.read_only, repr(note.sharing_info))
        found = dbx.files_search_v2("tls-note")
        check("files/search_v2", len(found.matches) >= 1)
        refused("files/upload refused", lambda: dbx.files_upload(b"x", f"{args.folder}/reader.md"))
        refused("files/delete_v2 refused", lambda: dbx.files_delete_v2(f"{args.folder}/tls-note.md"))
        refused("files/move_v2 refused", lambda: dbx.files_move_v2(f"{args.folder}/tls-note.md", f"{args.folder}/moved.md"))
        refused("files/copy_v2 refused", lambda: dbx.files_copy_v2(f"{args.folder}/tls-note.md", f"{args.folder}/copy.md"))
        refused("files/create_folder_v2 refused", lambda: dbx.files_create_folder_v2(f"{args.folder}/new"))
        refused("files/upload_session/start refused", lambda: dbx.files_upload_session_start(b"abc"), tagged=False)
    print(f"sdk-tls: {len(FAILED)} failed")
    sys.exit(1 if FAILED else 0)


if __name__ == "__main__":
    main()
