#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# python-can's periodic send (Debian's python3-can) against the broadcast
# manager: python-can sets up, updates and deletes BCM transmissions the
# way many test benches do, and a python-can raw bus watches the result.
# Prints KTAP.

import os
import subprocess
import sys
import time

try:
    import can
except ImportError:
    can = None

IFNAME = "bcmpy%d" % (os.getpid() % 100000)
results = []


def ip(*args):
    subprocess.run(["ip", "link"] + list(args), check=True)


def collect(bus, seconds):
    """Frames received within the next @seconds, with their timestamps."""
    frames = []
    end = time.monotonic() + seconds
    while True:
        left = end - time.monotonic()
        if left <= 0:
            return frames
        msg = bus.recv(timeout=left)
        if msg is not None:
            frames.append(msg)


def first_with_data(bus, data, seconds):
    """The first frame with @data within @seconds (None if none came);
    the frames before it are read and dropped."""
    end = time.monotonic() + seconds
    while True:
        left = end - time.monotonic()
        if left <= 0:
            return None
        msg = bus.recv(timeout=left)
        if msg is not None and list(msg.data) == data:
            return msg


def grid_of_first_second(frames, period):
    """Frames, slots and unexplained empty slots of the first second.

    The BCM sends on a grid of the period. A timer that fires late (a busy
    host keeps the guest off its CPU; PREEMPT_RT runs soft timers in a
    thread) sends at once and moves on to the next grid point ahead, so a
    slot may stay empty, but only after a frame at least a period late.
    The least late frame stands for the grid.
    """
    t = [f.timestamp for f in frames]
    slot = [0]
    for a, b in zip(t, t[1:]):
        slot.append(slot[-1] + max(1, int((b - a) / period + 0.5)))
    base = min(x - s * period for x, s in zip(t, slot))
    n = slots = unexplained = 0
    for i, s in enumerate(slot):
        if s * period >= 1.0:
            break
        n += 1
        slots = s + 1
        empty = s - slot[i - 1] - 1 if i else 0
        late = t[i - 1] - (base + slot[i - 1] * period) if i else 0
        if empty and late + 0.002 < empty * period:
            unexplained += empty
    return n, slots, unexplained


# The debug kernel (KASAN, lockdep, kmemleak scans) may hold the timer
# softirq back by more than grid_of_first_second()'s 2 ms margin, so one
# empty slot there need not follow a visibly late frame. Measured: one
# such slot in 100, with this stack and with the tree before it alike.
UNEXPLAINED_OK = 1 if os.uname().release.endswith("-candebug") else 0


def one_second_of_10ms_period(tx, rx, arbitration_id):
    msg = can.Message(arbitration_id=arbitration_id, data=[1, 2, 3],
                      is_extended_id=False)
    task = tx.send_periodic(msg, 0.01)
    frames = collect(rx, 1.3)
    task.stop()
    collect(rx, 0.05)
    n, slots, unexplained = grid_of_first_second(frames, 0.01)
    return (99 <= slots <= 101 and unexplained <= UNEXPLAINED_OK and n >= 70,
            "%d frames, %d slots (%d empty without a late timer, %d allowed) "
            "in the first second" % (n, slots, unexplained, UNEXPLAINED_OK))


# Under TCG a host that takes the guest's CPU away for a few ms empties
# slots the guest cannot tell from lost ones; the following second decides.
# A BCM that loses its grid fails both.
def test_period_of_10ms_gives_100_frames_per_second(tx, rx):
    ok, first = one_second_of_10ms_period(tx, rx, 0x101)
    if ok:
        return ok, first
    ok, second = one_second_of_10ms_period(tx, rx, 0x101)
    return ok, "%s; again: %s" % (first, second)


def test_duration_limits_the_frames(tx, rx):
    msg = can.Message(arbitration_id=0x102, data=[4], is_extended_id=False)
    tx.send_periodic(msg, 0.01, duration=0.3)
    frames = collect(rx, 0.8)
    want = int(0.3 / 0.01)     # python-can asks the BCM for this count
    return len(frames) == want, "%d frames, want %d" % (len(frames), want)


def test_modify_data_changes_later_frames(tx, rx):
    msg = can.Message(arbitration_id=0x103, data=[1], is_extended_id=False)
    task = tx.send_periodic(msg, 0.01)
    collect(rx, 0.1)
    task.modify_data(can.Message(arbitration_id=0x103, data=[2],
                                 is_extended_id=False))
    # Frames sent before the update may still be queued: the change shows
    # with the first frame that has the new data, however slow the guest.
    first = first_with_data(rx, [2], 5)
    if first is None:
        task.stop()
        return False, "no frame with the new data within 5 s"
    rx_frames = [first] + collect(rx, 0.2)
    task.stop()
    new = [f for f in rx_frames if list(f.data) == [2]]
    old = [f for f in rx_frames[len(rx_frames) // 2:] if list(f.data) == [1]]
    return len(new) >= 10 and not old, "%d new, %d old" % (len(new), len(old))


def test_stop_ends_the_transmission(tx, rx):
    msg = can.Message(arbitration_id=0x104, data=[5], is_extended_id=False)
    task = tx.send_periodic(msg, 0.01)
    before = collect(rx, 0.2)
    task.stop()
    collect(rx, 0.05)
    after = collect(rx, 0.3)
    return len(before) > 5 and not after, \
        "%d before, %d after stop" % (len(before), len(after))


def test_two_tasks_may_share_a_can_id(tx, rx):
    # python-can names each BCM operation by a task number, not by the
    # frame's identifier, so both tasks live side by side.
    tasks = [tx.send_periodic(can.Message(arbitration_id=0x105, data=[d],
                                          is_extended_id=False), 0.01)
             for d in (1, 2)]
    frames = collect(rx, 0.3)
    for t in tasks:
        t.stop()
    seen = {f.data[0] for f in frames if f.arbitration_id == 0x105}
    return seen == {1, 2}, "data seen %s" % sorted(seen)


def test_stopped_task_restarts(tx, rx):
    msg = can.Message(arbitration_id=0x107, data=[7], is_extended_id=False)
    task = tx.send_periodic(msg, 0.01)
    task.stop()
    collect(rx, 0.1)
    task.start()
    frames = collect(rx, 0.3)
    task.stop()
    return len(frames) >= 20, "%d frames after restart" % len(frames)


def test_message_list_is_sent_in_turn(tx, rx):
    msgs = [can.Message(arbitration_id=0x106, data=[i], is_extended_id=False)
            for i in range(3)]
    task = tx.send_periodic(msgs, 0.01)
    frames = collect(rx, 0.25)
    task.stop()
    seq = [f.data[0] for f in frames]
    ok = len(seq) >= 9 and all(seq[i + 1] == (seq[i] + 1) % 3
                               for i in range(len(seq) - 1))
    return ok, "sequence %s" % seq[:9]


TESTS = [
    test_period_of_10ms_gives_100_frames_per_second,
    test_duration_limits_the_frames,
    test_modify_data_changes_later_frames,
    test_stop_ends_the_transmission,
    test_two_tasks_may_share_a_can_id,
    test_stopped_task_restarts,
    test_message_list_is_sent_in_turn,
]


def main():
    print("TAP version 13")
    print("1..%d" % len(TESTS))
    if can is None:
        for i, t in enumerate(TESTS, 1):
            print("ok %d %s # SKIP python3-can missing" % (i, t.__name__))
        print("# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:%d error:0"
              % len(TESTS))
        return 0

    ip("add", "dev", IFNAME, "type", "vcan")
    ip("set", IFNAME, "up")
    passed = failed = 0
    try:
        for i, t in enumerate(TESTS, 1):
            tx = can.Bus(channel=IFNAME, interface="socketcan")
            rx = can.Bus(channel=IFNAME, interface="socketcan")
            try:
                ok, note = t(tx, rx)
            except Exception as e:  # a crash is a failure, not an abort
                ok, note = False, "exception %r" % e
            finally:
                tx.shutdown()
                rx.shutdown()
            print("# %s: %s" % (t.__name__, note))
            print("%s %d %s" % ("ok" if ok else "not ok", i, t.__name__))
            passed += ok
            failed += not ok
    finally:
        subprocess.run(["ip", "link", "del", "dev", IFNAME])
    print("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0"
          % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
