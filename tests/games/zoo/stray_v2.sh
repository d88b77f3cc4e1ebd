#!/bin/sh
# A protocol-v2 bot that writes a line nobody asked for (after `ok`, before any `go`).
set -f
while IFS= read -r line; do
    set -- $line
    case "$1" in
        hello) echo "ready 2" ;;
        newgame) echo "ok Stray"; echo "play d3" ;;
        go) echo "play pass" ;;
        quit) exit 0 ;;
    esac
done
