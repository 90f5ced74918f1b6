// Part&Redistrib, the shifted family: the best block-like candidate with every boundary moved
// within a window to keep more items on their domain.
#include <stdlib.h>
#include <string.h>

#include "part_redistrib_int.h"

enum {
    SHIFT_WINDOWS = 4, // shifted candidates (windows 1, B/8, B/4, B/2)
    SHIFT_ROUNDS = 4   // cut / relabel alternations per window
};

// Where boundary k of the arcs goes within +-half of its place: the cut that keeps the most
// items in the window on their current domain under the labelling sig, the nearest on ties.
static int64_t best_cut(const pr_ws *w, const pr_arcs *a, const int *sig, int64_t k,
                        int64_t half)
{
    int64_t n = w->n;
    int dl = sig[a->comp[k == 0 ? a->m - 1 : k - 1]], dr = sig[a->comp[k]];
    int64_t s = a->start[k], lo = s - half, hi = s + half;
    // Cut at lo: the whole window goes right. Each step right moves one item left.
    int64_t score = 0;
    for (int64_t y = lo; y < hi; y++)
        score += w->ini[pr_wrap(y, n)] == dr;
    int64_t best_score = score, best = lo;
    for (int64_t c = lo; c < hi; c++) {
        int d = w->ini[pr_wrap(c, n)];
        score += (d == dl) - (d == dr);
        int64_t cc = c + 1;
        int64_t dist_new = cc > s ? cc - s : s - cc;
        int64_t dist_old = best > s ? best - s : s - best;
        if (score > best_score || (score == best_score && dist_new < dist_old)) {
            best_score = score;
            best = cc;
        }
    }
    return best;
}

// Move every arc boundary of the base partition within +-half items to keep the most items on
// their current domain, relabel, and repeat with the new labelling (windows stay centred on the
// base boundaries, so no arc grows or shrinks by more than 2*half items).
static nt_status shift_once(pr_ws *w, const pr_arcs *a, int64_t half)
{
    int64_t n = w->n;
    int64_t *cut = malloc((size_t)(a->m + 1) * sizeof *cut);
    int *sig = malloc((size_t)w->p * sizeof *sig);
    int *bpart = malloc((size_t)n * sizeof *bpart);
    if (!cut || !sig || !bpart) {
        free(cut);
        free(sig);
        free(bpart);
        return nt_fail(NT_ENOMEM, "no memory to shift %lld boundaries", (long long)a->m);
    }
    memcpy(sig, w->base_sigma, (size_t)w->p * sizeof *sig);
    double best_t = 0;
    bool have = false;
    nt_status st = NT_OK;
    for (int round = 0; round < SHIFT_ROUNDS && st == NT_OK; round++) {
        for (int64_t k = 0; k < a->m; k++)
            cut[k] = best_cut(w, a, sig, k, half);
        cut[a->m] = cut[0] + n;
        for (int64_t k = 0; k < a->m; k++)
            for (int64_t y = cut[k]; y < cut[k + 1]; y++)
                w->part[pr_wrap(y, n)] = a->comp[k];
        st = nt_pr_label(w, w->part, nt_pr_model_objective(w->model), w->sigma);
        if (st != NT_OK)
            break;
        nt_stencil_cost_t c;
        st = nt_stencil_evaluate(n, w->p, w->ini, w->part, w->sigma, w->params, &c);
        if (st != NT_OK)
            break;
        double t = nt_stencil_total(&c, w->model);
        if (!have || t < best_t) {
            have = true;
            best_t = t;
            memcpy(bpart, w->part, (size_t)n * sizeof *bpart);
            memcpy(w->tmp, w->sigma, (size_t)w->p * sizeof *w->sigma);
        }
        if (memcmp(sig, w->sigma, (size_t)w->p * sizeof *sig) == 0)
            break; // the labelling is stable: the next cuts would be the same
        memcpy(sig, w->sigma, (size_t)w->p * sizeof *sig);
    }
    if (st == NT_OK && have) {
        memcpy(w->part, bpart, (size_t)n * sizeof *bpart);
        memcpy(w->sigma, w->tmp, (size_t)w->p * sizeof *w->sigma);
        st = nt_pr_consider(w, NT_STENCIL_SHIFTED, half);
    }
    free(cut);
    free(sig);
    free(bpart);
    return st;
}

nt_status nt_pr_gen_shifted(pr_ws *w)
{
    if (!w->have_base || w->p < 2)
        return NT_OK;
    pr_arcs a;
    nt_status st = nt_pr_arcs_of(w->base_part, w->n, &a);
    if (st != NT_OK || a.m < 2) {
        nt_pr_arcs_free(&a);
        return st;
    }
    // Windows must not overlap so that every arc keeps at least one item.
    int64_t cap = (a.min_len - 1) / 2, b = (w->n + w->p - 1) / w->p;
    int64_t want[SHIFT_WINDOWS] = {1, b / 8, b / 4, b / 2}, prev = 0;
    for (int k = 0; k < SHIFT_WINDOWS && st == NT_OK; k++) {
        int64_t half = want[k] < cap ? want[k] : cap;
        if (half <= prev)
            continue;
        prev = half;
        st = shift_once(w, &a, half);
    }
    nt_pr_arcs_free(&a);
    return st;
}
