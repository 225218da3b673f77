#!/usr/bin/env python3
"""A counting ingestion collector for the delivery benchmark (`delivery.py`), standard library
only. The load test uses the package's native `LoadCollector` instead, which does the counting
part of this at a fraction of the CPU beside the server it measures.

Listens on 127.0.0.1 (ephemeral port), prints "PORT <n>" first, and accepts
`POST /v1/batch`: each event's messageId is remembered, so the run can tell delivered,
unique and duplicate events apart without keeping bodies. Events carrying an integer
`properties.seq` are checked for order per write key (`out_of_order` counts a first arrival
whose sequence number is below one seen before). Between `--fail-from` and `--fail-until`
seconds after start it answers 503 (an outage). `GET /_stats` returns the counts as JSON, with
the largest gap between two accepted batches. HTTP/1.1 is parsed by hand.
"""
import argparse
import json
import socket
import socketserver
import sys
import threading
import time

LOCK = threading.Lock()
SEEN = set()
STATS = {"requests": 0, "accepted_batches": 0, "events": 0, "duplicates": 0, "refused": 0, "max_gap_s": 0.0,
         "out_of_order": 0}
LAST_SEQ = {}
STARTED = time.monotonic()
LAST_ACCEPT = [None]
REASONS = {200: b"OK", 400: b"Bad Request", 404: b"Not Found", 405: b"Method Not Allowed", 503: b"Service Unavailable"}


class Handler(socketserver.StreamRequestHandler):
    """HTTP/1.1 with kept connections, parsed by hand: the standard library's header parser
    cost more per batch than the server under test spent on the batch's events."""
    fail_from = 0.0
    fail_until = 0.0

    def setup(self):
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def handle(self):
        while True:
            request_line = self.rfile.readline(65537)
            if not request_line:
                return
            method, path = parse_request_line(request_line)
            length, closing = 0, False
            while True:
                header = self.rfile.readline(65537)
                if header in (b"\r\n", b"\n", b""):
                    break
                name, _, value = header.partition(b":")
                name = name.strip().lower()
                if name == b"content-length":
                    length = int(value.strip() or 0)
                elif name == b"connection" and value.strip().lower() == b"close":
                    closing = True
                elif name == b"expect" and value.strip().lower() == b"100-continue":
                    self.wfile.write(b"HTTP/1.1 100 Continue\r\n\r\n")
            body = self.rfile.read(length) if length else b""
            status, payload = self.respond(method, path, body)
            self.wfile.write(b"HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (
                status, REASONS.get(status, b"Status"), len(payload), payload))
            if closing:
                return

    def respond(self, method, path, body):
        if method == b"GET":
            if path != b"/_stats":
                return 404, b"{}"
            with LOCK:
                payload = dict(STATS, unique=len(SEEN))
            return 200, json.dumps(payload).encode()
        if method != b"POST":
            return 405, b"{}"
        elapsed = time.monotonic() - STARTED
        with LOCK:
            STATS["requests"] += 1
        if self.fail_from <= elapsed < self.fail_until:
            with LOCK:
                STATS["refused"] += 1
            return 503, b"{}"
        parsed = read_batch(body)
        if parsed is None:
            return 400, b"{}"
        ids, sequences = parsed
        now = time.monotonic()
        with LOCK:
            STATS["accepted_batches"] += 1
            STATS["events"] += len(ids)
            count_in_order(ids, sequences)
            if LAST_ACCEPT[0] is not None:
                STATS["max_gap_s"] = max(STATS["max_gap_s"], now - LAST_ACCEPT[0])
            LAST_ACCEPT[0] = now
        return 200, b"{}"


def parse_request_line(line):
    parts = line.split()
    return (parts[0], parts[1]) if len(parts) >= 2 else (b"", b"")


def count_in_order(ids, sequences):
    """Counts each id as new or duplicate and checks each new one's sequence number (under LOCK)."""
    for message_id, (key, sequence) in zip(ids, sequences):
        if message_id in SEEN:
            STATS["duplicates"] += 1
            continue
        SEEN.add(message_id)
        if sequence is not None:
            if sequence < LAST_SEQ.get(key, -1):
                STATS["out_of_order"] += 1
            LAST_SEQ[key] = max(sequence, LAST_SEQ.get(key, -1))


def read_batch(body):
    """(message ids, (write key, sequence) per event), or None for a body that is not a batch."""
    try:
        batch = json.loads(body)["batch"]
        return [event["messageId"] for event in batch], [sequence_of(event) for event in batch]
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def sequence_of(event):
    """(write key, properties.seq) when the event carries an integer sequence number."""
    properties = event.get("properties")
    sequence = properties.get("seq") if isinstance(properties, dict) else None
    if isinstance(sequence, int) and not isinstance(sequence, bool):
        return event.get("writeKey"), sequence
    return None, None


class QuietServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        # A client closing its kept connection mid-read is routine under load, not news.
        if not isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            super().handle_error(request, client_address)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fail-from", type=float, default=0.0)
    parser.add_argument("--fail-until", type=float, default=0.0)
    args = parser.parse_args()
    Handler.fail_from = args.fail_from
    Handler.fail_until = args.fail_until
    server = QuietServer(("127.0.0.1", 0), Handler)
    print(f"PORT {server.server_address[1]}", flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        sys.stdin.read()
    except KeyboardInterrupt:
        pass
    server.shutdown()


if __name__ == "__main__":
    main()
