// Statistics of the harness (see harness.h): median by selection, min, max, mean, sample
// standard deviation, Spearman's rank correlation, and the per-configuration median/min/max
// of the raw rows.
#include "harness.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// k-th smallest (0-based) of a[0..n-1], rearranging a so that a[0..k-1] <= a[k] <= a[k+1..]
// (Wirth's selection: Hoare partitions around the current a[k], narrowing to k's side).
static double select_kth(double *a, size_t n, size_t k)
{
    ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;
    while (lo < hi) {
        double pivot = a[kk];
        ptrdiff_t i = lo, j = hi;
        do {
            while (a[i] < pivot)
                i++;
            while (pivot < a[j])
                j--;
            if (i <= j) {
                double t = a[i];
                a[i] = a[j];
                a[j] = t;
                i++;
                j--;
            }
        } while (i <= j);
        if (j < kk)
            lo = i;
        if (kk < i)
            hi = j;
    }
    return a[k];
}

double bench_median(const double *x, size_t n)
{
    if (n == 0)
        return NAN;
    double *a = malloc(n * sizeof *a);
    if (!a)
        return NAN;
    memcpy(a, x, n * sizeof *a);
    double m = select_kth(a, n, n / 2);
    if (n % 2 == 0) {
        // select_kth left every value below position n/2 in a[0..n/2-1]; take their largest.
        double below = a[0];
        for (size_t i = 1; i < n / 2; i++)
            if (a[i] > below)
                below = a[i];
        m = 0.5 * (below + m);
    }
    free(a);
    return m;
}

// Ranks of x (ties get their mean rank).
static void ranks(const double *x, size_t n, double *rk)
{
    for (size_t i = 0; i < n; i++) {
        size_t less = 0, same = 0;
        for (size_t j = 0; j < n; j++) {
            less += x[j] < x[i];
            same += x[j] == x[i];
        }
        rk[i] = (double)less + (double)(same + 1) / 2.0;
    }
}

double bench_spearman(const double *x, const double *y, size_t n)
{
    if (n < 3)
        return NAN;
    double *rx = malloc(n * sizeof *rx), *ry = malloc(n * sizeof *ry);
    if (!rx || !ry) {
        free(rx);
        free(ry);
        return NAN;
    }
    ranks(x, n, rx);
    ranks(y, n, ry);
    double mx = 0, my = 0, sxy = 0, sxx = 0, syy = 0;
    for (size_t i = 0; i < n; i++) {
        mx += rx[i] / (double)n;
        my += ry[i] / (double)n;
    }
    for (size_t i = 0; i < n; i++) {
        sxy += (rx[i] - mx) * (ry[i] - my);
        sxx += (rx[i] - mx) * (rx[i] - mx);
        syy += (ry[i] - my) * (ry[i] - my);
    }
    free(rx);
    free(ry);
    return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : NAN;
}

double bench_min(const double *x, size_t n)
{
    if (n == 0)
        return NAN;
    double m = x[0];
    for (size_t i = 1; i < n; i++)
        if (x[i] < m)
            m = x[i];
    return m;
}

double bench_max(const double *x, size_t n)
{
    if (n == 0)
        return NAN;
    double m = x[0];
    for (size_t i = 1; i < n; i++)
        if (x[i] > m)
            m = x[i];
    return m;
}

double bench_mean(const double *x, size_t n)
{
    if (n == 0)
        return NAN;
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    return s / (double)n;
}

double bench_stddev(const double *x, size_t n)
{
    if (n == 0)
        return NAN;
    if (n == 1)
        return 0;
    double m = bench_mean(x, n), s = 0;
    for (size_t i = 0; i < n; i++)
        s += (x[i] - m) * (x[i] - m);
    return sqrt(s / (double)(n - 1));
}

static bool is_label(json_t *labels, const char *key)
{
    size_t i;
    json_t *v;
    json_array_foreach(labels, i, v)
        if (!strcmp(json_string_value(v), key))
            return true;
    return false;
}

json_t *bench_stats(json_t *rows, json_t *labels)
{
    json_t *groups = json_array(), *index = json_object(); // dumped label tuple -> group index
    size_t i;
    json_t *row;
    json_array_foreach(rows, i, row) {
        json_t *lab = json_object();
        size_t k;
        json_t *name;
        json_array_foreach(labels, k, name) {
            json_t *v = json_object_get(row, json_string_value(name));
            json_object_set(lab, json_string_value(name), v ? v : json_null());
        }
        char *key = json_dumps(lab, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
        json_t *g, *at = json_object_get(index, key);
        if (at) {
            g = json_array_get(groups, (size_t)json_integer_value(at));
            json_decref(lab);
        } else {
            json_object_set_new(index, key, json_integer((json_int_t)json_array_size(groups)));
            g = json_pack("{s:o, s:i, s:o}", "labels", lab, "n", 0, "values", json_object());
            json_array_append_new(groups, g);
        }
        free(key);
        json_object_set_new(g, "n", json_integer(json_integer_value(json_object_get(g, "n")) + 1));
        json_t *values = json_object_get(g, "values");
        const char *q;
        json_t *v;
        json_object_foreach(row, q, v) {
            if (!json_is_number(v) || !strcmp(q, "rep") || is_label(labels, q))
                continue;
            json_t *list = json_object_get(values, q);
            if (!list)
                json_object_set_new(values, q, list = json_array());
            json_array_append_new(list, json_real(json_number_value(v)));
        }
    }
    json_decref(index);
    json_t *g;
    json_array_foreach(groups, i, g) {
        json_t *quantities = json_object(), *list;
        const char *q;
        json_object_foreach(json_object_get(g, "values"), q, list) {
            size_t n = json_array_size(list);
            double *x = malloc((n ? n : 1) * sizeof *x);
            for (size_t k = 0; k < n; k++)
                x[k] = json_real_value(json_array_get(list, k));
            json_object_set_new(quantities, q,
                                json_pack("{s:f, s:f, s:f}", "median", bench_median(x, n), "min",
                                          bench_min(x, n), "max", bench_max(x, n)));
            free(x);
        }
        json_object_del(g, "values");
        json_object_set_new(g, "quantities", quantities);
    }
    return groups;
}
