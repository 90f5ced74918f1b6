// The one way the library writes a whole file: to a temporary file beside the target
// (".NAME.tmp-XXXXXX", the same directory, hence the same file system), flushed and closed with
// every result checked, then renamed over the target. A reader sees the old file or the new one,
// never a part; a full disk leaves the old file as it was. The library installs no signal
// handler: a process killed between the create and the rename can leave a ".NAME.tmp-XXXXXX".
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nt_core.h"

// write(2) all of buf; false with errno on failure (ENOSPC for a write that makes no progress).
static bool write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, buf, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = ENOSPC;
            return false;
        }
        buf += w;
        len -= (size_t)w;
    }
    return true;
}

// A device or FIFO (/dev/null, a pipe) is written in place: it cannot be replaced.
static nt_status write_in_place(const char *path, const char *text, size_t len, const char *what)
{
    int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return nt_fail(NT_EIO, "%s: cannot write '%s': %s", what, path, strerror(errno));
    bool ok = write_all(fd, text, len);
    int err = errno;
    if (close(fd) != 0 && ok) {
        ok = false;
        err = errno;
    }
    return ok ? NT_OK : nt_fail(NT_ESYS, "%s: cannot write '%s': %s", what, path, strerror(err));
}

nt_status nt_write_file(const char *path, const char *text, size_t len, const char *what)
{
    if (!what)
        what = "file";
    if (!path || (!text && len))
        return nt_fail(NT_EINVAL, "%s: path or text is NULL", what);
    struct stat sb;
    bool exists = stat(path, &sb) == 0;
    if (exists && S_ISDIR(sb.st_mode))
        return nt_fail(NT_EINVAL, "%s: '%s' is a directory", what, path);
    if (exists && !S_ISREG(sb.st_mode))
        return write_in_place(path, text, len, what);
    // A symbolic link keeps pointing where it did: the file it names is replaced.
    char *real = exists ? realpath(path, NULL) : NULL;
    const char *target = real ? real : path;
    const char *slash = strrchr(target, '/');
    int dirlen = slash ? (int)(slash - target + 1) : 0;
    char tmp[PATH_MAX];
    int n = snprintf(tmp, sizeof tmp, "%.*s.%s.tmp-XXXXXX", dirlen, target, target + dirlen);
    int fd = n > 0 && (size_t)n < sizeof tmp ? mkostemp(tmp, O_CLOEXEC) : (errno = ENAMETOOLONG, -1);
    if (fd < 0) {
        nt_status st = nt_fail(NT_EIO, "%s: cannot write '%s': %s", what, path, strerror(errno));
        free(real);
        return st;
    }
    // The mode the target has, or what creat() would give it.
    mode_t um = umask(0);
    umask(um);
    fchmod(fd, exists ? sb.st_mode & 07777 : 0666 & ~um);
    bool ok = write_all(fd, text, len) && fsync(fd) == 0;
    int err = errno;
    if (close(fd) != 0 && ok) {
        ok = false;
        err = errno;
    }
    if (ok && rename(tmp, target) != 0) {
        ok = false;
        err = errno;
    }
    if (!ok)
        unlink(tmp);
    free(real);
    // The file could be created but not written: a run-time failure (full disk), not a bad path.
    return ok ? NT_OK : nt_fail(NT_ESYS, "%s: cannot write '%s' (left as it was): %s", what,
                                path, strerror(err));
}
