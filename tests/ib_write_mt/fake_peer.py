#!/usr/bin/python3
"""A misbehaving ib_write_mt peer, for the exit-code tests.

fake_peer.py MODE PORT [TARGET_PORT]

server-* modes listen on PORT for a real client; client-* modes connect to
a real server on PORT; proxy-cut sits between a client (PORT) and a server
(TARGET_PORT) and cuts both connections after the client's second PROGRESS.
Exits 0 when the real peer behaved as expected (e.g. sent an ERROR back).
"""
import socket
import struct
import sys
import time

MAGIC = b"IBWM"
VERSION = 1
HELLO, SETUP, TARGET, CONNECT, READY, PROGRESS, DONE, VERDICT, ABORT, BYE, \
    ERROR = range(1, 12)


def header(typ, length, version=VERSION, magic=MAGIC):
    return magic + struct.pack(">HHII", version, typ, length, 0)


def hello(role, version=VERSION):
    payload = b"ib_write_mt".ljust(16, b"\0") + struct.pack(">I", role)
    return header(HELLO, len(payload), version) + payload


def recv_exact(s, n):
    data = b""
    while len(data) < n:
        chunk = s.recv(n - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def recv_msg(s):
    hdr = recv_exact(s, 16)
    if hdr is None:
        return None, None
    _, version, typ, length, _ = struct.unpack(">4sHHII", hdr)
    payload = recv_exact(s, length) if length else b""
    return typ, payload


def listen(port):
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", port))
    ls.listen(1)
    ls.settimeout(30)
    conn, _ = ls.accept()
    ls.close()
    conn.settimeout(30)
    return conn


def connect(port):
    deadline = time.time() + 20
    while True:
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=30)
            return s
        except OSError:
            if time.time() > deadline:
                raise
            time.sleep(0.1)


def expect_error(s):
    typ, payload = recv_msg(s)
    if typ != ERROR:
        print("fake peer: no ERROR message back (got %s)" % typ)
        return 1
    code = struct.unpack(">I", payload[:4])[0]
    print("fake peer: got ERROR %d: %s" % (code, payload[4:].rstrip(b"\0")
                                          .decode()))
    return 0


def server_mode(mode, port):
    c = listen(port)
    recv_msg(c)  # the client's HELLO
    if mode == "server-bad-magic":
        c.sendall(b"XXXX" + b"\0" * 12)
    elif mode == "server-truncated":
        c.sendall(hello(2)[:8])
        c.close()
        return 0
    elif mode == "server-version":
        c.sendall(hello(2, version=2))
    elif mode == "server-silent":
        pass
    elif mode == "server-trickle":
        # a whole HELLO, one byte every 2 s: alive, but never done in time
        try:
            for byte in hello(2):
                c.sendall(bytes([byte]))
                time.sleep(2)
        except OSError:
            pass
    elif mode == "server-error-escapes":
        # an ERROR whose text would drive a terminal, with the code of a
        # verify failure: neither is the client's to repeat
        text = b"\x1b[31mred\x1b]0;title\x07 bye\r".ljust(160, b"\0")
        c.sendall(header(ERROR, 4 + len(text)) + struct.pack(">I", 2) + text)
    elif mode == "server-bad-target":
        c.sendall(hello(2))
        recv_msg(c)  # SETUP
        # a TARGET for one QP too many
        payload = struct.pack(">QII", 0x1000, 0x1234, 99)
        c.sendall(header(TARGET, len(payload)) + payload)
    # wait for the client to give up and close
    try:
        while c.recv(4096):
            pass
    except OSError:
        pass
    return 0


def addr(qpn):
    return struct.pack(">IIHBB", qpn, 0x123, 1, 3, 0) + b"\0" * 16


def client_mode(mode, port):
    s = connect(port)
    if mode == "client-truncated":
        s.sendall(hello(1)[:10])
        s.close()
        return 0
    if mode == "client-version":
        s.sendall(hello(1, version=7))
        return expect_error(s)
    if mode == "client-silent":
        time.sleep(6)
        return 0
    s.sendall(hello(1))
    typ, _ = recv_msg(s)
    if typ != HELLO:
        print("fake peer: no HELLO from the server")
        return 1
    if mode == "client-bad-setup":
        payload = struct.pack(">IIIII", 0, 128, 2, 1, 2)  # no threads
        s.sendall(header(SETUP, len(payload)) + payload)
        return expect_error(s)
    if mode == "client-disconnect":
        payload = struct.pack(">IIIII", 2, 128, 2, 2, 2)
        s.sendall(header(SETUP, len(payload)) + payload)
        typ, _ = recv_msg(s)
        payload = struct.pack(">I", 2) + addr(0x10001) + addr(0x10002)
        s.sendall(header(CONNECT, len(payload)) + payload)
        typ, _ = recv_msg(s)
        if typ != READY:
            print("fake peer: no READY (%s)" % typ)
            return 1
        s.sendall(header(PROGRESS, 0))
        time.sleep(0.2)
        s.close()
        return 0
    return 2


def proxy_cut(port, target_port):
    import select
    c = listen(port)
    s = connect(target_port)
    progress, buf = 0, b""
    while progress < 2:
        r, _, _ = select.select([c, s], [], [], 30)
        if not r:
            return 1
        for sock in r:
            data = sock.recv(65536)
            if not data:
                return 1
            (s if sock is c else c).sendall(data)
            if sock is c:
                buf += data
                while len(buf) >= 16:
                    length = struct.unpack(">I", buf[8:12])[0]
                    if len(buf) < 16 + length:
                        break
                    progress += struct.unpack(">H", buf[6:8])[0] == PROGRESS
                    buf = buf[16 + length:]
    c.close()
    s.close()
    print("fake peer: cut both connections mid-run")
    return 0


if __name__ == "__main__":
    m = sys.argv[1]
    p = int(sys.argv[2])
    if m.startswith("server-"):
        sys.exit(server_mode(m, p))
    if m == "proxy-cut":
        sys.exit(proxy_cut(p, int(sys.argv[3])))
    sys.exit(client_mode(m, p))
