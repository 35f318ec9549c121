"""Open a local HTML file in a real headless browser (Debian's chromium) over the DevTools protocol.

:func:`render` starts chromium with a fresh profile, loads the page, and returns what the tests check: console
errors and uncaught exceptions, every network request that is not the page's own file, each ``<svg>`` / ``<canvas>``
element's box and number of drawn elements, and a full-page PNG screenshot. :func:`find_chromium` gives the
browser's path or None (the tests then skip, naming scripts/setup.sh, which installs it).
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--hide-scrollbars",
    "--remote-debugging-port=0",
    "--remote-allow-origins=*",
)
_ELEMENTS = """
Array.from(document.querySelectorAll('svg, canvas')).filter(e => !e.parentElement.closest('svg')).map(e => {
  const r = e.getBoundingClientRect();
  return {tag: e.tagName.toLowerCase(), x: r.left + window.scrollX, y: r.top + window.scrollY, width: r.width,
          height: r.height, drawn: e.querySelectorAll('path, rect, line, polyline, polygon, circle, use, text').length};
})
"""


@dataclass
class Rendered:
    """What the browser saw."""

    console_errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    elements: list[dict[str, Any]] = field(default_factory=list)
    screenshot: bytes = b""
    title: str = ""
    #: The page's width in CSS pixels (more than the window's: the page scrolls sideways).
    content_width: float = 0.0
    #: The value of each expression passed to :func:`render` as ``actions``, evaluated in order after the load.
    evaluated: list[Any] = field(default_factory=list)


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


class _DevTools:
    """A minimal DevTools client: one websocket to the browser, flattened sessions, events kept by method."""

    def __init__(self, url: str) -> None:
        import websocket

        self.socket = websocket.create_connection(url, timeout=30, suppress_origin=True)
        self.counter = 0
        self.events: list[dict[str, Any]] = []

    def call(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> dict[str, Any]:
        self.counter += 1
        message: dict[str, Any] = {"id": self.counter, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        self.socket.send(json.dumps(message))
        while True:
            reply = json.loads(self.socket.recv())
            if reply.get("id") == self.counter:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method: str, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while not any(event.get("method") == method for event in self.events):
            if time.monotonic() > deadline:
                raise TimeoutError(f"no {method} within {timeout} s")
            self.events.append(json.loads(self.socket.recv()))

    def close(self) -> None:
        self.socket.close()


def _start(chromium: str, profile: str) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen(
        [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "about:blank"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    assert process.stderr is not None
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        if "DevTools listening on " in line:
            return process, line.split("DevTools listening on ", 1)[1].strip()
        if not line and process.poll() is not None:
            break
    process.kill()
    raise RuntimeError("chromium did not start its DevTools endpoint")


def render(page: Path, width: int = 1280, actions: tuple[str, ...] = ()) -> Rendered:
    """Load ``page`` in headless chromium and collect what :class:`Rendered` holds; each JavaScript expression of
    ``actions`` (e.g. a click, then a read of the table) is evaluated in turn after the load, before the screenshot."""
    chromium = find_chromium()
    if chromium is None:
        raise RuntimeError("chromium is not installed")
    with tempfile.TemporaryDirectory(prefix="negkit-chromium-") as profile:
        process, url = _start(chromium, profile)
        tools = _DevTools(url)
        try:
            target = tools.call("Target.createTarget", {"url": "about:blank"})["targetId"]
            session = tools.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            for domain in ("Page", "Runtime", "Log", "Network"):
                tools.call(f"{domain}.enable", session=session)
            tools.call(
                "Emulation.setDeviceMetricsOverride",
                {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": False},
                session=session,
            )
            tools.events.clear()
            tools.call("Page.navigate", {"url": page.resolve().as_uri()}, session=session)
            tools.wait_for("Page.loadEventFired")
            values = [
                tools.call("Runtime.evaluate", {"expression": action, "returnByValue": True}, session=session)[
                    "result"
                ].get("value")
                for action in actions
            ]
            evaluated = tools.call(
                "Runtime.evaluate", {"expression": _ELEMENTS, "returnByValue": True}, session=session
            )
            title = tools.call(
                "Runtime.evaluate", {"expression": "document.title", "returnByValue": True}, session=session
            )
            metrics = tools.call("Page.getLayoutMetrics", session=session)["cssContentSize"]
            shot = tools.call(
                "Page.captureScreenshot",
                {
                    "format": "png",
                    "captureBeyondViewport": True,
                    "clip": {"x": 0, "y": 0, "width": width, "height": metrics["height"], "scale": 1},
                },
                session=session,
            )
            result = Rendered(
                elements=evaluated["result"]["value"],
                screenshot=base64.b64decode(shot["data"]),
                title=title["result"]["value"],
                content_width=metrics["width"],
                evaluated=values,
            )
            _collect(tools.events, result, page.resolve().as_uri())
            tools.call("Browser.close")
        finally:
            tools.close()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
    return result


def _collect(events: list[dict[str, Any]], result: Rendered, own_url: str) -> None:
    for event in events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            result.console_errors.append(
                " ".join(str(arg.get("value", arg.get("description", ""))) for arg in params.get("args", []))
            )
        elif method == "Runtime.exceptionThrown":
            result.console_errors.append(str(params.get("exceptionDetails", {}).get("text")))
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            result.console_errors.append(str(params["entry"].get("text")))
        elif method == "Network.requestWillBeSent":
            url = params.get("request", {}).get("url", "")
            if url != own_url and not url.startswith("data:"):
                result.requests.append(url)
