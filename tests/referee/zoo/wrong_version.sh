#!/bin/sh
# Answers `hello` with a protocol version the referee does not speak (crash at start-up).
read -r line
echo "ready 99"
sleep 60
