// Files written whole or not at all (harness.h, bench_fopen_atomic): the bytes go to a temporary
// file beside the target, and fclose() renames it over the target only when every write, the
// flush and the close succeeded; otherwise the temporary is removed and the previous file stays.
// The FILE is glibc's fopencookie, so callers keep plain fprintf/fclose. Temporaries still open
// are listed in a fixed table that a signal handler can walk (bench_atomic_cleanup).
#include "harness_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SLOTS 64

// The temporaries open now; a slot's path is complete before `used` is set, so the handler
// never reads half a name.
static struct {
    volatile sig_atomic_t used;
    char tmp[PATH_MAX];
} slots[SLOTS];
static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct {
    int fd, slot;
    bool failed;
    char tmp[PATH_MAX], path[PATH_MAX];
} atomic_file;

static int slot_take(const char *tmp)
{
    pthread_mutex_lock(&slots_lock);
    int s = -1;
    for (int i = 0; i < SLOTS && s < 0; i++)
        if (!slots[i].used) {
            memcpy(slots[i].tmp, tmp, strlen(tmp) + 1);
            slots[i].used = 1;
            s = i;
        }
    pthread_mutex_unlock(&slots_lock);
    return s;
}

static void slot_give(int s)
{
    if (s >= 0)
        slots[s].used = 0;
}

void bench_atomic_cleanup(void)
{
    // Only unlink(2): async-signal-safe.
    for (int i = 0; i < SLOTS; i++)
        if (slots[i].used)
            unlink(slots[i].tmp);
}

static ssize_t af_write(void *c, const char *buf, size_t n)
{
    atomic_file *a = c;
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(a->fd, buf + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            a->failed = true;
            if (w == 0)
                errno = ENOSPC;
            // fopencookie: 0 is the error return (errno says which)
            return done ? (ssize_t)done : 0;
        }
        done += (size_t)w;
    }
    return (ssize_t)done;
}

// fclose() arrives here after the stream's last flush (whose failure set a->failed).
static int af_close(void *c)
{
    atomic_file *a = c;
    bool ok = !a->failed;
    int err = a->failed ? ENOSPC : 0;
    if (close(a->fd) != 0 && ok) {
        ok = false;
        err = errno;
    }
    if (ok && rename(a->tmp, a->path) != 0) {
        ok = false;
        err = errno;
    }
    if (!ok)
        unlink(a->tmp);
    slot_give(a->slot);
    free(a);
    if (!ok)
        errno = err;
    return ok ? 0 : EOF;
}

// The mode the target gets: its own when it exists, else what fopen would give (0666 & ~umask).
static mode_t target_mode(const struct stat *sb, bool exists)
{
    if (exists)
        return sb->st_mode & 07777;
    mode_t um = umask(0);
    umask(um);
    return 0666 & ~um;
}

FILE *bench_fopen_atomic(const char *path)
{
    struct stat sb;
    bool exists = stat(path, &sb) == 0;
    // A device or FIFO (/dev/null, a pipe) cannot be replaced: written in place.
    if (exists && !S_ISREG(sb.st_mode))
        return S_ISDIR(sb.st_mode) ? (errno = EISDIR, NULL) : fopen(path, "w");
    atomic_file *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    // A symbolic link keeps pointing where it did: the file it names is replaced.
    char *real = exists ? realpath(path, NULL) : NULL;
    const char *target = real ? real : path;
    const char *slash = strrchr(target, '/');
    int dirlen = slash ? (int)(slash - target + 1) : 0;
    int n1 = snprintf(a->path, sizeof a->path, "%s", target);
    int n2 = snprintf(a->tmp, sizeof a->tmp, "%.*s.%s.tmp-XXXXXX", dirlen, target,
                      target + dirlen);
    free(real);
    if (n1 < 0 || n2 < 0 || (size_t)n1 >= sizeof a->path || (size_t)n2 >= sizeof a->tmp) {
        free(a);
        errno = ENAMETOOLONG;
        return NULL;
    }
    a->fd = mkostemp(a->tmp, O_CLOEXEC);
    if (a->fd < 0) {
        free(a);
        return NULL;
    }
    a->slot = slot_take(a->tmp);
    fchmod(a->fd, target_mode(&sb, exists));
    cookie_io_functions_t io = {.write = af_write, .close = af_close};
    FILE *f = fopencookie(a, "w", io);
    if (!f) {
        int err = errno;
        close(a->fd);
        unlink(a->tmp);
        slot_give(a->slot);
        free(a);
        errno = err;
    }
    return f;
}

int bench_out_check_file(const char *path, char *why, size_t len)
{
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        snprintf(why, len, "'%s' is a directory", path);
        return -1;
    }
    const char *slash = strrchr(path, '/');
    char dir[PATH_MAX];
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        snprintf(why, len, "directory '%s' does not exist", dir);
        return -1;
    }
    // The temporary file is created in the directory, so the directory must be writable.
    if (access(dir, W_OK | X_OK) != 0) {
        snprintf(why, len, "directory '%s' is not writable: %s", dir, strerror(errno));
        return -1;
    }
    return 0;
}
