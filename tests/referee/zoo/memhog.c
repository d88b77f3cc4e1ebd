/* A protocol bot in C that allocates and touches 16 MB after 16 MB at its first move, without
   checking malloc's result: at the memory limit malloc returns NULL and the bot dies of SIGSEGV
   (the referee still says `memory`: its peak resident memory reached the limit). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
    char line[4096];
    setvbuf(stdout, NULL, _IONBF, 0);
    while (fgets(line, sizeof line, stdin)) {
        if (strncmp(line, "hello", 5) == 0) {
            printf("ready 1\n");
        } else if (strncmp(line, "newgame", 7) == 0) {
            printf("ok memhog.c\n");
        } else if (strncmp(line, "go", 2) == 0) {
            for (;;) {
                char *p = malloc(16 << 20);
                memset(p, 1, 16 << 20);
            }
        } else if (strncmp(line, "quit", 4) == 0) {
            return 0;
        }
    }
    return 0;
}
