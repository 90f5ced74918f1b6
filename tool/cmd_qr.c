// numatile qr: owner-computes tiled Householder QR on placed tiles, optionally after a
// redistribution (--from DIST --match MODE), with --verify (residuals) and --json.
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "commands.h"
#include "cli_kern.h"

// --verify's bound on both residuals, in units of the type's own eps (every type alike).
#define QR_TOL 10.0

static const char *qr_help =
    "usage: numatile qr --m M --n N --nb NB --dist DIST [--from DIST --match MODE] [options]\n"
    "  tiled Householder QR (GEQRT/UNMQR/TSQRT/TSMQR, libFLAME kernels), each task on the\n"
    "  domain of the tile it writes; --verify checks ||A-QR|| / (||A|| max(m,n) eps) and\n"
    "  ||Q^HQ-I|| / (m eps) < 10 in units of the type's eps, computed in double (complex\n"
    "  double for c, z) with the tiled GEMM (m <= 4096).\n"
    "  --ib IB       inner block (default min(nb, 32))\n"
    KERN_OPTIONS_HELP;

// The type the residuals are computed in: double for s and d, complex double for c and z, so
// that the check's own rounding stays far below the float factorisation's.
static nt_dtype wide(nt_dtype t)
{
    return t == NT_DTYPE_C || t == NT_DTYPE_Z ? NT_DTYPE_Z : NT_DTYPE_D;
}

// Squared Frobenius norm of a matrix of type t, minus the identity when `identity` is set.
static double fro2(nt_dtype t, const nt_matrix_t *X, bool identity)
{
    double s = 0;
    for (int64_t j = 0; j < X->n; j++)
        for (int64_t i = 0; i < X->m; i++) {
            double complex v = kern_get(t, X, i, j) - (identity && i == j ? 1.0 : 0.0);
            s += creal(v) * creal(v) + cimag(v) * cimag(v);
        }
    return s;
}

// The residuals, each in units of the factored type's eps_t:
// ||A - QR||_F / (||A||_F max(m,n) eps_t) and ||Q^H Q - I||_F / (m eps_t) (Q^T for real types).
// The products run through the tiled nt_gemm in the wide type on copies placed like the
// operands (a naive triple loop made --verify take a minute at n = 2048).
static nt_status qr_residuals(const nt_topo_t *topo, const kopts *plain, const nt_matrix_t *A0,
                              const nt_matrix_t *F, const nt_matrix_t *Q, double *r1,
                              double *r2)
{
    nt_dtype t = plain->type, w = wide(t);
    kopts pw = *plain;
    pw.type = w;
    int64_t m = A0->m, n = A0->n;
    nt_matrix_t *Aw = NULL, *Rw = NULL, *Qw = NULL, *QH = NULL, *G = NULL;
    redist_sum none = {0};
    nt_status st;
    if ((st = kern_place(topo, &pw, m, n, 0, false, &Aw, &none)) != NT_OK ||
        (st = kern_place(topo, &pw, m, n, 0, false, &Rw, &none)) != NT_OK ||
        (st = kern_place(topo, &pw, m, m, 0, false, &Qw, &none)) != NT_OK ||
        (st = kern_place(topo, &pw, m, m, 0, false, &QH, &none)) != NT_OK ||
        (st = kern_place(topo, &pw, m, m, 0, false, &G, &none)) != NT_OK)
        goto out;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            kern_set(w, Aw, i, j, kern_get(t, A0, i, j));
            kern_set(w, Rw, i, j, i <= j ? kern_get(t, F, i, j) : 0.0);
        }
    for (int64_t j = 0; j < m; j++)
        for (int64_t i = 0; i < m; i++) {
            kern_set(w, Qw, i, j, kern_get(t, Q, i, j));
            kern_set(w, QH, j, i, conj(kern_get(t, Q, i, j)));
        }
    double an = fro2(w, Aw, false);
    // Aw := A - Q R, G := Q^H Q.
    if ((st = nt_gemm(-1.0, Qw, Rw, 1.0, Aw, NULL, NULL)) != NT_OK ||
        (st = nt_gemm(1.0, QH, Qw, 0.0, G, NULL, NULL)) != NT_OK)
        goto out;
    *r1 = sqrt(fro2(w, Aw, false)) / (sqrt(an) * (double)(m > n ? m : n) * kern_eps(t));
    *r2 = sqrt(fro2(w, G, true)) / ((double)m * kern_eps(t));
out:
    nt_matrix_destroy(Aw);
    nt_matrix_destroy(Rw);
    nt_matrix_destroy(Qw);
    nt_matrix_destroy(QH);
    nt_matrix_destroy(G);
    return st;
}

// --verify: form Q, compare Q R with A0 (the input, placed on --dist) and Q^H Q with I. Adds
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
    } else if ((st = qr_residuals(t, plain, A0, F, Q, &r1, &r2)) != NT_OK) {
        fprintf(stderr, "numatile qr: --verify: %s\n", nt_last_error());
        rc = st == NT_ENOMEM || st == NT_ENOSPACE ? CLI_RUNTIME : cli_lib_error("qr", st);
    } else {
        *vrc = r1 < QR_TOL && r2 < QR_TOL ? CLI_OK : CLI_VERIFY_FAILED;
        json_object_set_new(extra, "residual_qr", json_real(r1));
        json_object_set_new(extra, "residual_orth", json_real(r2));
        if (!plain->co.json)
            printf("||A-QR||/(||A|| n eps) = %.3g, ||Q^%sQ-I||/(m eps) = %.3g (both < %g, eps "
                   "of type %s)\n", r1, wide(plain->type) == NT_DTYPE_Z ? "H" : "T", r2,
                   QR_TOL, nt_dtype_name(plain->type));
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
    // A and its T tiles (ib x nb a tile, at most A again); under --verify the copy A0 and Q,
    // then the residuals' wide copies of A, R (m x n) and Q, Q^H, Q^H Q (m x m). The task
    // records take about 100 bytes per tile and step (measured: 95 MB at 100^3).
    size_t ew = nt_dtype_size(wide(o.type));
    kern_operand ops[] = {{o.m, o.n, 0, o.co.verify ? 3 : 2}, {o.m, o.m, 0, o.co.verify},
                          {o.m, o.n, ew, o.co.verify ? 2 : 0}, {o.m, o.m, ew, o.co.verify ? 3 : 0}};
    int64_t mt = (o.m + o.nb - 1) / o.nb, nt = (o.n + o.nb - 1) / o.nb;
    if ((rc = kern_room("qr", &o, ops, 4, mt < nt ? mt : nt, 128)) != CLI_OK)
        return rc;
    nt_topo_t *t;
    const char *specs[] = {o.dist, o.from};
    int64_t rows[] = {mt, mt}, cols[] = {nt, nt};
    if ((rc = cli_topo_for_dists("qr", o.co.domains, specs, 2, rows, cols, &t)) != CLI_OK)
        return rc;
    rc = qr_run(&o, t);
    nt_topo_destroy(t);
    return rc;
}
