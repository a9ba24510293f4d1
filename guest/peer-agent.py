#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run commands on the peer guest over the control link.

  peer-agent.py serve ADDR PORT        (guest b) run requests until poweroff
  peer-agent.py call ADDR:PORT CMD...  (guest a) run CMD on the peer through
                                       bash, print its output, exit with its
                                       status
  peer-agent.py call ADDR:PORT --poweroff

peer-call.sh is the same client in bash, for the tests: python3 takes
seconds to start in a TCG guest with the debugging kernel.

The control link is a QEMU socket netdev private to the two guests. Commands
that must outlive the call have to redirect their output and go to the
background (setsid CMD >/dev/null 2>&1 &).
"""
import json
import socket
import socketserver
import subprocess
import sys
import threading

# A command may run this long on the peer; a client waits a minute more
# for its answer before it gives up (peer-call.sh has the same figures).
CMD_TIMEOUT = 900
CALL_TIMEOUT = CMD_TIMEOUT + 60


def recv_all(conn):
    data = b''
    while True:
        chunk = conn.recv(65536)
        if not chunk:
            return data
        data += chunk


def run(cmd, timeout=CMD_TIMEOUT):
    try:
        p = subprocess.run(['bash', '-c', cmd], capture_output=True,
                           timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return 124, b'', b'peer-agent: timed out\n'


def recv_exact(conn, data, n):
    while len(data) < n:
        chunk = conn.recv(65536)
        if not chunk:
            raise ConnectionError('request cut short: %d of %d bytes'
                                  % (len(data), n))
        data += chunk
    return data


def recv_line(conn):
    """The request's first line and whatever followed it in the same read."""
    data = b''
    while b'\n' not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return data, b''
        data += chunk
    line, _, rest = data.partition(b'\n')
    return line, rest


class Handler(socketserver.BaseRequestHandler):
    """One request per connection, each in its own thread: a client that
    breaks its connection costs its own request only."""

    def handle(self):
        conn = self.request
        conn.settimeout(CALL_TIMEOUT)
        try:
            self.serve_one(conn)
        except (OSError, ValueError, KeyError) as e:
            # ValueError covers bad JSON and a bad length
            sys.stderr.write('peer-agent: %s: %r\n'
                             % (self.client_address[0], e))

    def serve_one(self, conn):
        line, rest = recv_line(conn)
        if line.startswith(b'SH '):
            # peer-call.sh: "SH <length>\n<command>" in, then
            # "<rc> <stdout length> <stderr length>\n<stdout><stderr>"
            cmd = recv_exact(conn, rest, int(line.split()[1]))
            rc, out, err = run(cmd.decode(errors='replace'))
            conn.sendall(b'%d %d %d\n' % (rc, len(out), len(err)) +
                         out + err)
            return
        req = json.loads((line + b'\n' + rest + recv_all(conn)).decode())
        if req.get('poweroff'):
            conn.sendall(json.dumps({'rc': 0, 'out': '', 'err': ''}).encode())
            # shutdown() waits for serve_forever(), which runs in another
            # thread than this handler
            threading.Thread(target=self.server.shutdown).start()
            return
        rc, out, err = run(req['cmd'], req.get('timeout', CMD_TIMEOUT))
        resp = {'rc': rc, 'out': out.decode(errors='replace'),
                'err': err.decode(errors='replace')}
        conn.sendall(json.dumps(resp).encode())


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True


def serve(addr, port):
    with Server((addr, int(port)), Handler) as srv:
        srv.serve_forever()


def call(target, argv):
    host, port = target.rsplit(':', 1)
    if argv == ['--poweroff']:
        req = {'poweroff': True}
    else:
        req = {'cmd': ' '.join(argv)}
    with socket.create_connection((host, int(port)), timeout=5) as conn:
        conn.settimeout(CALL_TIMEOUT)
        conn.sendall(json.dumps(req).encode())
        conn.shutdown(socket.SHUT_WR)
        resp = json.loads(recv_all(conn).decode())
    sys.stdout.write(resp['out'])
    sys.stderr.write(resp['err'])
    return resp['rc']


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == 'serve':
        serve(sys.argv[2], sys.argv[3])
        return 0
    if len(sys.argv) >= 4 and sys.argv[1] == 'call':
        return call(sys.argv[2], sys.argv[3:])
    sys.stderr.write(__doc__)
    return 2


if __name__ == '__main__':
    sys.exit(main())
