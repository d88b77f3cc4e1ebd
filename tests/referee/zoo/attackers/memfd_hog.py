"""Holds 8 memfds of 250 MiB each (os.memfd_create, ftruncate, every page written: shmem,
outside its address space once unmapped, not counted by RLIMIT_DATA), then answers."""

import mmap
import os

from arena.player import CXPlayer

EACH = 250 * 2**20


class MemfdHog(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        pass

    def selectColumn(self, B):
        fds = []
        for i in range(8):
            fd = os.memfd_create(f"hog{i}")
            os.ftruncate(fd, EACH)
            m = mmap.mmap(fd, EACH)
            for off in range(0, EACH, mmap.PAGESIZE):
                m[off] = 1
            m.close()  # the pages stay in the memfd
            fds.append(fd)
        self.fds = fds
        return B.getAvailableColumns()[0]

    def playerName(self):
        return "memfd_hog"
