// numatile qr: owner-computes tiled Householder QR on placed tiles, optionally after a
// redistribution (--from DIST --match MODE), with --verify (residuals) and --json.
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "commands.h"
#include "kern_cli.h"

static const char *qr_help =
    "usage: numatile qr --m M --n N --nb NB --dist DIST [--from DIST --match MODE] [options]\n"
    "  tiled Householder QR (GEQRT/UNMQR/TSQRT/TSMQR, libFLAME kernels), each task on the\n"
    "  domain of the tile it writes; --verify checks ||A-QR|| and ||Q^TQ-I|| (m <= 4096).\n"
    "  --ib IB       inner block (default min(nb, 32))\n"
    KERN_OPTIONS_HELP;

// Dense column-major copy of a tiled matrix (rows x cols of it), NULL when out of memory.
static double *dense_copy(const nt_matrix_t *A, int64_t rows, int64_t cols, bool upper)
{
    double *d = calloc((size_t)(rows * cols), sizeof *d);
    for (int64_t j = 0; d && j < cols; j++)
        for (int64_t i = 0; i < rows && (!upper || i <= j); i++)
            d[i + j * rows] = kern_elem(A, i, j);
    return d;
}

// ||A - QR||_F / (||A||_F max(m,n) eps) and ||Q^T Q - I||_F / (m eps). The products go through
// BLIS (nt_gemm_flat): a naive triple loop made --verify take a minute at n = 2048.
static nt_status qr_residuals(const nt_matrix_t *A0, const nt_matrix_t *F, const nt_matrix_t *Q,
                              double *r1, double *r2)
{
    int64_t m = A0->m, n = A0->n, k = m < n ? m : n;
    double *a = dense_copy(A0, m, n, false), *q = dense_copy(Q, m, m, false);
    double *r = dense_copy(F, k, n, true), *qt = malloc((size_t)(m * m) * sizeof *qt);
    double *g = malloc((size_t)(m * m) * sizeof *g);
    nt_status st = a && q && r && qt && g ? NT_OK : NT_ENOMEM;
    double an = 0, res = 0, orth = 0;
    for (int64_t x = 0; st == NT_OK && x < m * n; x++)
        an += a[x] * a[x];
    // a := a - Q(:, 0:k) R
    if (st == NT_OK)
        st = nt_gemm_flat(1, m, n, k, -1.0, q, m, r, k, 1.0, a, m);
    for (int64_t x = 0; st == NT_OK && x < m * n; x++)
        res += a[x] * a[x];
    for (int64_t j = 0; st == NT_OK && j < m; j++)
        for (int64_t i = 0; i < m; i++)
            qt[j + i * m] = q[i + j * m];
    if (st == NT_OK)
        st = nt_gemm_flat(1, m, m, m, 1.0, qt, m, q, m, 0.0, g, m);
    for (int64_t j = 0; st == NT_OK && j < m; j++)
        for (int64_t i = 0; i < m; i++) {
            double d = g[i + j * m] - (double)(i == j);
            orth += d * d;
        }
    free(a);
    free(q);
    free(r);
    free(qt);
    free(g);
    if (st != NT_OK)
        return st;
    *r1 = sqrt(res) / (sqrt(an) * (double)(m > n ? m : n) * DBL_EPSILON);
    *r2 = sqrt(orth) / ((double)m * DBL_EPSILON);
    return NT_OK;
}

// --verify: form Q, compare Q R with A0 (the input, placed on --dist) and Q^T Q with I. Adds
// the residuals to extra, sets *vrc; returns CLI_OK or the exit code of a failure it reported.
static int qr_verify(const nt_topo_t *t, const kopts *plain, const nt_matrix_t *A0,
                     const nt_matrix_t *F, const nt_qr_t *qr, const nt_kernel_opts_t *ko,
                     json_t *extra, int *vrc)
{
    nt_matrix_t *Q = NULL;
    nt_kernel_stats_t sq = {0};
    redist_sum none = {0};
    double r1 = 0, r2 = 0;
    int rc = CLI_OK;
    nt_status st;
    if ((st = kern_place(t, plain, plain->m, plain->m, 0, false, &Q, &none)) != NT_OK ||
        (st = nt_qr_form_q(qr, Q, ko, &sq)) != NT_OK) {
        rc = cli_lib_error("qr", st);
    } else if ((st = qr_residuals(A0, F, Q, &r1, &r2)) != NT_OK) {
        fprintf(stderr, "numatile qr: --verify: %s\n", st == NT_ENOMEM ?
                "out of memory for the dense residual check" : nt_last_error());
        rc = CLI_RUNTIME;
    } else {
        *vrc = r1 < 10.0 && r2 < 10.0 ? CLI_OK : CLI_VERIFY_FAILED;
        json_object_set_new(extra, "residual_qr", json_real(r1));
        json_object_set_new(extra, "residual_orth", json_real(r2));
        if (!plain->co.json)
            printf("||A-QR||/(||A|| n eps) = %.3g, ||Q^TQ-I||/(m eps) = %.3g (both < 10)\n", r1,
                   r2);
    }
    nt_kernel_stats_free(&sq);
    nt_matrix_destroy(Q);
    return rc;
}

// Place A (and, under --verify, a copy A0 straight on --dist), factor it, check, report.
static int qr_run(const kopts *o, const nt_topo_t *t)
{
    nt_matrix_t *A = NULL, *A0 = NULL;
    nt_qr_t *qr = NULL;
    redist_sum rs = {0}, none = {0};
    nt_kernel_stats_t s = {0};
    nt_kernel_opts_t ko = {.threads_per_domain = o->threads, .sched = o->sched, .ib = o->ib};
    kopts plain = *o;
    plain.from = NULL;
    nt_status st;
    int rc, vrc = CLI_OK;
    if ((st = kern_place(t, o, o->m, o->n, o->co.seed, true, &A, &rs)) != NT_OK ||
        (o->co.verify &&
         (st = kern_place(t, &plain, o->m, o->n, o->co.seed, true, &A0, &none)) != NT_OK) ||
        (st = nt_qr_factor(A, &ko, &qr, &s)) != NT_OK) {
        rc = cli_lib_error("qr", st);
        goto out;
    }
    json_t *extra = json_pack("{s:I, s:I, s:I, s:I}", "m", (json_int_t)o->m, "n",
                              (json_int_t)o->n, "nb", (json_int_t)o->nb, "ib",
                              (json_int_t)nt_qr_ib(qr));
    if (o->co.verify && (rc = qr_verify(t, &plain, A0, A, qr, &ko, extra, &vrc)) != CLI_OK) {
        json_decref(extra);
        goto out;
    }
    rc = kern_report("qr", o, t, &s, &rs, vrc, extra);
out:
    nt_kernel_stats_free(&s);
    nt_qr_destroy(qr);
    nt_matrix_destroy(A0);
    nt_matrix_destroy(A);
    return rc;
}

int cmd_qr(int argc, char **argv)
{
    kopts o;
    int rc = kern_parse("qr", qr_help, argc, argv, &o);
    if (rc != CLI_OK)
        return rc == CLI_HELP_SHOWN ? CLI_OK : rc;
    if (o.co.verify && o.m > 4096)
        return cli_usage("qr", "--verify forms Q densely: use --m <= 4096");
    nt_topo_t *t;
    if ((rc = cli_load_topo("qr", o.co.domains, &t)) != CLI_OK)
        return rc;
    rc = qr_run(&o, t);
    nt_topo_destroy(t);
    return rc;
}
