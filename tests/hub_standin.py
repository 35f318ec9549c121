"""A stand-in for the Hugging Face hub on 127.0.0.1 (hand-written test helper): one gated data set repository whose
files are served at one commit, to ``huggingface_hub`` (repo info, tree listing, file resolution). Requests without
the right token get the hub's gated answer (401, ``X-Error-Code: GatedRepo``)."""

from __future__ import annotations

import hashlib
import json
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlparse

COMMIT = "0123456789abcdef0123456789abcdef01234567"


def _blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@contextmanager
def hub_standin(repo_id: str, files: dict[str, bytes], token: str):
    """Serve ``files`` as the data set ``repo_id``; yields the endpoint URL (for ``HF_ENDPOINT``)."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:
            pass

        def _send(self, code: int, body: bytes = b"", headers: tuple[tuple[str, str], ...] = ()) -> None:
            self.send_response(code)
            for key, value in headers:
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def do_HEAD(self) -> None:  # noqa: N802
            self.do_GET()

        def do_GET(self) -> None:  # noqa: N802
            path = unquote(urlparse(self.path).path)
            if not path.startswith((f"/api/datasets/{repo_id}/", f"/datasets/{repo_id}/")):
                return self._send(404)
            if self.headers.get("Authorization") != f"Bearer {token}":
                message = "Access to dataset is restricted. You must have access to it and be authenticated."
                return self._send(401, b"{}", (("X-Error-Code", "GatedRepo"), ("X-Error-Message", message)))
            if path.startswith(f"/api/datasets/{repo_id}/revision/"):
                info = {"id": repo_id, "sha": COMMIT, "siblings": [{"rfilename": name} for name in files]}
                return self._send(200, json.dumps(info).encode(), (("Content-Type", "application/json"),))
            if path.startswith(f"/api/datasets/{repo_id}/tree/"):
                tree = [{"type": "file", "path": n, "size": len(b), "oid": _blob_id(b)} for n, b in files.items()]
                return self._send(200, json.dumps(tree).encode(), (("Content-Type", "application/json"),))
            if "/resolve/" in path:
                name = path.split("/resolve/", 1)[1].split("/", 1)[1]
                if name not in files:
                    return self._send(404, b"", (("X-Error-Code", "EntryNotFound"),))
                data = files[name]
                return self._send(200, data, (("X-Repo-Commit", COMMIT), ("ETag", f'"{_blob_id(data)}"')))
            return self._send(404)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
