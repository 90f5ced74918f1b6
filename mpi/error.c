// The last error message of libnumatile_mpi, per thread (libnumatile's own message is internal
// to it, so this library keeps one of its own).
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "nt_mpi_int.h"

static _Thread_local char last[512];

nt_status nt_mpi_fail(nt_status code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last, sizeof last, fmt, ap);
    va_end(ap);
    return code;
}

void nt_mpi_set_error(const char *msg)
{
    snprintf(last, sizeof last, "%s", msg);
}

const char *nt_mpi_last_error(void)
{
    return last;
}
