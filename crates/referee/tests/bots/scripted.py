#!/usr/bin/env python3
"""A test bot that plays a script: it answers the k-th line it reads with the k-th answer.

Usage: scripted.py TRANSCRIPT ANSWER...

Every byte it reads is appended to TRANSCRIPT (`-` for none), so a test can compare what a
bot was sent byte for byte. An answer is sent as one line, except these:

  @silent           send nothing for this line, and go on reading
  @hang             send nothing, and stop reading
  @sleep:MS:TEXT    wait MS milliseconds, then send TEXT
  @exit:CODE        exit at once with CODE, without answering
  @raw:TEXT         write TEXT in one write, with each `|` turned into a line end

After the last answer it reads until its input ends, then exits 0.
"""
import os
import sys
import time

transcript = None if sys.argv[1] == "-" else open(sys.argv[1], "ab", buffering=0)
answers = sys.argv[2:]
out = sys.stdout.buffer


def send(text):
    out.write(text.encode())
    out.flush()


for answer in answers:
    line = sys.stdin.buffer.readline()
    if transcript is not None:
        transcript.write(line)
    if not line:
        sys.exit(0)
    if answer == "@silent":
        continue
    if answer == "@hang":
        time.sleep(3600)
    if answer.startswith("@exit:"):
        os._exit(int(answer[len("@exit:"):]))
    if answer.startswith("@sleep:"):
        _, ms, answer = answer.split(":", 2)
        time.sleep(int(ms) / 1000)
    if answer.startswith("@raw:"):
        send(answer[len("@raw:"):].replace("|", "\n"))
        continue
    send(answer + "\n")

while True:
    line = sys.stdin.buffer.readline()
    if transcript is not None:
        transcript.write(line)
    if not line:
        break
