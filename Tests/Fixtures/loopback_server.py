#!/usr/bin/env python3
"""httpbin-style HTTP/1.1 test server for the Requests tests and benchmarks.

Listens on 127.0.0.1 only, on an ephemeral port, and prints "PORT <n>" on its
first stdout line once it accepts connections. It exits when its stdin closes,
so it never outlives the process that started it.

Endpoints:
  /anything[/...]   echo method, path, raw query, headers and body as JSON;
                    form, JSON, property-list and multipart bodies are also parsed
  /upload           read the body in chunks without keeping it; answer its size,
                    SHA-256 and, for multipart bodies, each part's headers, size and SHA-256
  /status/<code>    that status, body "status <code>"
  /delay/<seconds>  sleep, then answer like /anything
  /redirect/<n>     302 to /redirect/<n-1>; /redirect/0 answers like /anything
  /headers          the request headers as JSON
  /bytes/<n>        n bytes, byte i is i % 256
  /json             a fixed JSON document
  /close            drops the connection without answering
  /flaky/<key>/<n>  the first n requests for key answer 503, body "flaky <key> attempt <i>"
                    (i from 1); later ones answer like /anything. ?status=<code> replaces
                    503; ?close=1 drops the connection instead of answering for those n
  /flaky-count/<key>
                    {"count": <requests seen so far on /flaky/<key>/...>}
  /retry-after/<key>/<seconds>
                    the first request for key answers 429 with "Retry-After: <seconds>"
                    (?date=1: an HTTP-date that many seconds ahead); later ones answer
                    like /anything
  /retry-after-times/<key>
                    {"times": [time.monotonic() of each /retry-after/<key>/... request]}
  /basic-auth/<user>/<pass>
                    200 {"authenticated": true, "user": <user>} for matching Basic
                    credentials, else 401 {"authenticated": false} with a Basic challenge
  /bearer/<realm>   200 {"token": <token>} for "Authorization: Bearer <valid token>", else
                    401 {"error": "invalid_token"} with a Bearer challenge; the valid token
                    starts as "<realm>-0"
  /bearer/<realm>/rotate
                    makes "<realm>-<k>" valid (k counts rotations), answers {"token": ...};
                    ?delay=<seconds> sleeps first; ?fail=1 answers 500 "refresh refused"
                    without rotating (still counted as a refresh)
  /bearer/<realm>/stats
                    {"refreshes": <rotate calls>, "requests": <requests to /bearer/<realm>>,
                     "unauthorized": <401s sent>, "valid": <current token>}
  /bearer/<realm>/invalidate
                    makes "<realm>-revoked-<k>" the valid token, answers {"ok": true}
  /slow-count/<key>/<milliseconds>
                    counts requests in flight for key, sleeps, answers {"inFlightAtStart": n}
                    (n includes this request)
  /slow-count-stats/<key>
                    {"max": <most in flight at once>, "total": <requests>, "inFlight": <now>}
  /problem[/<code>] an application/problem+json body with that status (422 by default)

Counters are keyed by the path's <key> or <realm>, so parallel tests don't interfere.
"""

import base64
import email.utils
import hashlib
import re
import datetime
import http.server
import json
import plistlib
import socket
import socketserver
import sys
import threading
import time
import urllib.parse

FIXED_JSON = {"slideshow": {"title": "Sample", "slides": [{"title": "One"}, {"title": "Two"}]}}

PROBLEM = {
    "type": "https://example.com/probs/invalid",
    "title": "Invalid parameters",
    "status": 422,
    "detail": "name must not be empty",
    "errors": [{"field": "name", "reason": "empty"}],
}

# Shared state of the counting endpoints; every entry is keyed by the <key> or <realm> in the
# path (the tests run in parallel against one server), and STATE_LOCK guards all of it.
STATE_LOCK = threading.Lock()
FLAKY_COUNTS = {}        # key -> requests seen on /flaky/<key>/...
RETRY_AFTER_TIMES = {}   # key -> [time.monotonic() of each /retry-after/<key>/... request]
BEARER_REALMS = {}       # realm -> bearer state, see bearer_realm()
SLOW_COUNTS = {}         # key -> {"inFlight", "max", "total"}


def bearer_realm(realm):
    """The state of a bearer realm, created on first use. Call with STATE_LOCK held."""
    state = BEARER_REALMS.get(realm)
    if state is None:
        state = {"valid": f"{realm}-0", "counter": 0, "refreshes": 0, "requests": 0,
                 "statuses": {}}
        BEARER_REALMS[realm] = state
    return state


def multipart_boundary(content_type):
    match = re.search(r'boundary="?([^";]+)"?', content_type)
    return match.group(1).encode() if match else None


def disposition_parameter(disposition, name):
    """A quoted Content-Disposition parameter, with WHATWG's %22, %0D and %0A undone."""
    match = re.search(r';\s*' + name + r'="([^"]*)"', disposition)
    if not match:
        return None
    return match.group(1).replace("%22", '"').replace("%0D", "\r").replace("%0A", "\n")


class MultipartParser:
    """Splits a multipart/form-data body fed in chunks into parts, keeping each part's
    headers, size and SHA-256, and the bytes of parts up to 64 KiB."""

    def __init__(self, boundary):
        self.delimiter = b"\r\n--" + boundary
        self.buffer = b"\r\n"  # the first delimiter has no CRLF before it
        self.parts = []
        self.current = None  # the part whose content is being read
        self.done = False
        self.error = None

    def feed(self, chunk):
        self.buffer += chunk
        while not self.done:
            index = self.buffer.find(self.delimiter)
            if index < 0:
                keep = len(self.delimiter) + 4
                if self.current is not None and len(self.buffer) > keep:
                    self.content(self.buffer[:-keep])
                    self.buffer = self.buffer[-keep:]
                return
            if self.current is not None:
                self.content(self.buffer[:index])
                self.finish()
            elif index != 0:
                self.error = "preamble before the first delimiter"
            rest = self.buffer[index + len(self.delimiter):]
            if len(rest) < 2:
                self.buffer = self.buffer[index:]
                return
            if rest.startswith(b"--"):
                self.done = True
                self.buffer = b""
                return
            end = rest.find(b"\r\n\r\n")
            if end < 0:
                self.buffer = self.buffer[index:]
                return
            head = rest[2:end].decode("utf-8")
            headers = {}
            for line in head.split("\r\n"):
                key, _, value = line.partition(":")
                headers[key.strip().lower()] = value.strip()
            disposition = headers.get("content-disposition", "")
            self.current = {
                "name": disposition_parameter(disposition, "name"),
                "filename": disposition_parameter(disposition, "filename"),
                "contentType": headers.get("content-type"),
                "disposition": disposition,
                "size": 0,
                "hash": hashlib.sha256(),
                "data": bytearray(),
            }
            self.buffer = rest[end + 4:]

    def content(self, data):
        self.current["size"] += len(data)
        self.current["hash"].update(data)
        if len(self.current["data"]) + len(data) <= 65536:
            self.current["data"] += data

    def finish(self):
        part = self.current
        part["sha256"] = part.pop("hash").hexdigest()
        data = part.pop("data")
        part["base64"] = base64.b64encode(data).decode() if len(data) == part["size"] else None
        self.parts.append(part)
        self.current = None

    def result(self):
        if not self.done:
            return {"parts": self.parts, "error": self.error or "no closing delimiter"}
        return {"parts": self.parts, "error": self.error}


def plain(value):
    """Turns a parsed property list into JSON-friendly values, keeping the types visible."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float, str)) or value is None:
        return value
    if isinstance(value, bytes):
        return {"$data": base64.b64encode(value).decode()}
    if isinstance(value, datetime.datetime):
        return {"$date": value.isoformat()}
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return repr(value)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "LoopbackServer/1"
    # Headers and body go out in separate writes; without TCP_NODELAY, Nagle plus delayed ACKs
    # stall every keep-alive response by 40 ms.
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def handle_one_request(self):
        try:
            super().handle_one_request()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int(self.rfile.readline().strip().split(b";")[0], 16)
                if size == 0:
                    self.rfile.readline()
                    break
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            return b"".join(chunks)
        return self.rfile.read(length) if length else b""

    def send(self, status, body, content_type="application/json", headers=()):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def send_json(self, value, status=200):
        self.send(status, json.dumps(value, sort_keys=True).encode())

    def echo(self, body):
        parsed = urllib.parse.urlsplit(self.path)
        content_type = self.headers.get("Content-Type", "")
        echo = {
            "method": self.command,
            "path": parsed.path,
            "query": parsed.query,
            "headers": [[k, v] for k, v in self.headers.items()],
            "body": base64.b64encode(body).decode(),
        }
        try:
            if content_type.startswith("application/x-www-form-urlencoded"):
                echo["form"] = urllib.parse.parse_qsl(body.decode(), keep_blank_values=True)
            elif content_type.startswith("application/json"):
                echo["json"] = json.loads(body)
            elif content_type.startswith("application/x-plist"):
                echo["plist"] = plain(plistlib.loads(body))
            elif content_type.startswith("multipart/form-data"):
                parser = MultipartParser(multipart_boundary(content_type))
                parser.feed(body)
                echo["multipart"] = parser.result()
        except Exception as error:  # report, don't crash: the test reads this
            echo["parseError"] = repr(error)
        self.send_json(echo)

    def send_text(self, status, text, headers=()):
        self.send(status, text.encode(), "text/plain; charset=utf-8", headers)

    def query(self):
        """The query parameters; the last value wins."""
        return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(self.path).query,
                                           keep_blank_values=True))

    def drop_connection(self):
        """Closes the connection without answering."""
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def flaky(self, body, key, n):
        query = self.query()
        with STATE_LOCK:
            attempt = FLAKY_COUNTS.get(key, 0) + 1
            FLAKY_COUNTS[key] = attempt
        if attempt > n:
            return self.echo(body)
        if query.get("close") == "1":
            return self.drop_connection()
        status = int(query["status"]) if query.get("status", "").isdigit() else 503
        self.send_text(status, f"flaky {key} attempt {attempt}")

    def retry_after(self, body, key, seconds):
        now = time.monotonic()
        with STATE_LOCK:
            times = RETRY_AFTER_TIMES.setdefault(key, [])
            first = not times
            times.append(now)
        if not first:
            return self.echo(body)
        if self.query().get("date") == "1":
            value = email.utils.formatdate(time.time() + seconds, usegmt=True)
        else:
            value = str(seconds)
        self.send_text(429, f"retry after {value}", [("Retry-After", value)])

    def basic_auth(self, user, password):
        token = base64.b64encode(f"{user}:{password}".encode("utf-8")).decode("ascii")
        if self.headers.get("Authorization", "") == f"Basic {token}":
            return self.send_json({"authenticated": True, "user": user})
        self.send(401, json.dumps({"authenticated": False}).encode(), "application/json",
                  [("WWW-Authenticate", 'Basic realm="loopback", charset="UTF-8"')])

    def bearer(self, realm, action):
        query = self.query()
        if action == "":
            authorization = self.headers.get("Authorization", "")
            with STATE_LOCK:
                state = bearer_realm(realm)
                valid = state["valid"]
                status = 200 if authorization == f"Bearer {valid}" else 401
                state["requests"] += 1
                state["statuses"][status] = state["statuses"].get(status, 0) + 1
            if status == 200:
                return self.send_json({"token": valid})
            return self.send(401, json.dumps({"error": "invalid_token"}).encode(),
                             "application/json",
                             [("WWW-Authenticate", f'Bearer realm="{realm}"')])
        if action == "rotate":
            try:
                delay = float(query.get("delay") or 0)
            except ValueError:
                delay = 0
            if delay > 0:
                time.sleep(min(delay, 30))
            with STATE_LOCK:
                state = bearer_realm(realm)
                state["refreshes"] += 1
                if query.get("fail") == "1":
                    token = None
                else:
                    state["counter"] += 1
                    token = state["valid"] = f"{realm}-{state['counter']}"
            if token is None:
                return self.send_text(500, "refresh refused")
            return self.send_json({"token": token})
        if action == "stats":
            with STATE_LOCK:
                state = bearer_realm(realm)
                stats = {"refreshes": state["refreshes"], "requests": state["requests"],
                         "unauthorized": state["statuses"].get(401, 0), "valid": state["valid"]}
            return self.send_json(stats)
        if action == "invalidate":
            with STATE_LOCK:
                state = bearer_realm(realm)
                state["valid"] = f"{realm}-revoked-{state['counter']}"
            return self.send_json({"ok": True})
        self.send_text(404, f"no route for {urllib.parse.urlsplit(self.path).path}")

    def slow_count(self, key, milliseconds):
        with STATE_LOCK:
            state = SLOW_COUNTS.setdefault(key, {"inFlight": 0, "max": 0, "total": 0})
            state["inFlight"] += 1
            state["total"] += 1
            state["max"] = max(state["max"], state["inFlight"])
            at_start = state["inFlight"]
        try:
            time.sleep(min(milliseconds / 1000, 30))
        finally:
            with STATE_LOCK:
                state["inFlight"] -= 1
        self.send_json({"inFlightAtStart": at_start})

    def slow_count_stats(self, key):
        with STATE_LOCK:
            state = dict(SLOW_COUNTS.get(key, {"inFlight": 0, "max": 0, "total": 0}))
        self.send_json(state)

    def problem(self, status):
        document = dict(PROBLEM, status=status)
        self.send(status, json.dumps(document, sort_keys=True).encode(), "application/problem+json")

    def upload(self):
        """Reads the body in 1 MiB chunks, keeping only sizes and hashes."""
        content_type = self.headers.get("Content-Type", "")
        boundary = multipart_boundary(content_type) if content_type.startswith("multipart/form-data") else None
        parser = MultipartParser(boundary) if boundary else None
        digest = hashlib.sha256()
        size = 0
        remaining = int(self.headers.get("Content-Length") or 0)
        while remaining > 0:
            chunk = self.rfile.read(min(remaining, 1 << 20))
            if not chunk:
                break
            remaining -= len(chunk)
            size += len(chunk)
            digest.update(chunk)
            if parser:
                parser.feed(chunk)
        answer = {"method": self.command, "size": size, "sha256": digest.hexdigest(),
                  "contentType": content_type}
        if parser:
            answer["multipart"] = parser.result()
        self.send_json(answer)

    def route(self):
        if urllib.parse.urlsplit(self.path).path == "/upload":
            return self.upload()
        body = self.read_body()
        path = urllib.parse.urlsplit(self.path).path
        parts = [p for p in path.split("/") if p]
        head = parts[0] if parts else ""
        arg = parts[1] if len(parts) > 1 else ""
        arg2 = parts[2] if len(parts) > 2 else ""
        if head == "anything":
            self.echo(body)
        elif head == "status" and arg.isdigit():
            code = int(arg)
            self.send(code, f"status {code}".encode(), "text/plain; charset=utf-8")
        elif head == "delay":
            time.sleep(min(float(arg or 0), 30))
            self.echo(body)
        elif head == "redirect" and arg.isdigit():
            n = int(arg)
            if n <= 0:
                self.echo(body)
            else:
                self.send(302, b"", "text/plain", [("Location", f"/redirect/{n - 1}")])
        elif head == "headers":
            self.send_json({"headers": [[k, v] for k, v in self.headers.items()]})
        elif head == "bytes" and arg.isdigit():
            n = min(int(arg), 100 * 1024 * 1024)
            self.send(200, bytes(i % 256 for i in range(n)), "application/octet-stream")
        elif head == "json":
            self.send_json(FIXED_JSON)
        elif head == "close":
            self.drop_connection()
        elif head == "flaky" and len(parts) == 3 and arg2.isdigit():
            self.flaky(body, arg, int(arg2))
        elif head == "flaky-count" and len(parts) == 2:
            with STATE_LOCK:
                count = FLAKY_COUNTS.get(arg, 0)
            self.send_json({"count": count})
        elif head == "retry-after" and len(parts) == 3 and arg2.isdigit():
            self.retry_after(body, arg, int(arg2))
        elif head == "retry-after-times" and len(parts) == 2:
            with STATE_LOCK:
                times = list(RETRY_AFTER_TIMES.get(arg, []))
            self.send_json({"times": times})
        elif head == "basic-auth" and len(parts) in (2, 3):
            # Split the raw path so an empty password (/basic-auth/user/) survives.
            segments = path.split("/")[2:]
            user = urllib.parse.unquote(segments[0])
            password = urllib.parse.unquote(segments[1]) if len(segments) > 1 else ""
            self.basic_auth(user, password)
        elif head == "bearer" and len(parts) in (2, 3):
            self.bearer(arg, arg2)
        elif head == "slow-count" and len(parts) == 3 and re.fullmatch(r"\d+(\.\d*)?", arg2):
            self.slow_count(arg, float(arg2))
        elif head == "slow-count-stats" and len(parts) == 2:
            self.slow_count_stats(arg)
        elif head == "problem" and len(parts) == 1:
            self.problem(422)
        elif head == "problem" and len(parts) == 2 and arg.isdigit():
            self.problem(int(arg))
        else:
            self.send(404, f"no route for {path}".encode(), "text/plain; charset=utf-8")

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = do_QUERY = route


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    request_queue_size = 1024
    allow_reuse_address = True


def main():
    server = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"PORT {server.server_address[1]}", flush=True)
    sys.stdin.read()  # returns when the parent closes our stdin or exits
    server.shutdown()


if __name__ == "__main__":
    main()
