#!/bin/sh
# Starts properly, then closes its stdout on the first `go` and keeps running (crash).
while IFS= read -r line; do
    case "$line" in
        hello*) echo "ready 1" ;;
        newgame*) echo "ok close_stdout" ;;
        go*) exec 1>&-; sleep 60 ;;
    esac
done
