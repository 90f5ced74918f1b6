// Whole-file reading for the text formats of this module (tile-map files, instance files).
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt_partition.h"

nt_status nt_read_whole_file(const char *path, char **text, size_t *len)
{
    if (!path)
        return nt_fail(NT_EINVAL, "file path is NULL");
    FILE *f = fopen(path, "rb");
    if (!f)
        return nt_fail(NT_EIO, "cannot open '%s': %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        fclose(f);
        return nt_fail(NT_ENOMEM, "cannot allocate a buffer for '%s'", path);
    }
    for (;;) {
        if (n + 1 >= cap) {
            size_t ncap;
            char *nb;
            if (!nt_mul_size(cap, 2, &ncap) || !(nb = realloc(buf, ncap))) {
                free(buf);
                fclose(f);
                return nt_fail(NT_ENOMEM, "'%s' is too large to read", path);
            }
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + n, 1, cap - 1 - n, f);
        n += got;
        if (got == 0)
            break;
    }
    int err = ferror(f);
    fclose(f);
    if (err) {
        free(buf);
        return nt_fail(NT_EIO, "cannot read '%s'", path);
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return NT_OK;
}
