#!/bin/sh
# Answers its first `go` correctly and then prints a debug line on stdout ("thinking done"): the
# stray line is waiting when the next request comes, so that request is refused (illegal).
# Both lines go out in one write, so the referee has them both before it freezes the bot.
while IFS= read -r line; do
    case "$line" in
        hello*) echo "ready 1" ;;
        newgame*) echo "ok stray_line" ;;
        go*) printf 'play 3\nthinking done\n' ;;  # one write: the stray line is there at once
    esac
done
