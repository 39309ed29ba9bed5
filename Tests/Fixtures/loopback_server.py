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
  /gzip, /deflate   answer like /anything, with the JSON compressed and Content-Encoding set
                    (deflate is the zlib format, as RFC 9110 names it); Content-Length is the
                    compressed length
  /zeros/<n>        n zero bytes gzip-compressed on the fly (a decompression bomb for a large n:
                    50 MB become about 50 KB), chunked, Content-Encoding: gzip; stops when the
                    client goes away
  /json             a fixed JSON document
  /close            drops the connection without answering
  /flaky/<key>/<n>  the first n requests for key answer 503, body "flaky <key> attempt <i>"
                    (i from 1); later ones answer like /anything. ?status=<code> replaces
                    503; ?close=1 drops the connection instead of answering for those n
  /sim/<key>?latency=<lo>-<hi>&stall=<p>&stall_for=<s>&fail=<p>&seed=<n>, /sim-count/<key>
                    scripted latency, stalls and failures: see sim_routes.py
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
  /digest-auth/<qop>/<user>/<pass>/<algorithm>
                    HTTP Digest (RFC 7616), its realm "loopback": 200 {"authenticated": true,
                    "user", "nc", "algorithm", "challenges"} for a right answer to a nonce it
                    issued, else 401 with a fresh challenge (and stale=true when the answer was
                    right but its nonce is past ?stale_after=<n> uses); qop "auth" or "none"
                    (RFC 2069: no qop); algorithm MD5, MD5-sess, SHA-256, SHA-256-sess, or "both"
                    (an MD5 and a SHA-256 challenge, MD5 first); "challenges" counts the 401s
                    sent for that user (also in the 401's body, {"authenticated": false, "challenges"})
  /bearer/<realm>   200 {"token": <token>} for "Authorization: Bearer <valid token>", else
                    401 {"error": "invalid_token"} with a Bearer challenge; the valid token
                    starts as "<realm>-0"; ?hold=<n> holds each 401 until n of them are
                    waiting (at most 30 s), so that n concurrent requests all meet the old token
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
  /stream/<n>       n JSON lines {"id": i, "line": "line i"} (i from 0), chunked, one chunk
                    per line, flushed; ?delay_ms=<m> waits m ms before each line after the first
  /sse              text/event-stream: SSE_CHUNKS (comments, retry, ids, multi-line data, CR,
                    CR LF and LF line ends, a line split across chunks), chunked, one chunk each;
                    ?repeat=<k> sends them k times
  /eventsource/<name>?plan=..., /eventsource-log/<name>
                    event streams that end, break and change between connections, and what
                    each connection sent: see eventsource_routes.py
  /drip/<key>?bytes=<n>&chunk=<c>&interval_ms=<m>&length=1
                    n bytes (byte i is i % 256) in chunks of c (1024), m ms apart (50), chunked,
                    or with Content-Length when length=1 (as httpbin's /drip); stops when the
                    client goes away
  /drip-stats/<key> {"started", "sent": <bytes written>, "finished", "aborted": <client went away>}
  /range/<n>        n bytes (byte i is i % 256) with Accept-Ranges and an ETag; honours one
                    Range (a-b, a-, -s) with 206 and Content-Range, 416 when unsatisfiable;
                    ?norange=1 ignores Range; ?cut=<k> drops the connection after k body bytes;
                    ?key=<k> records the Range header (or null) of each request;
                    ?filename=<f> adds Content-Disposition: attachment; filename="<f>";
                    ?etag=<e> makes the ETag "<e>"; an If-Range that does not match it
                    makes the Range ignored
  /range-log/<key>  {"ranges": [...]}
  /blob/<n>         n bytes (byte i is i % 256) as fast as possible, Content-Length set;
                    ?chunked=1 sends them chunked
  /redirect-to?url=<u>&status=<code>
                    that status (302) with Location: u and an empty body; ?count=<key> counts
                    the request for key
  /redirect-count/<key>
                    {"count": <requests to /redirect-to?count=<key>>}
  /login-flow       without the cookie seen=1: 302 to /cookies/set?seen=1&redirect=/login-flow,
                    which sets it and comes back; with it: answers like /anything
  /redirect-loop/<n>
                    302 to /redirect-loop/<(n + 1) % 2>: a loop of two
  /cookies          {"cookies": {name: value}} from the Cookie header
  /cookies/set?name=value&...
                    one Set-Cookie (Path=/) per parameter, answers {"cookies": {...set}};
                    with redirect=<url>, answers 302 to it instead
  /cookies/delete?name&...
                    expires those cookies, answers like /cookies

Counters are keyed by the path's <key> or <realm>, so parallel tests don't interfere.
"""

import base64
import email.utils
import hashlib
import re
import datetime
import gzip
import http.server
import json
import plistlib
import socket
import socketserver
import sys
import threading
import time
import urllib.parse
import urllib.request
import os
import zlib

import eventsource_routes
import sim_routes

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
BEARER_HELD = threading.Condition(STATE_LOCK)  # wakes requests held by /bearer/<realm>?hold=n
FLAKY_COUNTS = {}        # key -> requests seen on /flaky/<key>/...
SCRIPTS = {}             # id -> {"answers": [...], "log": [...]}, see scripted()
RETRY_AFTER_TIMES = {}   # key -> [time.monotonic() of each /retry-after/<key>/... request]
BEARER_REALMS = {}       # realm -> bearer state, see bearer_realm()
SLOW_COUNTS = {}         # key -> {"inFlight", "max", "total"}
DRIPS = {}               # key -> {"started", "sent", "finished", "aborted"}
RANGE_LOGS = {}          # key -> [Range header or None of each /range/<n>?key=<key> request]
REDIRECT_COUNTS = {}     # key -> requests to /redirect-to?count=<key>

# 256 KiB of the byte pattern i % 256; it repeats exactly since 256 KiB is a multiple of 256.
PATTERN = bytes(i % 256 for i in range(256 * 1024))
# PATTERN as one chunk of a chunked body, so /blob?chunked=1 needs one write per chunk.
PATTERN_CHUNK = b"%x\r\n" % len(PATTERN) + PATTERN + b"\r\n"

# The fixed /sse stream, in three chunks: the first cut falls inside a line ("na|me\r\n"), the
# second between a line and its CR ("cr only|\r"), so the next chunk starts with CR CR.
SSE_CHUNKS = [
    b": this is a comment\n"
    b"retry: 2500\n"
    b"\n"
    b"id: 1\n"
    b"event: greeting\n"
    b"data: hello\n"
    b"data: world\n"
    b"\n"
    b"data: no event na",
    b"me\r\n"
    b"id: 2\r\n"
    b"\r\n"
    b"data:  leading space kept after the first\n"
    b"data\n"
    b"\n"
    b"event: ignored-without-data\n"
    b"\n"
    b"id: 3\r"
    b"data: cr only",
    b"\r"
    b"\r"
    b"unknown: field\n"
    b"data: last\n"
    b"\n"
    b"data: unterminated at end of stream\n",
]


def pattern(offset, length):
    """length bytes of the i % 256 pattern starting at offset, built from PATTERN slices."""
    parts = []
    position = offset % len(PATTERN)
    while length > 0:
        take = min(length, len(PATTERN) - position)
        parts.append(PATTERN[position:position + take])
        length -= take
        position = 0
    return b"".join(parts)


def bearer_realm(realm):
    """The state of a bearer realm, created on first use. Call with STATE_LOCK held."""
    state = BEARER_REALMS.get(realm)
    if state is None:
        state = {"valid": f"{realm}-0", "counter": 0, "refreshes": 0, "requests": 0,
                 "statuses": {}, "held": 0}
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


# Digest nonces issued: nonce -> the highest nonce count answered (0 before any); challenges per user.
DIGEST_LOCK = threading.Lock()
DIGEST_NONCES = {}
DIGEST_CHALLENGES = {}


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
        self.send_json(self.echo_value(body))

    def echo_value(self, body):
        """What /anything answers, as a dict."""
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
        return echo

    def compressed_echo(self, body, encoding):
        """Answers like /anything, the JSON compressed with gzip or zlib (HTTP's deflate)."""
        data = json.dumps(self.echo_value(body), sort_keys=True).encode()
        data = gzip.compress(data) if encoding == "gzip" else zlib.compress(data)
        self.send(200, data, "application/json", [("Content-Encoding", encoding)])

    def zeros(self, n):
        """n zero bytes, gzip-compressed a MiB at a time as they are sent."""
        if not self.start_chunked(200, "application/octet-stream", [("Content-Encoding", "gzip")]):
            return
        compressor = zlib.compressobj(6, zlib.DEFLATED, 31)  # 31: the gzip format
        block = bytes(1 << 20)
        made = 0
        try:
            while made < n:
                take = min(len(block), n - made)
                self.send_chunk(compressor.compress(block[:take]))
                made += take
            self.send_chunk(compressor.flush())
            self.end_chunks()
        except OSError:
            self.close_connection = True

    def send_text(self, status, text, headers=()):
        self.send(status, text.encode(), "text/plain; charset=utf-8", headers)

    def query(self):
        """The query parameters; the last value wins."""
        return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(self.path).query,
                                           keep_blank_values=True))

    def number(self, query, name, default):
        """The query parameter name as a non-negative int or float, default when absent or bad."""
        try:
            value = float(query[name])
        except (KeyError, ValueError):
            return default
        if not value >= 0 or value == float("inf"):
            return default
        return int(value) if value.is_integer() else value

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

    def digest_auth(self, qop, user, password, algorithm):
        query = self.query()
        stale_after = int(query.get("stale_after") or 0)
        realm = "loopback"
        offered = ["MD5", "SHA-256"] if algorithm == "both" else [algorithm]
        hashes = {"MD5": hashlib.md5, "SHA-256": hashlib.sha256}
        answer = self.headers.get("Authorization", "")
        stale = False
        if answer.startswith("Digest "):
            fields = urllib.request.parse_keqv_list(urllib.request.parse_http_list(answer[len("Digest "):]))
            named = fields.get("algorithm", "MD5")
            base = named.upper().replace("-SESS", "")
            hash_name = {"MD5": "MD5", "SHA-256": "SHA-256"}.get(base)
            nonce = fields.get("nonce", "")
            with DIGEST_LOCK:
                uses = DIGEST_NONCES.get(nonce)
            if hash_name and named.upper() in [a.upper() for a in offered] and uses is not None:
                def h(text):
                    return hashes[hash_name](text.encode("utf-8")).hexdigest()
                ha1 = h(f"{user}:{realm}:{password}")
                if named.upper().endswith("-SESS"):
                    ha1 = h(f"{ha1}:{nonce}:{fields.get('cnonce', '')}")
                ha2 = h(f"{self.command}:{fields.get('uri', '')}")
                if qop == "none":
                    expected = h(f"{ha1}:{nonce}:{ha2}")
                else:
                    expected = h(f"{ha1}:{nonce}:{fields.get('nc', '')}:{fields.get('cnonce', '')}:{fields.get('qop', '')}:{ha2}")
                count = int(fields.get("nc", "0") or "0", 16) if qop != "none" else uses + 1
                right = (fields.get("username") == user and fields.get("uri") == self.path
                         and fields.get("response") == expected and count > uses
                         and (qop == "none" or fields.get("qop") == "auth"))
                if right and stale_after and uses >= stale_after:
                    stale = True
                elif right:
                    with DIGEST_LOCK:
                        DIGEST_NONCES[nonce] = count
                        challenges = DIGEST_CHALLENGES.get(user, 0)
                    return self.send_json({"authenticated": True, "user": user, "nc": fields.get("nc"),
                                           "algorithm": named, "challenges": challenges})
        headers = []
        for name in offered:
            nonce = base64.b64encode(os.urandom(18)).decode("ascii")
            with DIGEST_LOCK:
                DIGEST_NONCES[nonce] = 0
            parts = [f'realm="{realm}"', f'nonce="{nonce}"', 'opaque="0pa9ue"', f"algorithm={name}"]
            if qop != "none":
                parts.append('qop="auth"')
            if stale:
                parts.append("stale=true")
            headers.append(("WWW-Authenticate", "Digest " + ", ".join(parts)))
        with DIGEST_LOCK:
            DIGEST_CHALLENGES[user] = DIGEST_CHALLENGES.get(user, 0) + 1
            challenges = DIGEST_CHALLENGES[user]
        self.send(401, json.dumps({"authenticated": False, "challenges": challenges}).encode(), "application/json", headers)

    def bearer(self, realm, action):
        query = self.query()
        if action == "":
            authorization = self.headers.get("Authorization", "")
            try:
                hold = int(query.get("hold") or 0)
            except ValueError:
                hold = 0
            with BEARER_HELD:
                state = bearer_realm(realm)
                valid = state["valid"]
                status = 200 if authorization == f"Bearer {valid}" else 401
                state["requests"] += 1
                state["statuses"][status] = state["statuses"].get(status, 0) + 1
                if status == 401 and hold > 0:
                    # A barrier: no 401 is answered (so no refresh starts) before `hold` of them
                    # are waiting; then every held request is answered at once.
                    state["held"] += 1
                    BEARER_HELD.notify_all()
                    BEARER_HELD.wait_for(lambda: state["held"] >= hold, timeout=30)
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

    # Streaming endpoints

    def start_chunked(self, status, content_type, headers=()):
        """Sends the headers of a chunked response; False for HEAD, which gets no body."""
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Transfer-Encoding", "chunked")
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        return self.command != "HEAD"

    def send_chunk(self, data):
        """Writes data as one chunk and flushes; an empty chunk would end the body, so it is skipped."""
        if data:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()

    def end_chunks(self):
        """Writes the last chunk (no trailers)."""
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def stream_lines(self, n):
        delay = self.number(self.query(), "delay_ms", 0) / 1000
        if not self.start_chunked(200, "application/x-ndjson"):
            return
        for i in range(min(n, 100000)):
            if i and delay:
                time.sleep(delay)
            self.send_chunk((json.dumps({"id": i, "line": f"line {i}"}, sort_keys=True) + "\n").encode())
        self.end_chunks()

    def sse(self):
        repeat = int(self.number(self.query(), "repeat", 1))
        if not self.start_chunked(200, "text/event-stream", [("Cache-Control", "no-cache")]):
            return
        for _ in range(repeat):
            for chunk in SSE_CHUNKS:
                self.send_chunk(chunk)
        self.end_chunks()

    def drip(self, key):
        query = self.query()
        total = int(self.number(query, "bytes", 1024))
        size = max(1, int(self.number(query, "chunk", 1024)))
        interval = self.number(query, "interval_ms", 50) / 1000
        state = {"started": True, "sent": 0, "finished": False, "aborted": False}
        with STATE_LOCK:
            DRIPS[key] = state
        announced = query.get("length") == "1"
        if announced:
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(total))
            self.end_headers()
            if self.command == "HEAD":
                return
        elif not self.start_chunked(200, "application/octet-stream"):
            return
        sent = 0
        try:
            while sent < total:
                if sent and interval:
                    time.sleep(interval)
                data = pattern(sent, min(size, total - sent))
                if announced:
                    self.wfile.write(data)
                    self.wfile.flush()
                else:
                    self.send_chunk(data)
                sent += len(data)
                with STATE_LOCK:
                    state["sent"] = sent
            if not announced:
                self.end_chunks()
            with STATE_LOCK:
                state["finished"] = True
        except OSError:
            with STATE_LOCK:
                state["aborted"] = True
            self.close_connection = True

    def drip_stats(self, key):
        with STATE_LOCK:
            state = dict(DRIPS.get(key, {"started": False, "sent": 0, "finished": False, "aborted": False}))
        self.send_json(state)

    def write_pattern(self, offset, length, block=64 * 1024):
        """Writes length pattern bytes from offset; False when the client went away."""
        try:
            while length > 0:
                take = min(block, length)
                self.wfile.write(pattern(offset, take))
                offset += take
                length -= take
            return True
        except OSError:
            self.close_connection = True
            return False

    def range(self, n):
        query = self.query()
        n = min(n, 512 * 1024 * 1024)
        header = self.headers.get("Range")
        if query.get("key"):
            with STATE_LOCK:
                RANGE_LOGS.setdefault(query["key"], []).append(header)
        start, end = 0, n - 1
        status = 200
        etag = '"%s"' % query["etag"] if query.get("etag") else f'"range-{n}"'
        if_range = self.headers.get("If-Range")
        if if_range is not None and if_range.strip() != etag:
            header = None  # RFC 9110 13.1.5: a changed representation is sent whole
        match = re.fullmatch(r"bytes=(\d*)-(\d*)", header.strip()) if header and query.get("norange") != "1" else None
        first, last = match.groups() if match else ("", "")
        # A range without numbers or with last < first is invalid, so the header is ignored.
        if (first or last) and not (first and last and int(last) < int(first)):
            if first:
                start = int(first)
                end = min(int(last), n - 1) if last else n - 1
            else:
                start = max(0, n - int(last))
            if start >= n:
                return self.send(416, b"", "text/plain", [("Content-Range", f"bytes */{n}")])
            status = 206
        length = end - start + 1 if n else 0
        self.send_response(status)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(length))
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("ETag", etag)
        if status == 206:
            self.send_header("Content-Range", f"bytes {start}-{end}/{n}")
        if query.get("filename"):
            self.send_header("Content-Disposition", f'attachment; filename="{query["filename"]}"')
        self.end_headers()
        if self.command == "HEAD":
            return
        cut = self.number(query, "cut", None)
        if cut is not None and int(cut) < length:
            if self.write_pattern(start, int(cut)):
                self.wfile.flush()
                self.drop_connection()
            return
        self.write_pattern(start, length)

    def blob(self, n):
        n = min(n, 8 * 1024 * 1024 * 1024)
        chunked = self.query().get("chunked") == "1"
        if chunked:
            self.start_chunked(200, "application/octet-stream")
        else:
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(n))
            self.end_headers()
        if self.command == "HEAD":
            return
        sent = 0
        try:
            while sent < n:
                take = min(len(PATTERN), n - sent)
                if take == len(PATTERN):
                    self.wfile.write(PATTERN_CHUNK if chunked else PATTERN)
                elif chunked:
                    self.wfile.write(b"%x\r\n%s\r\n" % (take, PATTERN[:take]))
                else:
                    self.wfile.write(PATTERN[:take])
                sent += take
            if chunked:
                self.end_chunks()
        except OSError:
            self.close_connection = True

    def redirect_to(self):
        query = self.query()
        if "count" in query:
            with STATE_LOCK:
                REDIRECT_COUNTS[query["count"]] = REDIRECT_COUNTS.get(query["count"], 0) + 1
        status = int(query["status"]) if query.get("status", "").isdigit() else 302
        self.send(status, b"", "text/plain", [("Location", query.get("url", "/"))])

    def scripted(self, key, body):
        """Answers /script/<id>[/...] with the answers a test set with POST /script-set/<id>, in turn,
        the last repeating: each {"status", "headers": [[name, value]], "body", "drop", "delay"}.
        Written as given: no Date or Server field is added, so a test sets the times it reads.
        Every request is logged for /script-log/<id>."""
        with STATE_LOCK:
            script = SCRIPTS.setdefault(key, {"answers": [], "log": []})
            index = len(script["log"])
            script["log"].append({"method": self.command, "path": self.path,
                                  "headers": [[k, v] for k, v in self.headers.items()]})
            answers = script["answers"]
            answer = answers[min(index, len(answers) - 1)] if answers else {"status": 404}
        if answer.get("delay"):
            time.sleep(min(float(answer["delay"]), 30))
        if answer.get("drop"):
            return self.drop_connection()
        status = int(answer.get("status", 200))
        payload = answer.get("body", "").encode()
        self.send_response_only(status)
        names = set()
        for name, value in answer.get("headers", []):
            names.add(name.lower())
            self.send_header(name, value)
        bodiless = status in (204, 304) or status < 200
        if not bodiless and "content-length" not in names:
            self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if self.command != "HEAD" and not bodiless:
            self.wfile.write(payload)

    def cookie_jar(self):
        jar = {}
        for header in self.headers.get_all("Cookie") or []:
            for pair in header.split(";"):
                name, _, value = pair.strip().partition("=")
                if name:
                    jar[name] = value
        return jar

    def cookies(self, action):
        pairs = urllib.parse.parse_qsl(urllib.parse.urlsplit(self.path).query, keep_blank_values=True)
        if action == "set":
            redirect = None
            headers = []
            cookies = {}
            for name, value in pairs:
                if name == "redirect":
                    redirect = value
                    continue
                headers.append(("Set-Cookie", f"{name}={value}; Path=/"))
                cookies[name] = value
            if redirect is not None:
                return self.send(302, b"", "text/plain", headers + [("Location", redirect)])
            return self.send(200, json.dumps({"cookies": cookies}, sort_keys=True).encode(), "application/json", headers)
        if action == "delete":
            headers = [("Set-Cookie", f"{name}=; Path=/; Max-Age=0") for name, _ in pairs]
            return self.send(200, json.dumps({"cookies": self.cookie_jar()}, sort_keys=True).encode(), "application/json", headers)
        self.send_json({"cookies": self.cookie_jar()})

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
        elif head in ("gzip", "deflate") and len(parts) == 1:
            self.compressed_echo(body, head)
        elif head == "zeros" and arg.isdigit():
            self.zeros(min(int(arg), 8 * 1024 * 1024 * 1024))
        elif head == "json":
            self.send_json(FIXED_JSON)
        elif head == "close":
            self.drop_connection()
        elif head == "flaky" and len(parts) == 3 and arg2.isdigit():
            self.flaky(body, arg, int(arg2))
        elif head == "sim" and len(parts) == 2:
            sim_routes.handle(self, arg, urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query))
        elif head == "sim-count" and len(parts) == 2:
            sim_routes.reply_counts(self, arg)
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
        elif head == "digest-auth" and len(parts) == 5:
            self.digest_auth(arg, urllib.parse.unquote(arg2), urllib.parse.unquote(parts[3]), parts[4])
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
        elif head == "stream" and arg.isdigit():
            self.stream_lines(int(arg))
        elif head == "sse" and len(parts) == 1:
            self.sse()
        elif head == "eventsource" and len(parts) == 2:
            eventsource_routes.handle(self, arg, urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query), body)
        elif head == "eventsource-log" and len(parts) == 2:
            self.send_json(eventsource_routes.log(arg))
        elif head == "drip" and len(parts) == 2:
            self.drip(arg)
        elif head == "drip-stats" and len(parts) == 2:
            self.drip_stats(arg)
        elif head == "range" and arg.isdigit():
            self.range(int(arg))
        elif head == "range-log" and len(parts) == 2:
            with STATE_LOCK:
                ranges = list(RANGE_LOGS.get(arg, []))
            self.send_json({"ranges": ranges})
        elif head == "blob" and arg.isdigit():
            self.blob(int(arg))
        elif head == "redirect-to" and len(parts) == 1:
            self.redirect_to()
        elif head == "redirect-count" and len(parts) == 2:
            with STATE_LOCK:
                count = REDIRECT_COUNTS.get(arg, 0)
            self.send_json({"count": count})
        elif head == "login-flow" and len(parts) == 1:
            if self.cookie_jar().get("seen") == "1":
                self.echo(body)
            else:
                self.send(302, b"", "text/plain", [("Location", "/cookies/set?seen=1&redirect=/login-flow")])
        elif head == "redirect-loop" and arg.isdigit():
            self.send(302, b"", "text/plain", [("Location", f"/redirect-loop/{(int(arg) + 1) % 2}")])
        elif head == "script" and len(parts) >= 2:
            self.scripted(arg, body)
        elif head == "script-set" and len(parts) == 2:
            with STATE_LOCK:
                SCRIPTS[arg] = {"answers": json.loads(body or b"[]"), "log": []}
            self.send_json({"ok": True})
        elif head == "script-log" and len(parts) == 2:
            with STATE_LOCK:
                log = list(SCRIPTS.get(arg, {"log": []})["log"])
            self.send_json({"requests": log})
        elif head == "cookies" and len(parts) in (1, 2) and arg in ("", "set", "delete"):
            self.cookies(arg)
        else:
            self.send(404, f"no route for {path}".encode(), "text/plain; charset=utf-8")

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = do_QUERY = route


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    request_queue_size = 1024
    allow_reuse_address = True


def serve_until_stdin_closes(server):
    """Serves on a thread, prints "PORT <n>", and stops when the parent closes our stdin or exits."""
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"PORT {server.server_address[1]}", flush=True)
    sys.stdin.read()
    server.shutdown()


def main():
    serve_until_stdin_closes(Server(("127.0.0.1", 0), Handler))


if __name__ == "__main__":
    main()
