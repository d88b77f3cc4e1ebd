#!/usr/bin/env bash
# The VM stage of CI (.ci/run's last line): installs what the VM needs when it is missing
# (Debian's QEMU, its kernel, a static busybox, bubblewrap; virtme-ng comes from PyPI in
# .ci/vm/run.py), then runs `make vm-test`. Where it cannot install or boot, it says why and fails.
set -euo pipefail
cd "$(dirname "$0")/../.."

missing=()
command -v qemu-system-x86_64 >/dev/null 2>&1 || missing+=(qemu-system-x86)
command -v busybox >/dev/null 2>&1 || missing+=(busybox-static)
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
ls /boot/vmlinuz-* >/dev/null 2>&1 || missing+=(linux-image-amd64)
if [ "${#missing[@]}" -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "ci: installing ${missing[*]} for the VM stage"
        apt-get update -q >/dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null
    else
        echo "ci: the VM stage needs ${missing[*]} and cannot install them (not root or no apt-get)"
        exit 1
    fi
fi
start=$(date +%s)
make vm-test
echo "ci: VM stage took $(( $(date +%s) - start )) s"
