"""Maps 768 MiB of MAP_SHARED anonymous memory (shmem: not counted by RLIMIT_DATA) in
selectColumn and touches every page, then answers. Under a 256 MiB cgroup it is killed for
memory before it can answer."""

import mmap

from arena.player import CXPlayer

SIZE = 768 * 2**20


class ShmHog(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        pass

    def selectColumn(self, B):
        m = mmap.mmap(-1, SIZE, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS)
        for i in range(0, SIZE, mmap.PAGESIZE):
            m[i] = 1
        return B.getAvailableColumns()[0]

    def playerName(self):
        return "shm_hog"
