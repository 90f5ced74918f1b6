// The one way the library reads a whole file: bounded before it allocates, never blocking.
// Inputs are opened non-blocking and must be regular files: a FIFO would block the reader
// forever (fopen waits for a writer) and /dev/zero or a directory has no end or no text; the
// size is checked against what the file can describe before a byte is read, and again while
// reading (a file growing meanwhile stops at the cap).
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nt_core.h"

static double mib(uint64_t b)
{
    return (double)b / (double)(1 << 20);
}

// Opens path for reading and checks it is a regular file of at most max bytes; -1 on failure
// (message set in *st).
static int open_bounded(const char *path, size_t max, const char *what, size_t *size,
                        nt_status *st)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        *st = nt_fail(NT_EIO, "%s: cannot open '%s': %s", what, path, strerror(errno));
        return -1;
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0)
        *st = nt_fail(NT_EIO, "%s: cannot stat '%s': %s", what, path, strerror(errno));
    else if (S_ISDIR(sb.st_mode))
        *st = nt_fail(NT_EINVAL, "%s: '%s' is a directory, not a file", what, path);
    else if (!S_ISREG(sb.st_mode))
        *st = nt_fail(NT_EINVAL, "%s: '%s' is not a regular file (a device, FIFO or socket)",
                      what, path);
    else if ((uint64_t)sb.st_size > max)
        *st = nt_fail(NT_ERANGE, "%s: '%s' is %.1f MiB; what it can describe here takes at "
                      "most %.1f MiB", what, path, mib((uint64_t)sb.st_size), mib(max));
    else {
        *size = (size_t)sb.st_size;
        *st = NT_OK;
        return fd;
    }
    close(fd);
    return -1;
}

nt_status nt_read_file(const char *path, size_t max, const char *what, char **text, size_t *len)
{
    if (!what)
        what = "file";
    if (!path || !text || !len)
        return nt_fail(NT_EINVAL, "%s: path, text or len is NULL", what);
    size_t size;
    nt_status st;
    int fd = open_bounded(path, max, what, &size, &st);
    if (fd < 0)
        return st;
    // Room for the size fstat gave, one more byte to notice growth, and the NUL.
    size_t cap = size + 2, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        close(fd);
        return nt_fail(NT_ENOMEM, "%s: cannot allocate %zu bytes for '%s'", what, cap, path);
    }
    for (;;) {
        if (n + 1 == cap) { // grew past what fstat said: allowed up to max
            size_t ncap = cap * 2 < max + 2 ? cap * 2 : max + 2;
            char *nb = ncap > cap ? realloc(buf, ncap) : NULL;
            if (!nb) {
                st = ncap > cap ? nt_fail(NT_ENOMEM, "%s: cannot grow the buffer of '%s'",
                                          what, path)
                                : nt_fail(NT_ERANGE, "%s: '%s' grew past %.1f MiB while read",
                                          what, path, mib(max));
                break;
            }
            buf = nb;
            cap = ncap;
        }
        ssize_t got = read(fd, buf + n, cap - 1 - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            st = nt_fail(NT_EIO, "%s: cannot read '%s': %s", what, path, strerror(errno));
            break;
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    close(fd);
    if (st != NT_OK) {
        free(buf);
        return st;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return NT_OK;
}
