// Status strings and the thread-local "last error" message.
#include <stdarg.h>
#include <stdio.h>

#include "nt_core.h"

static _Thread_local char last_msg[512];

const char *nt_strerror(int code)
{
    switch (code) {
    case NT_OK: return "success";
    case NT_EINVAL: return "invalid argument";
    case NT_ENOMEM: return "out of memory";
    case NT_ERANGE: return "size or index out of range";
    case NT_ENOTSUP: return "not supported";
    case NT_ESYS: return "system call failed";
    case NT_EIO: return "input/output error";
    case NT_ENOSPACE: return "not enough memory on this machine";
    default: return "unknown status";
    }
}

const char *nt_last_error(void)
{
    return last_msg;
}

nt_status nt_fail(nt_status code, const char *fmt, ...)
{
    // Messages echo user input (specs, file lines, names): escape it once here for every caller.
    char raw[sizeof last_msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    nt_escape(raw, last_msg, sizeof last_msg);
    return code;
}
