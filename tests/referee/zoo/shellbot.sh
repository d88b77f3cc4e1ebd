#!/bin/sh
# A protocol bot in POSIX shell (docs/protocol.md): plays the lowest-numbered column that is not
# full. Proves that any program speaking the protocol can play.
set -f  # no globbing of message fields
M=0; N=0
while IFS= read -r line; do
    set -- $line
    case "$1" in
        hello)
            echo "ready 1" ;;
        newgame)
            M=$2; N=$3; j=0
            while [ "$j" -lt "$N" ]; do eval "h_$j=0"; j=$((j + 1)); done
            echo "ok ShellBot" ;;
        opponent)
            eval "h_$2=\$((h_$2 + 1))" ;;
        go)
            j=0
            while [ "$j" -lt "$N" ]; do
                eval "h=\$h_$j"
                if [ "$h" -lt "$M" ]; then break; fi
                j=$((j + 1))
            done
            eval "h_$j=\$((h_$j + 1))"
            echo "# shellbot: column $j has room"
            echo "play $j" ;;
        quit)
            exit 0 ;;
        *) ;;  # unknown keywords are ignored
    esac
done
