#!/bin/sh
# Answers its first `go` correctly and then prints a debug line on stdout ("thinking done"): the
# stray line is waiting when the next request comes, so that request is refused (illegal).
while IFS= read -r line; do
    case "$line" in
        hello*) echo "ready 1" ;;
        newgame*) echo "ok stray_line" ;;
        go*) echo "play 3"; echo "thinking done" ;;
    esac
done
