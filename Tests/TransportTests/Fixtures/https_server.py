#!/usr/bin/env python3
"""A minimal HTTPS endpoint for the transport's TLS tests.

Usage: https_server.py CERT_PEM KEY_PEM
Binds 127.0.0.1 on an ephemeral port, prints the port on the first line of stdout, then answers every
GET with `200 secure` until stdin closes (the test ends) or it is terminated.
"""
import http.server
import ssl
import sys
import threading


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        body = b"secure"
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def main():
    cert, key = sys.argv[1], sys.argv[2]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(server.server_address[1], flush=True)
    sys.stdin.read()  # returns when the test closes our stdin
    server.shutdown()


if __name__ == "__main__":
    main()
