#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# net.can.raw_tx_wait with a program that does not know the option:
# python-can (Debian's python3-can, unmodified) sends 2000 frames in a
# tight loop with bus.send(msg), no timeout, on a 500 kbit/s can-vbus bus
# in a network namespace of its own. With the sysctl on, no send fails
# and the peer gets all 2000 frames in order; with it off (the default),
# mainline's behaviour: the queue fills and a send fails with ENOBUFS.
# Prints KTAP. python3-can is a dependency (scripts/can-deps.sh): a
# missing module is a failure that names it.

import errno
import os
import socket
import subprocess
import sys

try:
    import can
except ImportError:
    can = None

N = 2000
BITRATE = 500000
TX, RX = "pcw0", "pcw1"
SYSCTL = "/proc/sys/net/can/raw_tx_wait"
# Frames of 8 bytes at 500 kbit/s: ~4400 per second; the peer's socket
# must hold all 2000 should the reader fall behind (skb truesize ~1 KiB).
RCVBUF = 8 << 20
SO_RCVBUFFORCE = 33     # not in Python's socket module


def sh(*args):
    subprocess.run(list(args), check=True)


def set_sysctl(value):
    with open(SYSCTL, "w") as f:
        f.write("%d\n" % value)


def read_sysctl():
    with open(SYSCTL) as f:
        return int(f.read())


def msg_of(i):
    return can.Message(arbitration_id=0x123, is_extended_id=False,
                       data=[i >> 8, i & 0xff, 0x22, 0x33, 0x44, 0x55,
                             0x66, 0x77])


def new_rx():
    rx = can.Bus(interface="socketcan", channel=RX)
    rx.socket.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, RCVBUF)
    return rx


def drain(rx, want, timeout=5.0):
    """Frames of the peer until @want came or none for @timeout."""
    got = []
    while len(got) < want:
        m = rx.recv(timeout=timeout)
        if m is None:
            break
        got.append(m)
    return got


def tight_loop(tx):
    """Send N frames; (frames sent, exception or None)."""
    for i in range(N):
        try:
            tx.send(msg_of(i))
        except can.CanError as e:
            return i, e
    return N, None


def test_sysctl_on_sends_all_frames_in_order():
    set_sysctl(1)
    rx = new_rx()
    tx = can.Bus(interface="socketcan", channel=TX)
    try:
        sent, exc = tight_loop(tx)
        got = drain(rx, N)
    finally:
        tx.shutdown()
        rx.shutdown()
        set_sysctl(0)
    seq = [(m.data[0] << 8) | m.data[1] for m in got]
    bad = [m for m in got if m.arbitration_id != 0x123 or m.dlc != 8 or
           list(m.data[2:]) != [0x22, 0x33, 0x44, 0x55, 0x66, 0x77]]
    note = "sent %d, exception %r, peer got %d, in order %s, bad %d" % (
        sent, exc, len(got), seq == list(range(N)), len(bad))
    return exc is None and sent == N and seq == list(range(N)) and \
        not bad, note


def test_sysctl_off_fails_with_enobufs():
    set_sysctl(0)
    rx = new_rx()
    tx = can.Bus(interface="socketcan", channel=TX)
    try:
        sent, exc = tight_loop(tx)
        got = drain(rx, sent, timeout=2.0)
    finally:
        tx.shutdown()
        rx.shutdown()
    code = getattr(exc, "error_code", None)
    note = "sent %d, exception %r (error_code %s), peer got %d" % (
        sent, exc, code, len(got))
    # Everything the queue took before the refusal still crosses.
    return isinstance(exc, can.CanOperationError) and \
        code == errno.ENOBUFS and sent < N and len(got) == sent, note


TESTS = [
    test_sysctl_on_sends_all_frames_in_order,
    test_sysctl_off_fails_with_enobufs,
]


def main():
    if os.environ.get("CAN_PYCAN_NETNS") != "1":
        env = dict(os.environ, CAN_PYCAN_NETNS="1")
        return subprocess.run(["unshare", "--net", "--", sys.executable,
                               os.path.abspath(__file__)], env=env).returncode

    print("TAP version 13")
    print("1..%d" % len(TESTS))
    if can is None:
        print("# python3-can (module can) is missing: scripts/can-deps.sh "
              "install")
        for i, t in enumerate(TESTS, 1):
            print("not ok %d %s" % (i, t.__name__))
        print("# Totals: pass:0 fail:%d xfail:0 xpass:0 skip:0 error:0"
              % len(TESTS))
        return 1

    sh("modprobe", "can-vbus")
    sh("modprobe", "can-raw")
    for dev in (TX, RX):
        sh("ip", "link", "add", "dev", dev, "type", "can",
           "bitrate", str(BITRATE))
        sh("ip", "link", "set", dev, "up")
    passed = failed = 0
    try:
        if read_sysctl() != 0:
            print("# net.can.raw_tx_wait is not 0 in a new namespace")
            failed += 1
        for i, t in enumerate(TESTS, 1):
            try:
                ok, note = t()
            except Exception as e:  # a crash is a failure, not an abort
                ok, note = False, "exception %r" % e
            print("# %s: %s" % (t.__name__, note))
            print("%s %d %s" % ("ok" if ok else "not ok", i, t.__name__))
            passed += ok
            failed += not ok
    finally:
        for dev in (TX, RX):
            subprocess.run(["ip", "link", "del", "dev", dev])
    print("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0"
          % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
