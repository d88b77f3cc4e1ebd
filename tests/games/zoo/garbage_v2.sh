#!/bin/sh
# A protocol-v2 bot that answers `go` with a line that is not `play MOVE`.
set -f
while IFS= read -r line; do
    set -- $line
    case "$1" in
        hello) echo "ready 2" ;;
        newgame) echo "ok Garbage" ;;
        go) echo "move d3 please" ;;
        quit) exit 0 ;;
    esac
done
