// Shared helpers of the scenario tests; see scn_test.h.
#include "scn_test.h"

#include <criterion/criterion.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

bool nonempty_file(const char *dir, const char *file)
{
    char path[600];
    struct stat sb;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0;
}

json_t *scn_run(const char *name, char *dir, size_t len)
{
    snprintf(dir, len, "/tmp/nt-scn-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    json_t *sum = tool_json((const char *[]){"bench", name, "--quick", "--json", "--out", dir,
                                             NULL});
    const char *ext[] = {"csv", "json", "txt"};
    for (int i = 0; i < 3; i++) {
        char file[64];
        snprintf(file, sizeof file, "%s.%s", name, ext[i]);
        cr_assert(nonempty_file(dir, file), "%s/%s missing", dir, file);
    }
    return sum;
}

json_t *scn_run_doc(const char *name, const char *dir, json_t **doc)
{
    const char *args[] = {"bench", name, "--quick", "--json", "--out", dir,
#ifdef __SANITIZE_ADDRESS__
                          "--repeat", "1",
#endif
                          NULL};
    json_t *sum = tool_json(args);
    char file[64];
    snprintf(file, sizeof file, "%s.json", name);
    *doc = load_json_file(dir, file);
    cr_assert(json_is_array(json_object_get(*doc, "raw")));
    cr_assert(json_is_array(json_object_get(*doc, "stats")));
    return sum;
}

char *scn_temp_dir(void)
{
    char *d = strdup("/tmp/nt-scn-XXXXXX");
    cr_assert_not_null(mkdtemp(d));
    return d;
}

void scn_rm_tree(char *dir)
{
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(dir);
}

void scn_cleanup(const char *dir, json_t *sum)
{
    json_decref(sum);
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

json_t *load_json_file(const char *dir, const char *file)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    json_error_t e;
    json_t *j = json_load_file(path, 0, &e);
    cr_assert_not_null(j, "%s: %s", path, e.text);
    return j;
}

double num(const json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    cr_assert(json_is_number(v), "field %s missing or not a number", key);
    return json_number_value(v);
}

const char *str(const json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    cr_assert(json_is_string(v), "field %s missing or not a string", key);
    return json_string_value(v);
}

bool close_rel(double a, double b, double tol)
{
    return fabs(a - b) <= tol * fmax(1.0, fmax(fabs(a), fabs(b)));
}

double median(const double *x, int n)
{
    double y[64];
    cr_assert(n > 0 && n <= 64);
    memcpy(y, x, (size_t)n * sizeof *y);
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && y[j - 1] > y[j]; j--) {
            double t = y[j];
            y[j] = y[j - 1];
            y[j - 1] = t;
        }
    return n % 2 ? y[n / 2] : 0.5 * (y[n / 2 - 1] + y[n / 2]);
}
