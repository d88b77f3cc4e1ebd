"""Floods stdout with protocol comments (empty lines, or `#` lines) while it thinks.

    python comment_flood.py [--when go|newgame|hello] [--packet newlines|hash] [--for S]
                            [--lines N] [--every S] [--answer-after S]

A protocol program (standard library only; run it as a command, not as a CXPlayer). On the
request named by `--when` (default `go`) it writes 64 KiB packets, each one `write`:
`newlines` (65536 empty lines, the default) or `hash` (one `#` line of 65535 bytes). It floods
for `--for` seconds (default: for ever, never answering) or, with `--lines N`, writes N
lines `# thinking I`, each a write of its own `--every` S seconds apart, or all at once in
writes of up to 64 KiB (`--every 0`, the default); then it answers (the lowest
column that is not full), after waiting until `--answer-after` seconds from the request if
given. Every other request gets its plain answer at once.
"""

import argparse
import os
import sys
import time

PACKET = 65536


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--when", default="go", choices=["go", "newgame", "hello"])
    ap.add_argument("--packet", default="newlines", choices=["newlines", "hash"])
    ap.add_argument("--for", dest="for_s", type=float, default=None)
    ap.add_argument("--lines", type=int, default=None)
    ap.add_argument("--every", type=float, default=0.0)
    ap.add_argument("--answer-after", type=float, default=0.0)
    args = ap.parse_args()
    packet = b"\n" * PACKET if args.packet == "newlines" else b"#" * (PACKET - 1) + b"\n"
    rows, heights = 0, []
    for raw in sys.stdin.buffer:
        t0 = time.monotonic()
        words = raw.decode("ascii", "replace").split()
        keyword = words[0] if words else ""
        if keyword == "hello":
            while args.when == "hello":  # never ready
                os.write(1, packet)
            os.write(1, b"ready 1\n")
            continue
        if keyword == "newgame":
            rows, heights = int(words[1]), [0] * int(words[2])
        elif keyword == "opponent":
            heights[int(words[1])] += 1
            continue
        elif keyword != "go":
            continue
        if keyword == args.when:
            if args.lines is not None and args.every > 0:
                for i in range(args.lines):
                    os.write(1, f"# thinking {i}\n".encode())
                    time.sleep(args.every)
            elif args.lines is not None:  # all at once, in writes of at most 64 KiB
                text = "".join(f"# thinking {i}\n" for i in range(args.lines)).encode()
                for at in range(0, len(text), PACKET):
                    os.write(1, text[at:at + PACKET])
            else:
                end = None if args.for_s is None else t0 + args.for_s
                while end is None or time.monotonic() < end:
                    os.write(1, packet)
            time.sleep(max(0.0, t0 + args.answer_after - time.monotonic()))
        if keyword == "newgame":
            os.write(1, b"ok comment_flood\n")
        else:
            col = next(c for c, h in enumerate(heights) if h < rows)
            heights[col] += 1
            os.write(1, f"play {col}\n".encode())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
