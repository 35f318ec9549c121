"""A loopback HTTP server over a data folder, for the ``negkit data get`` tests (hand-written test helper).

It serves files under their relative paths, honours ``Range: bytes=N-`` (206), logs every GET (path and range),
and can misbehave per path: ``corrupt`` (one byte flipped), ``cut`` (the file cut short, the length header
matching), ``stop_after`` (the length header of the whole file, then the connection closed after N bytes: a server
that stops mid-file).
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote


class DataServer:
    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.log: list[tuple[str, str | None]] = []
        self.corrupt: set[str] = set()
        self.cut: set[str] = set()
        self.stop_after: dict[str, int] = {}
        self.url = ""

    def body(self, path: str) -> bytes | None:
        file = self.folder / path
        if ".." in Path(path).parts or not file.is_file():
            return None
        data = file.read_bytes()
        if path in self.corrupt:
            data = data[:10] + bytes([data[10] ^ 0xFF]) + data[11:]
        if path in self.cut:
            data = data[: len(data) // 2]
        return data

    def downloads(self) -> list[str]:
        return [path for path, _ in self.log]


def _handler(server: DataServer):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:  # quiet
            pass

        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            path = unquote(self.path.lstrip("/").split("?")[0])
            ranged = self.headers.get("Range")
            server.log.append((path, ranged))
            data = server.body(path)
            if data is None:
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            start = int(ranged.split("=")[1].split("-")[0]) if ranged else 0
            self.send_response(206 if ranged else 200)
            if ranged:
                self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
            self.send_header("Content-Length", str(len(data) - start))
            self.end_headers()
            stop = server.stop_after.pop(path, None)
            if stop is not None:
                self.wfile.write(data[start : start + stop])
                self.wfile.flush()
                self.close_connection = True
                return
            self.wfile.write(data[start:])

    return Handler


@contextmanager
def serve(folder: Path):
    """A :class:`DataServer` over ``folder`` on 127.0.0.1 (a free port), running in a thread."""
    state = DataServer(folder)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
