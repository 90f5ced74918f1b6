// The library's one clock for intervals (planning, execution, kernel runs).
#include <time.h>

#include "nt_core.h"

double nt_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
