#!/usr/bin/env python3
"""A hostile Quoridor bot (or, as `deaf`, a bot of any game): it tries one attack, writes what happened to stderr (the replay
keeps it), then plays as the starter does (starter.py beside it), or not at all.

    hostile.py MODE [PATH...]

Lines it writes start with "probe:", then what was tried, then "allowed" or "blocked".
"""
import os
import signal
import socket
import sys
import time


def say(what, allowed, detail=""):
    print(f"probe: {what} {'allowed' if allowed else 'blocked'} {detail}", file=sys.stderr, flush=True)


def play():
    """Becomes the starter bot: the match goes on normally."""
    sys.stderr.flush()
    here = os.path.dirname(os.path.abspath(__file__))
    os.execvp(sys.executable, [sys.executable, "-u", os.path.join(here, "starter.py")])


def try_read(what, path):
    try:
        with open(path, "rb") as f:
            data = f.read(200)
        say(what, True, repr(data[:60]))
    except OSError as e:
        say(what, False, e.strerror)


def try_write(what, path):
    try:
        with open(path, "w") as f:
            f.write("written by a bot\n")
        say(what, True, path)
    except OSError as e:
        say(what, False, e.strerror)


def try_connect(what, host, port):
    try:
        s = socket.create_connection((host, int(port)), timeout=1)
        s.close()
        say(what, True)
    except OSError as e:
        say(what, False, str(e))


def linger(marker):
    """A grandchild in a session (or group) of its own that tries to outlive the match."""
    os.execvp("sh", ["sh", "-c", f"sleep 600; : {marker}"])


def escape(how, marker):
    if os.fork() == 0:
        if how == "setsid":
            os.setsid()
        else:
            os.setpgid(0, 0)
        if os.fork() == 0:
            linger(marker)
        os._exit(0)
    play()


def main():
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == "files":
        for path in args:
            try_read("read " + path, path)
        try_write("write outside", os.path.join(os.path.dirname(args[0]), "planted.txt"))
        try_write("write scratch", "note.txt")
        try_write("write tmp", "/tmp/note.txt")
        play()
    elif mode == "network":
        try_connect("connect local", "127.0.0.1", args[0])
        try_connect("connect outside", "1.1.1.1", 53)
        play()
    elif mode == "snoop":
        # The referee is not in the bot's PID namespace: what /proc shows is the bot's own.
        for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    print("probe: cmdline", pid, f.read().replace(b"\0", b" ")[:300], file=sys.stderr)
            except OSError:
                pass
        print("probe: environ", sorted(os.environ), file=sys.stderr)
        print("probe: parent", os.getppid(), "uid", os.getuid(), file=sys.stderr, flush=True)
        play()
    elif mode == "forkbomb":
        while True:
            try:
                os.fork()
            except OSError:
                time.sleep(0.001)
    elif mode == "memory":
        hoard = []
        while True:
            hoard.append(b"x" * (64 << 20))
    elif mode in ("setsid", "setpgid"):
        escape(mode, args[0])
    elif mode == "pipes":
        # A child keeps stdin, stdout and stderr open; the bot itself leaves at once.
        if os.fork() == 0:
            os.execvp("sh", ["sh", "-c", f"sleep 600; : {args[0]}"])
        os._exit(3)
    elif mode == "garbage":
        sys.stdin.readline()
        os.write(1, b"\xff\xfe\x00 4 \x00\x01\n")
        play()
    elif mode == "burner":
        # Busy loops that would take the cores while the opponent thinks, then a normal bot.
        loops = int(args[0])
        for _ in range(loops):
            if os.fork() == 0:
                while True:
                    pass
        say(f"burn {loops} loops", True)
        play()
    elif mode == "deaf":
        # Reads nothing and answers nothing, of any game: what is sent to it piles up.
        while True:
            time.sleep(1)
    elif mode == "sigstop":
        os.kill(os.getpid(), signal.SIGSTOP)
    elif mode == "sigterm":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        for line in sys.stdin:
            if line.strip() == "-1":
                break
        while True:
            time.sleep(1)


main()
