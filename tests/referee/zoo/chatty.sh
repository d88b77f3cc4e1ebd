#!/bin/sh
# Writes a line that is not part of the protocol instead of answering `go` (illegal).
while IFS= read -r line; do
    case "$line" in
        hello*) echo "ready 1" ;;
        newgame*) echo "ok chatty" ;;
        go*) echo "I think column 3 looks nice" ;;
    esac
done
