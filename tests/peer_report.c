/*
 * peer_report.c - the output of the peer_*.c programs (tests/peer_headers.sh),
 * kept out of them: each of those includes one header only, the one whose
 * contents it checks.
 */
#include <stdio.h>

void peer_check(int ok, const char *what, int line);
void peer_note(const char *what, int value);
int peer_finish(const char *program);

static int passed, failed;

void peer_check(int ok, const char *what, int line)
{
    if (ok) {
        passed++;
        return;
    }
    failed++;
    printf("FAILED, line %d: %s\n", line, what);
    fflush(stdout);
}

void peer_note(const char *what, int value)
{
    printf("%s: %d\n", what, value);
}

int peer_finish(const char *program)
{
    if (failed == 0) {
        printf("%s: %d checks passed\n", program, passed);
        return 0;
    }
    printf("%s: %d of %d checks failed\n", program, failed, passed + failed);
    return 1;
}
