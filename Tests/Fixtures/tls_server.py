#!/usr/bin/env python3
"""HTTP/1.1 over TLS test server for the TLS tests (both transports').

    tls_server.py --cert server.pem --key server.key [--client-ca client-ca.pem]

Listens on 127.0.0.1 only, on an ephemeral port, and prints "PORT <n>" on its first stdout line
once it accepts connections. It exits when its stdin closes, so it never outlives the process
that started it. With --client-ca, every connection must present a certificate that CA signed.
Each connection's TLS handshake runs on that connection's own thread, so a client that never
finishes one holds up no other. Failed handshakes are written to stderr, one line each.

Every response carries "X-Client-Port: <the client's port>", which tells connections apart.

Endpoints:
  /hello          "hello over TLS", text/plain
  /echo           {"method", "path", "query", "contentType", "body"} with the raw query (or
                  "") and the body parsed as JSON (or null when empty), application/json
  /echo-client    {"subject": <the client certificate's subject CN, or null>}
  /connections    {"open": [the client ports of the connections open after their handshake,
                  sorted]}, this one's included
"""

import argparse
import json
import ssl
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):
        pass

    def answer(self, status, body, content_type):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("X-Client-Port", str(self.client_address[1]))
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def answer_json(self, value):
        self.answer(200, json.dumps(value, sort_keys=True).encode(), "application/json")

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        path, _, query = self.path.partition("?")
        if path == "/hello":
            self.answer(200, b"hello over TLS", "text/plain")
        elif path == "/echo":
            self.answer_json({
                "method": self.command,
                "path": path,
                "query": query,
                "contentType": self.headers.get("Content-Type"),
                "body": json.loads(raw) if raw else None,
            })
        elif path == "/echo-client":
            certificate = self.connection.getpeercert() or {}
            names = [value for rdn in certificate.get("subject", ()) for key, value in rdn if key == "commonName"]
            self.answer_json({"subject": names[0] if names else None})
        elif path == "/connections":
            with self.server.lock:
                self.answer_json({"open": sorted(self.server.open_ports)})
        else:
            self.answer(404, b"not found", "text/plain")

    do_GET = do_POST = do_PUT = do_DELETE = handle_any


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address, context):
        super().__init__(address, Handler)
        self.context = context
        self.lock = threading.Lock()
        self.open_ports = set()

    def finish_request(self, request, client_address):
        # On the connection's thread: the handshake, then the requests.
        try:
            connection = self.context.wrap_socket(request, server_side=True)
        except (ssl.SSLError, OSError) as error:
            print(f"handshake failed: {error}", file=sys.stderr, flush=True)
            return
        with self.lock:
            self.open_ports.add(client_address[1])
        try:
            self.RequestHandlerClass(connection, client_address, self)
        except (ssl.SSLError, OSError):
            pass  # the client went away mid-request, or without a close_notify
        finally:
            connection.close()
            with self.lock:
                self.open_ports.discard(client_address[1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--client-ca")
    arguments = parser.parse_args()

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(arguments.cert, arguments.key)
    context.set_alpn_protocols(["http/1.1"])
    if arguments.client_ca:
        context.verify_mode = ssl.CERT_REQUIRED
        context.load_verify_locations(arguments.client_ca)

    server = Server(("127.0.0.1", 0), context)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"PORT {server.server_address[1]}", flush=True)
    sys.stdin.read()
    server.shutdown()


if __name__ == "__main__":
    main()
