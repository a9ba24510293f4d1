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
import subprocess
import sys


def recv_all(conn):
    data = b''
    while True:
        chunk = conn.recv(65536)
        if not chunk:
            return data
        data += chunk


def run(cmd, timeout=900):
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
            break
        data += chunk
    return data


def serve(addr, port):
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((addr, int(port)))
    srv.listen(8)
    while True:
        conn, _ = srv.accept()
        with conn:
            first = conn.recv(65536)
            if first.startswith(b'SH '):
                # peer-call.sh: "SH <length>\n<command>" in, then
                # "<rc> <stdout length> <stderr length>\n<stdout><stderr>"
                head, _, cmd = first.partition(b'\n')
                cmd = recv_exact(conn, cmd, int(head.split()[1]))
                rc, out, err = run(cmd.decode(errors='replace'))
                conn.sendall(b'%d %d %d\n' % (rc, len(out), len(err)) +
                             out + err)
                continue
            req = json.loads((first + recv_all(conn)).decode())
            if req.get('poweroff'):
                conn.sendall(json.dumps({'rc': 0, 'out': '', 'err': ''}).encode())
                return
            rc, out, err = run(req['cmd'], req.get('timeout', 900))
            resp = {'rc': rc, 'out': out.decode(errors='replace'),
                    'err': err.decode(errors='replace')}
            conn.sendall(json.dumps(resp).encode())


def call(target, argv):
    host, port = target.rsplit(':', 1)
    if argv == ['--poweroff']:
        req = {'poweroff': True}
    else:
        req = {'cmd': ' '.join(argv)}
    with socket.create_connection((host, int(port)), timeout=5) as conn:
        conn.settimeout(None)
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
