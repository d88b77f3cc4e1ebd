#!/bin/sh
# Answers `go` with a 5000-digit number (more digits than Python's int() converts): illegal,
# and the referee must say so rather than fail itself.
digits=$(printf '%05000d' 7)
while IFS= read -r line; do
    case "$line" in
        hello*) echo "ready 1" ;;
        newgame*) echo "ok huge" ;;
        go*) echo "play $digits" ;;
    esac
done
