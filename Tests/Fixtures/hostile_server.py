#!/usr/bin/env python3
"""A fault-injecting HTTP/1.1 server for the hostile-server tests and `Benchmarks --hostile`.

Listens on 127.0.0.1 only, on an ephemeral port, prints "PORT <n>" once it accepts connections
and exits when its stdin closes, like loopback_server.py. It speaks HTTP with raw sockets, so it
can send what a well-behaved server library never would. Each path is one fault:

  /ok                 200 "ok", Content-Length set, connection kept alive (the control case)
  /reset-in-head      half a status line and header, then a TCP reset
  /reset-in-body      Content-Length 100000, 1000 bytes, then a TCP reset
  /close-in-body      Content-Length 100000 (longer than the body), 1000 bytes, then FIN
  /short-length       Content-Length 5 (shorter than the body), 26 bytes, then FIN
  /truncated-chunked  chunked: one chunk, then FIN without the last chunk
  /bad-chunk-size     chunked: a chunk size "zz"
  /huge-chunk-size    chunked: a chunk size of 20 hex digits (more than 64 bits)
  /stall-after-head   Content-Length 100, then nothing until the client goes away
  /stall-in-body      Content-Length 100, 10 bytes, then nothing
  /long-header        a 1 MiB header line
  /many-headers       100,000 headers (?n=<count> for another count)
  /informational      "100 Continue", then nothing
  /informational-then-ok
                      "100 Continue", "102 Processing", then 200 "ok" (a legal response)
  /informational-drip "102 Processing" every 100 ms, never a final status
  /keep-alive-close   200 "closing", keep-alive headers, then closes the connection 50 ms later
  /not-http           a line that is not HTTP, then FIN
  /bad-status         "HTTP/1.1 abc OK"
  /no-response        reads the request, then FIN without a byte

Every stalling handler returns as soon as the client closes its side, and after 60 s at most.
"""

import select
import socket
import socketserver
import struct
import time

from loopback_server import serve_until_stdin_closes

STALL_LIMIT = 60.0


def reset(connection):
    """Closes with SO_LINGER 0, so the peer sees a TCP reset instead of an orderly FIN."""
    connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    connection.close()


def wait_for_close(connection, limit=STALL_LIMIT):
    """Reads and drops whatever arrives until the peer closes or `limit` seconds pass."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        ready, _, _ = select.select([connection], [], [], 0.2)
        if ready:
            try:
                if not connection.recv(65536):
                    return
            except OSError:
                return


def head(status="200 OK", headers=()):
    lines = [f"HTTP/1.1 {status}"] + [f"{name}: {value}" for name, value in headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


class Handler(socketserver.BaseRequestHandler):
    def read_request(self, buffer):
        """Reads one request head (and a Content-Length body). Returns (path, rest) or None."""
        while b"\r\n\r\n" not in buffer:
            chunk = self.request.recv(65536)
            if not chunk:
                return None
            buffer += chunk
        head_bytes, _, rest = buffer.partition(b"\r\n\r\n")
        lines = head_bytes.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ")
        path = parts[1] if len(parts) > 1 else "/"
        length = 0
        for line in lines[1:]:
            name, _, value = line.partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip() or "0")
        while len(rest) < length:
            chunk = self.request.recv(65536)
            if not chunk:
                return None
            rest += chunk
        return path, rest[length:]

    def handle(self):
        buffer = b""
        try:
            while True:
                request = self.read_request(buffer)
                if request is None:
                    return
                target, buffer = request
                path, _, query = target.partition("?")
                keep_going = self.answer(path, query)
                if not keep_going:
                    return
        except OSError:
            return

    def answer(self, path, query):
        """Answers one request; returns True when the connection stays open for another."""
        send = self.request.sendall
        connection = self.request
        if path == "/ok":
            send(head(headers=[("Content-Length", "2"), ("Content-Type", "text/plain")]) + b"ok")
            return True
        if path == "/too-large":
            # Answers at once, before any of a request body, with an empty 413, and closes.
            send(head("413 Content Too Large", [("Content-Length", "0"), ("Connection", "close")]))
            return False
        if path == "/reset-in-head":
            send(b"HTTP/1.1 200 OK\r\nContent-Ty")
            time.sleep(0.05)
            reset(connection)
            return False
        if path == "/reset-in-body":
            send(head(headers=[("Content-Length", "100000")]) + b"x" * 1000)
            time.sleep(0.05)
            reset(connection)
            return False
        if path == "/close-in-body":
            send(head(headers=[("Content-Length", "100000")]) + b"x" * 1000)
            return False
        if path == "/short-length":
            send(head(headers=[("Content-Length", "5")]) + b"hello, and 20 bytes more.")
            return False
        if path == "/truncated-chunked":
            send(head(headers=[("Transfer-Encoding", "chunked")]) + b"5\r\nhello\r\n")
            return False
        if path == "/bad-chunk-size":
            send(head(headers=[("Transfer-Encoding", "chunked")]) + b"zz\r\nhello\r\n0\r\n\r\n")
            wait_for_close(connection, 5)
            return False
        if path == "/huge-chunk-size":
            send(head(headers=[("Transfer-Encoding", "chunked")]) + b"fffffffffffffffffffff\r\nhello\r\n")
            wait_for_close(connection, 5)
            return False
        if path == "/stall-after-head":
            send(head(headers=[("Content-Length", "100")]))
            wait_for_close(connection)
            return False
        if path == "/stall-in-body":
            send(head(headers=[("Content-Length", "100")]) + b"0123456789")
            wait_for_close(connection)
            return False
        if path == "/long-header":
            send(head(headers=[("X-Long", "a" * (1 << 20)), ("Content-Length", "2")]) + b"ok")
            wait_for_close(connection, 5)
            return False
        if path == "/many-headers":
            count = int(query[2:]) if query.startswith("n=") else 100_000
            headers = [(f"X-H{i}", "v") for i in range(count)] + [("Content-Length", "2")]
            send(head(headers=headers) + b"ok")
            wait_for_close(connection, 5)
            return False
        if path == "/informational":
            send(head("100 Continue"))
            wait_for_close(connection)
            return False
        if path == "/informational-then-ok":
            send(head("100 Continue"))
            time.sleep(0.05)
            send(head("102 Processing") + head(headers=[("Content-Length", "2")]) + b"ok")
            return True
        if path == "/informational-drip":
            end = time.monotonic() + STALL_LIMIT
            while time.monotonic() < end:
                send(head("102 Processing"))
                ready, _, _ = select.select([connection], [], [], 0.1)
                if ready and not connection.recv(65536):
                    break
            return False
        if path == "/keep-alive-close":
            send(head(headers=[("Content-Length", "7"), ("Connection", "keep-alive"),
                               ("Keep-Alive", "timeout=60")]) + b"closing")
            time.sleep(0.05)
            return False
        if path == "/not-http":
            send(b"SSH-2.0-OpenSSH_9.2 this is not HTTP\r\n")
            return False
        if path == "/bad-status":
            send(b"HTTP/1.1 abc OK\r\nContent-Length: 2\r\n\r\nok")
            return False
        if path == "/no-response":
            return False
        send(head("404 Not Found", [("Content-Length", "0")]))
        return True


class Server(socketserver.ThreadingMixIn, socketserver.TCPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 256


def main():
    serve_until_stdin_closes(Server(("127.0.0.1", 0), Handler))


if __name__ == "__main__":
    main()
