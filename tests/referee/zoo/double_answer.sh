#!/bin/sh
# Answers its first `go` twice ("play 0" then "play 1"): the extra line is waiting when the next
# request comes, so that request is refused (illegal, unsolicited output).
n=0
while IFS= read -r line; do
    case "$line" in
        hello*) echo "ready 1" ;;
        newgame*) echo "ok double_answer" ;;
        go*) n=$((n + 1)); if [ "$n" -eq 1 ]; then printf 'play 0\nplay 1\n'; else echo "play 2"; fi ;;
    esac
done
