/* wine-probe.c - the tiny program contrib/wine-run.sh builds for 64-bit and for
 * 32-bit Windows and runs under each candidate Wine loader: a loader is chosen
 * for an architecture only when it really runs this program and prints the line
 * below, not because a package that should provide it is installed. */
#include <stdio.h>

int main(void)
{
    printf("slimpthreads wine probe: %d-bit\n", (int)(sizeof(void *) * 8));
    return 0;
}
