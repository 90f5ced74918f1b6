#include "fuzz_util.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

uint8_t fuzz_byte(fuzz_in *in)
{
    if (in->n == 0)
        return 0;
    in->n--;
    return *in->p++;
}

int64_t fuzz_range(fuzz_in *in, int64_t lo, int64_t hi)
{
    uint64_t span = (uint64_t)hi - (uint64_t)lo + 1, v = 0;
    // As many bytes as the span needs (a span of 0 means the full 64-bit range).
    for (uint64_t s = span - 1; s; s >>= 8)
        v = (v << 8) | fuzz_byte(in);
    if (span == 0)
        return (int64_t)v;
    return lo + (int64_t)(v % span);
}

char *fuzz_rest_string(fuzz_in *in)
{
    char *s = malloc(in->n + 1);
    if (!s)
        abort();
    memcpy(s, in->p, in->n);
    s[in->n] = '\0';
    in->p += in->n;
    in->n = 0;
    return s;
}

void fuzz_fail(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "fuzz check failed: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    const char *e = nt_last_error();
    fprintf(stderr, "\n(nt_last_error: %s)\n", e ? e : "(null)");
    abort();
}

bool fuzz_synthetic_bounded(const char *desc, uint64_t max_objects)
{
    uint64_t product = 1;
    for (const char *s = desc; *s;) {
        if (*s < '0' || *s > '9') {
            s++;
            continue;
        }
        if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
            return false;
        uint64_t v = 0;
        for (; *s >= '0' && *s <= '9'; s++) {
            v = v * 10 + (uint64_t)(*s - '0');
            if (v > max_objects || v > FUZZ_WIDEST_LEVEL)
                return false;
        }
        product *= v ? v : 1;
        if (product > max_objects)
            return false;
    }
    return true;
}

static char scratch[256];

static void remove_scratch(void)
{
    DIR *d = opendir(scratch);
    if (!d)
        return;
    struct dirent *e;
    char path[512];
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(path, sizeof path, "%s/%s", scratch, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(scratch);
}

const char *fuzz_scratch_dir(void)
{
    if (scratch[0])
        return scratch;
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(scratch, sizeof scratch, "%s/numatile-fuzz-XXXXXX", base);
    if (!mkdtemp(scratch)) {
        perror("fuzz_scratch_dir");
        abort();
    }
    atexit(remove_scratch);
    return scratch;
}

const char *fuzz_scratch_file(const char *name, const void *data, size_t len)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", fuzz_scratch_dir(), name);
    FILE *f = fopen(path, "wb");
    if (!f)
        return NULL;
    bool ok = fwrite(data, 1, len, f) == len;
    ok = fclose(f) == 0 && ok;
    return ok ? path : NULL;
}
