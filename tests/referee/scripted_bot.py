"""A protocol program that follows a script, for the referee's property test.

    python scripted_bot.py SCRIPT.json

The script maps the index of each line the bot reads (0 = `hello`, 1 = `newgame`, then `go`,
`opponent` ... in order) to a list of actions done when that line arrives; a line without an
entry gets the correct answer. Actions:

- ``["answer+", HEX]``: the correct answer, then these bytes in the same write;
- ``["answer"]``: the correct answer (``ready 1``, ``ok scripted``, ``play C`` with the lowest
  column that is not full; nothing for other lines);
- ``["write", HEX]``: these bytes, as they are (partial lines, binary, stray lines);
- ``["fill", N, BYTE]``: N copies of one byte in writes of at most 100 000 bytes (huge lines);
- ``["sleep", MS]``, ``["close"]`` (closes stdout), ``["exit", CODE]``.

Standard library only; it exits at the end of its input.
"""

import json
import os
import sys
import time


def main() -> int:
    with open(sys.argv[1]) as f:
        script = {int(k): v for k, v in json.load(f).items()}
    heights: list[int] = []
    rows = 0
    inp = sys.stdin.buffer
    index = 0
    while True:
        raw = inp.readline()
        if not raw:
            return 0
        words = raw.decode("ascii", "replace").split()
        keyword = words[0] if words else ""
        if keyword == "newgame":
            rows, heights = int(words[1]), [0] * int(words[2])
        elif keyword == "opponent" and 0 <= int(words[1]) < len(heights):
            heights[int(words[1])] += 1
        for action in script.get(index, [["answer"]]):
            kind = action[0]
            try:
                if kind in ("answer", "answer+"):
                    extra = bytes.fromhex(action[1]) if kind == "answer+" else b""
                    if keyword == "hello":
                        os.write(1, b"ready 1\n" + extra)
                    elif keyword == "newgame":
                        os.write(1, b"ok scripted\n" + extra)
                    elif keyword == "go":
                        col = next((c for c, h in enumerate(heights) if h < rows), 0)
                        if col < len(heights):
                            heights[col] += 1
                        os.write(1, f"play {col}\n".encode() + extra)
                elif kind == "write":
                    os.write(1, bytes.fromhex(action[1]))
                elif kind == "fill":
                    left = int(action[1])
                    while left > 0:
                        n = min(left, 100_000)
                        os.write(1, bytes([action[2]]) * n)
                        left -= n
                elif kind == "sleep":
                    time.sleep(action[1] / 1000.0)
                elif kind == "close":
                    os.close(1)
                elif kind == "exit":
                    os._exit(action[1])
            except OSError:  # stdout closed (by us or the referee): carry on reading
                pass
        index += 1


if __name__ == "__main__":
    raise SystemExit(main())
