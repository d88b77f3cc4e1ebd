#!/bin/sh
# A protocol-v2 bot in POSIX shell that always answers `pass` (illegal while moves exist).
set -f
while IFS= read -r line; do
    set -- $line
    case "$1" in
        hello) echo "ready 2" ;;
        newgame) echo "ok PassBot ($2)" ;;
        go) echo "play pass" ;;
        quit) exit 0 ;;
    esac
done
