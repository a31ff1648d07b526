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


def try_see(path):
    """Lists a folder, reads a file, or says that nothing is there."""
    if os.path.isdir(path):
        try:
            say("list " + path, True, repr(sorted(os.listdir(path))))
        except OSError as e:
            say("list " + path, False, e.strerror)
    elif os.path.lexists(path):
        try_read("read " + path, path)
    else:
        say("see " + path, False, "nothing there")


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


def wait_for_go():
    """Says in its scratch folder (its working folder) that the match is under way and which
    user it is, then waits until the test writes `go` there: the test looks at the machine
    meanwhile."""
    with open("started.new", "w") as f:
        f.write(str(os.getuid()))
    os.rename("started.new", "started")
    while not os.path.exists("go"):
        time.sleep(0.01)
    play()


def main():
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == "wait":
        wait_for_go()
    elif mode == "keyring":
        # The session keyring Arbiter was started with, where a login keeps its keys.
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        found = libc.syscall(250, 10, ctypes.c_int(-3), b"user", args[0].encode(), 0)
        say("read session key", found > 0, str(found))
        play()
    elif mode == "files":
        for path in args:
            try_read("read " + path, path)
        try_write("write outside", os.path.join(os.path.dirname(args[0]), "planted.txt"))
        try_write("write scratch", "note.txt")
        try_write("write tmp", "/tmp/note.txt")
        play()
    elif mode == "view":
        for path in args:
            try_see(path)
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
    elif mode == "forkcount":
        # Children that wait until the bot lets them go, forked until the kernel refuses one.
        r, w = os.pipe()
        children = 0
        while children < 100000:
            try:
                pid = os.fork()
            except OSError as e:
                say("fork", False, f"after {children} children: {e.strerror}")
                break
            if pid == 0:
                os.close(w)
                os.read(r, 1)
                os._exit(0)
            children += 1
        else:
            say("fork", True, f"{children} children")
        os.close(w)
        for _ in range(children):
            os.wait()
        play()
    elif mode == "spin":
        # Computes for ever from its first turn on.
        sys.stdin.readline()
        while True:
            pass
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
