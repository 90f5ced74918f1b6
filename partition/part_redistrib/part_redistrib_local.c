// Part&Redistrib, the local search: single-item moves from the best candidate so far, scored
// incrementally under a fixed labelling.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "part_redistrib_int.h"

// Incremental state of the local search: per-domain counters of the model under a fixed
// labelling, updated in O(1) per item change; totals read in O(p).
typedef struct lstate {
    int64_t *out, *in, *load, *sent, *recv;
    int64_t halo_volume, redist_volume;
} lstate;

static void item_halo(const pr_ws *w, int64_t y, int64_t sgn, lstate *s)
{
    int64_t n = w->n;
    int c = w->part[y], a = w->part[y == 0 ? n - 1 : y - 1], b = w->part[y == n - 1 ? 0 : y + 1];
    if (a != c) {
        s->out[c] += sgn;
        s->in[a] += sgn;
        s->halo_volume += sgn;
    }
    if (b != c && b != a) {
        s->out[c] += sgn;
        s->in[b] += sgn;
        s->halo_volume += sgn;
    }
}

static void item_place(const pr_ws *w, int64_t y, int64_t sgn, lstate *s)
{
    int k = w->part[y], dst = w->sigma[k], src = w->ini[y];
    s->load[k] += sgn;
    if (dst != src) {
        s->redist_volume += sgn;
        s->sent[src] += sgn;
        s->recv[dst] += sgn;
    }
}

static double ls_total(const pr_ws *w, const lstate *s)
{
    int64_t hs = 0, rs = 0, ml = 0;
    for (int i = 0; i < w->p; i++) {
        hs = s->out[i] > hs ? s->out[i] : hs;
        hs = s->in[i] > hs ? s->in[i] : hs;
        rs = s->sent[i] > rs ? s->sent[i] : rs;
        rs = s->recv[i] > rs ? s->recv[i] : rs;
        ml = s->load[i] > ml ? s->load[i] : ml;
    }
    const nt_stencil_params_t *pa = w->params;
    double calc = pa->tau_calc * (double)ml, k = (double)pa->iters;
    if (w->model == NT_STENCIL_MODEL_STEPS)
        return pa->tau_comm * (double)rs + k * (pa->tau_comm * (double)hs + calc);
    return pa->tau_comm * (double)s->redist_volume +
           k * (pa->tau_comm * (double)s->halo_volume + calc);
}

// Give item x component c, keeping the counters exact: only x and its two neighbours change
// their halo contribution.
static void ls_move(pr_ws *w, int64_t x, int c, lstate *s)
{
    int64_t n = w->n, nb[3] = {x == 0 ? n - 1 : x - 1, x, x == n - 1 ? 0 : x + 1};
    int cnt = n >= 3 ? 3 : (int)n; // rings of 1 or 2 items: fewer distinct neighbours
    int64_t ids[3];
    int m = 0;
    for (int t = 0; t < 3; t++) {
        bool dup = false;
        for (int u = 0; u < m; u++)
            dup |= ids[u] == nb[t];
        if (!dup && m < cnt)
            ids[m++] = nb[t];
    }
    for (int t = 0; t < m; t++)
        item_halo(w, ids[t], -1, s);
    item_place(w, x, -1, s);
    w->part[x] = c;
    item_place(w, x, +1, s);
    for (int t = 0; t < m; t++)
        item_halo(w, ids[t], +1, s);
}

// First-improvement local search from the best candidate so far, labelling fixed: an item may
// join the component of a neighbour or the component placed on its initial domain.
nt_status nt_pr_gen_local(pr_ws *w)
{
    if (!w->have_seed)
        return NT_OK;
    int64_t n = w->n;
    int p = w->p;
    size_t bytes;
    if (!nt_mul_size((size_t)p, 5 * sizeof(int64_t), &bytes))
        return nt_fail(NT_ERANGE, "p = %d: workspace size overflows", p);
    int64_t *mem = calloc(1, bytes);
    if (!mem)
        return nt_fail(NT_ENOMEM, "no memory for the local search (p = %d)", p);
    lstate s = {.out = mem, .in = mem + p, .load = mem + 2 * (size_t)p,
                .sent = mem + 3 * (size_t)p, .recv = mem + 4 * (size_t)p};
    memcpy(w->part, w->seed_part, (size_t)n * sizeof *w->part);
    memcpy(w->sigma, w->seed_sigma, (size_t)p * sizeof *w->sigma);
    int *home = w->tmp; // home[d] = component placed on domain d
    for (int c = 0; c < p; c++)
        home[w->sigma[c]] = c;
    for (int64_t y = 0; y < n; y++) {
        item_halo(w, y, +1, &s);
        item_place(w, y, +1, &s);
    }
    int64_t budget = ((int64_t)1 << 24) / (p + 8), evals = 0, moves = 0;
    if (budget < 64)
        budget = 64;
    double cur = ls_total(w, &s);
    bool improved = true;
    while (improved && evals < budget) {
        improved = false;
        for (int64_t x = 0; x < n && evals < budget; x++) {
            int c = w->part[x];
            int opts[3] = {w->part[x == 0 ? n - 1 : x - 1], w->part[x == n - 1 ? 0 : x + 1],
                           home[w->ini[x]]};
            for (int t = 0; t < 3 && evals < budget; t++) {
                int to = opts[t];
                if (to == c || (t == 1 && to == opts[0]) || (t == 2 && (to == opts[0] ||
                                                                        to == opts[1])))
                    continue;
                ls_move(w, x, to, &s);
                evals++;
                double t_new = ls_total(w, &s);
                if (t_new < cur - 1e-9 * (1.0 + fabs(cur))) {
                    cur = t_new;
                    moves++;
                    improved = true;
                    break;
                }
                ls_move(w, x, c, &s);
            }
        }
    }
    free(mem);
    nt_status st = nt_pr_label(w, w->part, nt_pr_model_objective(w->model), w->sigma);
    if (st == NT_OK)
        st = nt_pr_consider(w, NT_STENCIL_LOCAL, moves);
    return st;
}
