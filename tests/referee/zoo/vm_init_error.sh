#!/bin/sh
# Fails to start the way a JVM without room does: the first stdout line says something went
# wrong, the last one says why; stderr has lines of its own. The record must keep all four.
echo "stderr first line" >&2
echo "Error occurred during initialization of VM"
echo "some detail in between"
echo "Could not allocate compressed class space: 1073741824 bytes"
echo "stderr middle" >&2
echo "stderr last line" >&2
exit 1
