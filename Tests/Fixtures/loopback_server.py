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
"""

import base64
import hashlib
import re
import datetime
import http.server
import json
import plistlib
import socketserver
import sys
import threading
import time
import urllib.parse

FIXED_JSON = {"slideshow": {"title": "Sample", "slides": [{"title": "One"}, {"title": "Two"}]}}


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
            self.close_connection = True
            self.connection.shutdown(2)
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
