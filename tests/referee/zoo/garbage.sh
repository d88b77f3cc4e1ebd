#!/bin/sh
# Answers `go` with bytes that are not a column (illegal).
while IFS= read -r line; do
    case "$line" in
        hello*) echo "ready 1" ;;
        newgame*) echo "ok garbage" ;;
        go*) printf 'play \377\376\001zz\n' ;;
    esac
done
