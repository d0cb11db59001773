"""A small authoritative DNS server for tests (dnslib): answers from a JSON zone file read on every query, so a test
can change its records between lookups. UDP and TCP on one port of 127.0.0.1; prints `PORT <n>` once listening.

Zone file: {"<name>.": {"TXT": [["string", ...], ...], "A": ["192.0.2.1"], "rcode": "SERVFAIL", "drop": true}}
A name absent from the file is NXDOMAIN; "rcode" answers that code; "drop" never answers (a timeout).
Usage: python zone.py ZONE_FILE [PORT]
"""

import json
import socket
import socketserver
import struct
import sys
import threading

from dnslib import QTYPE, RCODE, RR, A, DNSRecord, TXT


def answer(data, zone_file):
    request = DNSRecord.parse(data)
    reply = request.reply()
    with open(zone_file, encoding="utf-8") as f:
        zone = json.load(f)
    qname = str(request.q.qname).lower()
    entry = zone.get(qname)
    if entry is None:
        reply.header.rcode = RCODE.NXDOMAIN
    elif entry.get("drop"):
        return None
    elif entry.get("rcode"):
        reply.header.rcode = getattr(RCODE, entry["rcode"])
    else:
        if request.q.qtype == QTYPE.TXT:
            for strings in entry.get("TXT", []):
                reply.add_answer(RR(qname, QTYPE.TXT, rdata=TXT([s.encode() for s in strings]), ttl=60))
        if request.q.qtype == QTYPE.A:
            for address in entry.get("A", []):
                reply.add_answer(RR(qname, QTYPE.A, rdata=A(address), ttl=60))
    return reply.pack()


class Udp(socketserver.BaseRequestHandler):
    def handle(self):
        data, sock = self.request
        out = answer(data, self.server.zone_file)
        if out is not None:
            sock.sendto(out, self.client_address)


class Tcp(socketserver.BaseRequestHandler):
    def handle(self):
        head = self.request.recv(2)
        if len(head) < 2:
            return
        (length,) = struct.unpack("!H", head)
        data = b""
        while len(data) < length:
            chunk = self.request.recv(length - len(data))
            if not chunk:
                return
            data += chunk
        out = answer(data, self.server.zone_file)
        if out is not None:
            self.request.sendall(struct.pack("!H", len(out)) + out)


class UdpServer(socketserver.ThreadingMixIn, socketserver.UDPServer):
    daemon_threads = True


class TcpServer(socketserver.ThreadingMixIn, socketserver.TCPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    zone_file = sys.argv[1]
    wanted = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    for _ in range(20):
        udp = UdpServer(("127.0.0.1", wanted), Udp)
        port = udp.server_address[1]
        try:
            tcp = TcpServer(("127.0.0.1", port), Tcp)
            break
        except OSError:
            udp.server_close()
            if wanted:
                raise
    else:
        raise SystemExit("no port free for both UDP and TCP")
    for server in (udp, tcp):
        server.zone_file = zone_file
        threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"PORT {port}", flush=True)
    try:
        sys.stdin.read()  # Runs until the test closes our stdin (or kills us).
    finally:
        udp.shutdown()
        tcp.shutdown()


if __name__ == "__main__":
    main()
