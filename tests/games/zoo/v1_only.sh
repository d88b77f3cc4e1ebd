#!/bin/sh
# A version-1 bot asked to speak version 2: it answers `ready 1` all the same.
while IFS= read -r line; do
    case "$line" in
        hello*) echo "ready 1" ;;
        quit) exit 0 ;;
    esac
done
