/*
 * cxbot.c: a complete Connect-X bot in C that speaks the cxarena line protocol
 * (docs/protocol.md, version 1). It needs nothing but a C compiler:
 *
 *     cc -O2 -o cxbot examples/cxbot.c
 *     cxarena check-bot exec:./cxbot
 *     cxarena match exec:./cxbot L1 --board 6 7 4 --time 1
 *
 * and in a tournament config, under `players:`:   - exec:./cxbot
 *
 * Strategy: win at once if it can, else block the opponent's immediate win, else play the
 * centre-most column that is not full. It keeps its own copy of the board, updated from
 * its own answers and from the referee's `opponent COL` lines.
 *
 * Rules of the protocol this program follows:
 *   - read stdin line by line; answer on stdout, one line per request, flushed at once;
 *   - ignore unknown keywords; write diagnostics to stderr (it goes to the bot's log);
 *   - the clock runs from the referee's request to our answer (newgame and go): a real bot
 *     checks the deadline in its search loops, as `deadline_passed()` shows below.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_LINE 70000 /* the protocol allows lines up to 65536 bytes */

static int M, N, K;       /* rows, columns, pieces in a row to win */
static int me;            /* 1 if we move first, else 2 */
static double timeout_s;  /* the per-answer time limit */
static int *cell;         /* cell[r * N + c]: 0 free, 1 or 2; row 0 is the BOTTOM row here */
static int *height;       /* pieces in each column */
static double start_s;    /* when the current request arrived */

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Use at most 60% of the limit (the round trip and a busy machine take the rest). */
static int deadline_passed(void) { return now_s() - start_s > 0.6 * timeout_s; }

static int at(int r, int c) {
    return (r >= 0 && r < M && c >= 0 && c < N) ? cell[r * N + c] : -1;
}

/* Would a piece of player p dropped in column c make K in a row? (The board is unchanged.) */
static int wins(int c, int p) {
    static const int dir[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
    int r = height[c];
    if (r >= M) return 0;
    for (int d = 0; d < 4; d++) {
        int n = 1;
        for (int s = 1; at(r + s * dir[d][0], c + s * dir[d][1]) == p; s++) n++;
        for (int s = 1; at(r - s * dir[d][0], c - s * dir[d][1]) == p; s++) n++;
        if (n >= K) return 1;
    }
    return 0;
}

static void drop(int c, int p) {
    if (c >= 0 && c < N && height[c] < M) cell[height[c]++ * N + c] = p;
}

static int choose(void) {
    int them = 3 - me, best = -1;
    for (int c = 0; c < N; c++) /* 1. win now */
        if (wins(c, me)) return c;
    for (int c = 0; c < N && !deadline_passed(); c++) /* 2. stop their win */
        if (wins(c, them)) return c;
    for (int c = 0; c < N; c++) /* 3. the centre-most free column */
        if (height[c] < M && (best < 0 || abs(2 * c - (N - 1)) < abs(2 * best - (N - 1))))
            best = c;
    return best;
}

int main(void) {
    static char line[MAX_LINE];
    long long seed;
    int p, col;
    setvbuf(stdout, NULL, _IOLBF, 0); /* flush each line (we also fflush below) */
    while (fgets(line, sizeof line, stdin)) {
        start_s = now_s();
        line[strcspn(line, "\r\n")] = '\0';
        if (strncmp(line, "hello ", 6) == 0) {
            printf("ready 1\n");
        } else if (sscanf(line, "newgame %d %d %d %d %lf %lld", &M, &N, &K, &p, &timeout_s,
                          &seed) == 6) {
            free(cell);
            free(height);
            cell = calloc((size_t)M * N, sizeof *cell);
            height = calloc((size_t)N, sizeof *height);
            if (!cell || !height) {
                printf("error out of memory\n");
                fflush(stdout);
                return 1;
            }
            me = p;
            printf("ok CBot\n"); /* everything after "ok " is our display name */
        } else if (sscanf(line, "opponent %d", &col) == 1) {
            drop(col, 3 - me);
        } else if (strcmp(line, "go") == 0) {
            col = choose();
            drop(col, me);
            printf("play %d\n", col);
        } else if (strcmp(line, "quit") == 0) {
            return 0;
        } /* any other line: a keyword of a later protocol version, ignored */
        fflush(stdout);
    }
    return 0;
}
