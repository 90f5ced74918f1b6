// Part&Redistrib heuristic for the 1D stencil: evaluate a family of candidate partitions, label
// each optimally for the model with the exact matchings of match.h, keep the cheapest.
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "nt_partition.h"
#include "numatile/dist.h"
#include "numatile/match.h"
#include "numatile/stencil_model.h"

enum {
    ROTATIONS_MAX = 15,  // rotated block candidates
    SHIFT_WINDOWS = 4,   // shifted candidates (windows 1, B/8, B/4, B/2)
    SHIFT_ROUNDS = 4,    // cut / relabel alternations per window
    MERGE_THRESHOLDS = 12,
    FEWER_COUNTS = 12     // block partitions on fewer components
};

typedef struct ws {
    int64_t n;
    int p;
    const int *ini;
    const nt_stencil_params_t *params;
    nt_stencil_model_t model;
    nt_stencil_strategy_t target;    // family eligible for "best"; PART_REDISTRIB = all
    int64_t *counts;                 // p*p count matrix for the matchings
    int *part, *sigma;               // the candidate being built
    int *best_part, *best_sigma;     // the best eligible candidate
    int *base_part, *base_sigma;     // the best block or rotated candidate (start of shifting)
    int *seed_part, *seed_sigma;     // the best candidate of any family (start of local search)
    int *tmp;                        // p scratch
    bool have_best, have_base, have_seed;
    nt_stencil_candidate_t best;
    double base_total, seed_total;
    nt_stencil_choice_t *choice;     // every candidate, or NULL
} ws;

const char *nt_stencil_strategy_name(nt_stencil_strategy_t s)
{
    switch (s) {
    case NT_STENCIL_OWNER: return "owner";
    case NT_STENCIL_BLOCK_CANONICAL: return "block-canonical";
    case NT_STENCIL_BLOCK_VOLUME: return "block-volume";
    case NT_STENCIL_BLOCK_STEPS: return "block-steps";
    case NT_STENCIL_BLOCK_ROTATED: return "block-rotated";
    case NT_STENCIL_SHIFTED: return "shifted";
    case NT_STENCIL_MERGED: return "merged";
    case NT_STENCIL_BLOCK_FEWER: return "block-fewer";
    case NT_STENCIL_LOCAL: return "local-search";
    case NT_STENCIL_PART_REDISTRIB: return "part-redistrib";
    default: return "unknown";
    }
}

static int64_t wrap(int64_t y, int64_t n)
{
    int64_t r = y % n;
    return r < 0 ? r + n : r;
}

// Optimal labelling of part for an objective (exact matchings of match.h).
static nt_status label(ws *w, const int *part, nt_match_objective obj, int *sigma)
{
    if (obj == NT_MATCH_CANONICAL) {
        for (int c = 0; c < w->p; c++)
            sigma[c] = c;
        return NT_OK;
    }
    nt_status st = nt_counts_compute(w->n, w->ini, w->p, part, w->p, NULL, w->counts, NULL);
    if (st != NT_OK)
        return st;
    nt_match_problem_t prob = {.p_ini = w->p, .p_tar = w->p, .counts = w->counts};
    return nt_match_solve(&prob, obj, sigma, NULL);
}

// The labelling that minimises the model's redistribution cost. For steps, LEX also breaks
// ties by volume, which costs nothing under the steps model and moves less data.
static nt_match_objective model_objective(nt_stencil_model_t model)
{
    return model == NT_STENCIL_MODEL_STEPS ? NT_MATCH_LEX : NT_MATCH_VOLUME;
}

// Evaluate w->part under w->sigma, record it, and keep it if it is the best eligible
// candidate, the best block-like one (start of shifting) or the best of all (start of the
// local search).
static nt_status consider(ws *w, nt_stencil_strategy_t s, int64_t param)
{
    nt_stencil_candidate_t cand = {.strategy = s, .param = param};
    nt_status st = nt_stencil_evaluate(w->n, w->p, w->ini, w->part, w->sigma, w->params,
                                       &cand.cost);
    if (st != NT_OK)
        return st;
    double t = nt_stencil_total(&cand.cost, w->model);
    if (w->choice && w->choice->ncandidates < NT_STENCIL_MAX_CANDIDATES)
        w->choice->candidates[w->choice->ncandidates++] = cand;
    bool eligible = w->target == NT_STENCIL_PART_REDISTRIB || w->target == s;
    if (eligible && (!w->have_best || t < nt_stencil_total(&w->best.cost, w->model))) {
        w->have_best = true;
        w->best = cand;
        memcpy(w->best_part, w->part, (size_t)w->n * sizeof *w->part);
        memcpy(w->best_sigma, w->sigma, (size_t)w->p * sizeof *w->sigma);
    }
    bool blockish = s == NT_STENCIL_BLOCK_CANONICAL || s == NT_STENCIL_BLOCK_VOLUME ||
                    s == NT_STENCIL_BLOCK_STEPS || s == NT_STENCIL_BLOCK_ROTATED;
    if (blockish && (!w->have_base || t < w->base_total)) {
        w->have_base = true;
        w->base_total = t;
        memcpy(w->base_part, w->part, (size_t)w->n * sizeof *w->part);
        memcpy(w->base_sigma, w->sigma, (size_t)w->p * sizeof *w->sigma);
    }
    if (!w->have_seed || t < w->seed_total) {
        w->have_seed = true;
        w->seed_total = t;
        memcpy(w->seed_part, w->part, (size_t)w->n * sizeof *w->part);
        memcpy(w->seed_sigma, w->sigma, (size_t)w->p * sizeof *w->sigma);
    }
    return NT_OK;
}

static int block_of(int64_t x, int64_t n, int p)
{
    // x < n and p <= INT_MAX, so x * p fits unless n is near 2^63 / p: divide in 128 bits.
    return (int)(((nt_u128)x * (nt_u128)p) / (nt_u128)n);
}

static nt_status gen_owner(ws *w)
{
    memcpy(w->part, w->ini, (size_t)w->n * sizeof *w->part);
    for (int c = 0; c < w->p; c++)
        w->sigma[c] = c;
    return consider(w, NT_STENCIL_OWNER, 0);
}

static nt_status gen_blocks(ws *w)
{
    static const struct {
        nt_stencil_strategy_t s;
        nt_match_objective obj;
    } kinds[3] = {{NT_STENCIL_BLOCK_CANONICAL, NT_MATCH_CANONICAL},
                  {NT_STENCIL_BLOCK_VOLUME, NT_MATCH_VOLUME},
                  {NT_STENCIL_BLOCK_STEPS, NT_MATCH_STEPS}};
    for (int64_t x = 0; x < w->n; x++)
        w->part[x] = block_of(x, w->n, w->p);
    for (int k = 0; k < 3; k++) {
        nt_status st = label(w, w->part, kinds[k].obj, w->sigma);
        if (st == NT_OK)
            st = consider(w, kinds[k].s, 0);
        if (st != NT_OK)
            return st;
    }
    return NT_OK;
}

// The block partition turned by r positions: item x gets the block of x - r.
static nt_status gen_rotated(ws *w)
{
    int64_t b = (w->n + w->p - 1) / w->p;
    if (w->p < 2 || b < 2)
        return NT_OK;
    int64_t prev = 0;
    int count = b - 1 < ROTATIONS_MAX ? (int)(b - 1) : ROTATIONS_MAX;
    for (int k = 1; k <= count; k++) {
        int64_t r = (int64_t)(((nt_u128)k * (nt_u128)b) / (nt_u128)(count + 1));
        if (r <= prev)
            continue;
        prev = r;
        for (int64_t x = 0; x < w->n; x++)
            w->part[x] = block_of(wrap(x - r, w->n), w->n, w->p);
        nt_status st = label(w, w->part, model_objective(w->model), w->sigma);
        if (st == NT_OK)
            st = consider(w, NT_STENCIL_BLOCK_ROTATED, r);
        if (st != NT_OK)
            return st;
    }
    return NT_OK;
}

// Arcs of a partition on the ring: maximal runs of one component, as starts in [x0, x0 + n).
typedef struct arcs {
    int64_t m;       // number of arcs
    int64_t *start;  // m + 1 entries; start[m] = start[0] + n
    int *comp;       // m entries
    int64_t min_len;
} arcs;

static nt_status arcs_of(const int *part, int64_t n, arcs *a)
{
    int64_t x0 = -1;
    for (int64_t x = 0; x < n && x0 < 0; x++)
        if (part[x] != part[x == 0 ? n - 1 : x - 1])
            x0 = x;
    a->m = 0;
    a->start = NULL;
    a->comp = NULL;
    if (x0 < 0)
        return NT_OK; // one component on the whole ring: nothing to shift
    int64_t m = 0;
    for (int64_t x = 0; x < n; x++)
        m += part[x] != part[x == 0 ? n - 1 : x - 1];
    a->start = malloc((size_t)(m + 1) * sizeof *a->start);
    a->comp = malloc((size_t)m * sizeof *a->comp);
    if (!a->start || !a->comp) {
        free(a->start);
        free(a->comp);
        a->start = NULL;
        a->comp = NULL;
        return nt_fail(NT_ENOMEM, "no memory for %lld arcs", (long long)m);
    }
    int64_t k = 0;
    for (int64_t y = x0; y < x0 + n; y++) {
        int64_t x = y % n;
        if (part[x] != part[x == 0 ? n - 1 : x - 1]) {
            a->start[k] = y;
            a->comp[k] = part[x];
            k++;
        }
    }
    a->m = m;
    a->start[m] = x0 + n;
    a->min_len = n;
    for (k = 0; k < m; k++)
        if (a->start[k + 1] - a->start[k] < a->min_len)
            a->min_len = a->start[k + 1] - a->start[k];
    return NT_OK;
}

// Move every arc boundary of the base partition within +-half items to keep the most items on
// their current domain, relabel, and repeat with the new labelling (windows stay centred on the
// base boundaries, so no arc grows or shrinks by more than 2*half items).
static nt_status shift_once(ws *w, const arcs *a, int64_t half)
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
        for (int64_t k = 0; k < a->m; k++) {
            int dl = sig[a->comp[k == 0 ? a->m - 1 : k - 1]], dr = sig[a->comp[k]];
            int64_t s = a->start[k], lo = s - half, hi = s + half;
            // Cut at lo: the whole window goes right. Each step right moves one item left.
            int64_t score = 0;
            for (int64_t y = lo; y < hi; y++)
                score += w->ini[wrap(y, n)] == dr;
            int64_t best_score = score, best_cut = lo;
            for (int64_t c = lo; c < hi; c++) {
                int d = w->ini[wrap(c, n)];
                score += (d == dl) - (d == dr);
                int64_t cc = c + 1;
                int64_t dist_new = cc > s ? cc - s : s - cc;
                int64_t dist_old = best_cut > s ? best_cut - s : s - best_cut;
                if (score > best_score || (score == best_score && dist_new < dist_old)) {
                    best_score = score;
                    best_cut = cc;
                }
            }
            cut[k] = best_cut;
        }
        cut[a->m] = cut[0] + n;
        for (int64_t k = 0; k < a->m; k++)
            for (int64_t y = cut[k]; y < cut[k + 1]; y++)
                w->part[wrap(y, n)] = a->comp[k];
        st = label(w, w->part, model_objective(w->model), w->sigma);
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
        st = consider(w, NT_STENCIL_SHIFTED, half);
    }
    free(cut);
    free(sig);
    free(bpart);
    return st;
}

static nt_status gen_shifted(ws *w)
{
    if (!w->have_base || w->p < 2)
        return NT_OK;
    arcs a;
    nt_status st = arcs_of(w->base_part, w->n, &a);
    if (st != NT_OK || a.m < 2) {
        free(a.start);
        free(a.comp);
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
    free(a.start);
    free(a.comp);
    return st;
}

// Root of a run in the absorption forest (path halving): the live run whose domain it takes.
static int64_t root_of(int64_t *parent, int64_t k)
{
    while (parent[k] != k) {
        parent[k] = parent[parent[k]];
        k = parent[k];
    }
    return k;
}

// Paint the merged runs and score them as the candidate of one threshold.
static nt_status merge_emit(ws *w, const arcs *a, int64_t *parent, int64_t threshold)
{
    for (int64_t k = 0; k < a->m; k++) {
        int d = a->comp[root_of(parent, k)];
        for (int64_t y = a->start[k]; y < a->start[k + 1]; y++)
            w->part[wrap(y, w->n)] = d;
    }
    nt_status st = label(w, w->part, model_objective(w->model), w->sigma);
    if (st == NT_OK)
        st = consider(w, NT_STENCIL_MERGED, threshold);
    return st;
}

// Runs of ini on the ring, merged shortest first: a run joins its longer neighbour (both
// neighbours, when they hold the same domain). Runs only grow, so the merges for threshold t
// are a prefix of those for any larger threshold: one pass over the lengths 1, 2, ... emits a
// candidate each time it reaches a threshold (2, 3, 4, 6, 8, 12, ... up to max(2, B)). Runs
// wait in buckets by length (stale entries are skipped), so the pass costs O(m + thresholds).
static nt_status gen_merged(ws *w)
{
    arcs a;
    nt_status st = arcs_of(w->ini, w->n, &a);
    if (st != NT_OK || a.m < 2) {
        free(a.start);
        free(a.comp);
        return st;
    }
    int64_t b = (w->n + w->p - 1) / w->p, top = b > 2 ? b : 2;
    int64_t thr[MERGE_THRESHOLDS], pair[2] = {2, 3};
    int nthr = 0;
    for (int k = 0; k < MERGE_THRESHOLDS && pair[k % 2] <= top; k++) {
        thr[nthr++] = pair[k % 2];
        pair[k % 2] *= 2;
    }
    int64_t m = a.m, tmax = thr[nthr - 1];
    // Per run: length, ring links, absorption parent; a pool of 2m bucket entries (every merge
    // re-files at most one run); bucket heads for lengths 0..tmax.
    size_t cells, bytes;
    if (!nt_mul_size((size_t)m, 8, &cells) || !nt_add_size(cells, (size_t)tmax + 1, &cells) ||
        !nt_mul_size(cells, sizeof(int64_t), &bytes)) {
        free(a.start);
        free(a.comp);
        return nt_fail(NT_ERANGE, "%lld runs: workspace size overflows", (long long)m);
    }
    int64_t *mem = malloc(bytes);
    if (!mem) {
        free(a.start);
        free(a.comp);
        return nt_fail(NT_ENOMEM, "no memory to merge %lld runs", (long long)m);
    }
    int64_t *len = mem, *prv = mem + m, *nxt = mem + 2 * m, *parent = mem + 3 * m;
    int64_t *pool_run = mem + 4 * m, *pool_next = mem + 6 * m, *head = mem + 8 * m;
    int64_t used = 0;
    for (int64_t l = 0; l <= tmax; l++)
        head[l] = -1;
    const int *lab = a.comp;
    for (int64_t k = 0; k < m; k++) {
        len[k] = a.start[k + 1] - a.start[k];
        prv[k] = k == 0 ? m - 1 : k - 1;
        nxt[k] = k == m - 1 ? 0 : k + 1;
        parent[k] = k;
        if (len[k] < tmax) {
            pool_run[used] = k;
            pool_next[used] = head[len[k]];
            head[len[k]] = used++;
        }
    }
    int64_t left = m, merges = 0;
    int next_thr = 0;
    for (int64_t l = 1; l <= tmax && st == NT_OK; l++) {
        // A threshold that merged nothing more than the previous one repeats its candidate.
        if (next_thr < nthr && thr[next_thr] == l && (next_thr == 0 || merges > 0)) {
            st = merge_emit(w, &a, parent, thr[next_thr]);
            merges = 0;
        }
        if (next_thr < nthr && thr[next_thr] == l)
            next_thr++;
        if (l == tmax)
            break;
        while (head[l] >= 0 && left > 1 && st == NT_OK) {
            int64_t e = head[l], k = pool_run[e];
            head[l] = pool_next[e];
            if (parent[k] != k || len[k] != l)
                continue; // absorbed or grown since it was filed
            int64_t pr = prv[k], nx = nxt[k];
            bool join3 = pr != nx && lab[pr] == lab[nx];
            int64_t into = join3 || len[pr] >= len[nx] ? pr : nx;
            len[into] += len[k];
            parent[k] = into;
            left--;
            merges++;
            prv[nx] = pr;
            nxt[pr] = nx;
            if (join3) {
                // pr and nx touch now and hold the same domain: one run.
                len[pr] += len[nx];
                parent[nx] = pr;
                left--;
                nxt[pr] = nxt[nx];
                prv[nxt[nx]] = pr;
            }
            if (len[into] < tmax && used < 2 * m) {
                pool_run[used] = into;
                pool_next[used] = head[len[into]];
                head[len[into]] = used++;
            }
        }
    }
    free(mem);
    free(a.start);
    free(a.comp);
    return st;
}

// Block partitions on q = 1, 2, 3, 4, 6, 8, ... < p components: when a halo costs more than
// the extra load, fewer, larger blocks win (q = 1: no halo at all).
static nt_status gen_fewer(ws *w)
{
    nt_status st = NT_OK;
    int64_t pair[2] = {2, 3}; // after 1: 2, 3, 4, 6, 8, 12, ... (each of the pair doubles)
    for (int k = 0; k < FEWER_COUNTS && st == NT_OK; k++) {
        int64_t c = 1;
        if (k > 0) {
            c = pair[(k - 1) % 2];
            pair[(k - 1) % 2] *= 2;
        }
        if (c >= w->p)
            break;
        for (int64_t x = 0; x < w->n; x++)
            w->part[x] = (int)(((nt_u128)x * (nt_u128)c) / (nt_u128)w->n);
        st = label(w, w->part, model_objective(w->model), w->sigma);
        if (st == NT_OK)
            st = consider(w, NT_STENCIL_BLOCK_FEWER, c);
    }
    return st;
}

// Incremental state of the local search: per-domain counters of the model under a fixed
// labelling, updated in O(1) per item change; totals read in O(p).
typedef struct lstate {
    int64_t *out, *in, *load, *sent, *recv;
    int64_t halo_volume, redist_volume;
} lstate;

static void item_halo(const ws *w, int64_t y, int64_t sgn, lstate *s)
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

static void item_place(const ws *w, int64_t y, int64_t sgn, lstate *s)
{
    int k = w->part[y], dst = w->sigma[k], src = w->ini[y];
    s->load[k] += sgn;
    if (dst != src) {
        s->redist_volume += sgn;
        s->sent[src] += sgn;
        s->recv[dst] += sgn;
    }
}

static double ls_total(const ws *w, const lstate *s)
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
static void ls_move(ws *w, int64_t x, int c, lstate *s)
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
static nt_status gen_local(ws *w)
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
    nt_status st = label(w, w->part, model_objective(w->model), w->sigma);
    if (st == NT_OK)
        st = consider(w, NT_STENCIL_LOCAL, moves);
    return st;
}

static nt_status check_inputs(int64_t n, int p, const int *ini, const nt_stencil_params_t *params,
                              nt_stencil_model_t model)
{
    if (p < 1)
        return nt_fail(NT_EINVAL, "p = %d: need at least one domain", p);
    if (n < p)
        return nt_fail(NT_EINVAL, "n = %lld items is fewer than p = %d domains", (long long)n, p);
    if (!ini)
        return nt_fail(NT_EINVAL, "ini is NULL");
    for (int64_t x = 0; x < n; x++)
        if (ini[x] < 0 || ini[x] >= p)
            return nt_fail(NT_EINVAL, "ini[%lld] = %d is out of range [0, %d)", (long long)x,
                           ini[x], p);
    nt_status st = nt_stencil_check_params(params);
    if (st != NT_OK)
        return st;
    if (model != NT_STENCIL_MODEL_VOLUME && model != NT_STENCIL_MODEL_STEPS)
        return nt_fail(NT_EINVAL, "model = %d is not a stencil model", (int)model);
    return NT_OK;
}

// Run the families the target needs; results in w->best*, candidates in w->choice.
static nt_status run(int64_t n, int p, const int *ini, const nt_stencil_params_t *params,
                     nt_stencil_model_t model, nt_stencil_strategy_t target,
                     nt_stencil_choice_t *choice, ws *w)
{
    memset(w, 0, sizeof *w);
    w->n = n;
    w->p = p;
    w->ini = ini;
    w->params = params;
    w->model = model;
    w->target = target;
    w->choice = choice;
    if (choice)
        choice->ncandidates = 0;

    size_t pp, pp_bytes, n_bytes, p_bytes;
    if (!nt_mul_size((size_t)p, (size_t)p, &pp) || !nt_mul_size(pp, sizeof(int64_t), &pp_bytes) ||
        !nt_mul_size((size_t)n, sizeof(int), &n_bytes) ||
        !nt_mul_size((size_t)p, sizeof(int), &p_bytes))
        return nt_fail(NT_ERANGE, "n = %lld, p = %d: workspace size overflows", (long long)n, p);
    w->counts = malloc(pp_bytes);
    w->part = malloc(n_bytes);
    w->best_part = malloc(n_bytes);
    w->base_part = malloc(n_bytes);
    w->sigma = malloc(p_bytes);
    w->best_sigma = malloc(p_bytes);
    w->base_sigma = malloc(p_bytes);
    w->seed_part = malloc(n_bytes);
    w->seed_sigma = malloc(p_bytes);
    w->tmp = malloc(p_bytes);
    if (!w->counts || !w->part || !w->best_part || !w->base_part || !w->sigma ||
        !w->best_sigma || !w->base_sigma || !w->seed_part || !w->seed_sigma || !w->tmp)
        return nt_fail(NT_ENOMEM, "no memory for the workspace (n = %lld, p = %d)",
                       (long long)n, p);

    // The local search starts from the best of every other family, so it needs them all.
    bool all = target == NT_STENCIL_PART_REDISTRIB || target == NT_STENCIL_LOCAL;
    bool shift = all || target == NT_STENCIL_SHIFTED;
    bool rot = shift || target == NT_STENCIL_BLOCK_ROTATED;
    bool blocks = rot || target == NT_STENCIL_BLOCK_CANONICAL ||
                  target == NT_STENCIL_BLOCK_VOLUME || target == NT_STENCIL_BLOCK_STEPS;
    nt_status st = NT_OK;
    if (all || target == NT_STENCIL_OWNER)
        st = gen_owner(w);
    if (st == NT_OK && blocks)
        st = gen_blocks(w);
    if (st == NT_OK && rot)
        st = gen_rotated(w);
    if (st == NT_OK && shift)
        st = gen_shifted(w);
    if (st == NT_OK && (all || target == NT_STENCIL_MERGED))
        st = gen_merged(w);
    if (st == NT_OK && (all || target == NT_STENCIL_BLOCK_FEWER))
        st = gen_fewer(w);
    if (st == NT_OK && all)
        st = gen_local(w);
    if (st == NT_OK && !w->have_best) {
        // A family with no member on this instance (no rotation when blocks hold one item, no
        // boundary to shift, a single run to merge, p = 1 for fewer components) returns its
        // starting point.
        if (target == NT_STENCIL_SHIFTED) {
            memcpy(w->part, w->base_part, n_bytes);
            memcpy(w->sigma, w->base_sigma, p_bytes);
        } else {
            for (int64_t x = 0; x < n; x++)
                w->part[x] = target == NT_STENCIL_MERGED ? ini[x] : block_of(x, n, p);
            st = label(w, w->part, model_objective(model), w->sigma);
        }
        if (st == NT_OK)
            st = consider(w, target, target == NT_STENCIL_MERGED ? 1 : 0);
    }
    return st;
}

static void release(ws *w)
{
    free(w->counts);
    free(w->part);
    free(w->best_part);
    free(w->base_part);
    free(w->sigma);
    free(w->best_sigma);
    free(w->base_sigma);
    free(w->seed_part);
    free(w->seed_sigma);
    free(w->tmp);
}

// Shared by the public entry points: run for a target, copy the winner out on success only.
static nt_status solve(int64_t n, int p, const int *ini, const nt_stencil_params_t *params,
                       nt_stencil_model_t model, nt_stencil_strategy_t target, int *part,
                       int *sigma, nt_stencil_cost_t *cost, nt_stencil_choice_t *choice)
{
    nt_status st = check_inputs(n, p, ini, params, model);
    if (st != NT_OK)
        return st;
    if ((int)target < 0 || target >= NT_STENCIL_NSTRATEGIES)
        return nt_fail(NT_EINVAL, "strategy %d is not a stencil strategy", (int)target);
    nt_stencil_choice_t *local = NULL;
    if (choice) {
        local = malloc(sizeof *local);
        if (!local)
            return nt_fail(NT_ENOMEM, "no memory for the candidate report");
    }
    ws w;
    st = run(n, p, ini, params, model, target, local, &w);
    if (st == NT_OK) {
        if (part)
            memcpy(part, w.best_part, (size_t)n * sizeof *part);
        if (sigma)
            memcpy(sigma, w.best_sigma, (size_t)p * sizeof *sigma);
        if (cost)
            *cost = w.best.cost;
        if (choice) {
            local->best = w.best;
            *choice = *local;
        }
    }
    release(&w);
    free(local);
    return st;
}

nt_status nt_stencil_part_redistrib(int64_t n, int p, const int *ini,
                                    const nt_stencil_params_t *params, nt_stencil_model_t model,
                                    int *part, int *sigma, nt_stencil_choice_t *choice)
{
    if (!part)
        return nt_fail(NT_EINVAL, "part is NULL");
    if (!sigma)
        return nt_fail(NT_EINVAL, "sigma is NULL");
    return solve(n, p, ini, params, model, NT_STENCIL_PART_REDISTRIB, part, sigma, NULL, choice);
}

nt_status nt_stencil_strategy_apply(int64_t n, int p, const int *ini,
                                    const nt_stencil_params_t *params, nt_stencil_model_t model,
                                    nt_stencil_strategy_t strategy, int *part, int *sigma,
                                    nt_stencil_cost_t *cost)
{
    return solve(n, p, ini, params, model, strategy, part, sigma, cost, NULL);
}

nt_status nt_stencil_compare(int64_t n, int p, const int *ini, const nt_stencil_params_t *params,
                             nt_stencil_model_t model, const nt_stencil_strategy_t *strategies,
                             size_t count, nt_stencil_cost_t *costs)
{
    if (!strategies)
        return nt_fail(NT_EINVAL, "strategies is NULL");
    if (count == 0)
        return nt_fail(NT_EINVAL, "count is 0: no strategy to compare");
    if (!costs)
        return nt_fail(NT_EINVAL, "costs is NULL");
    for (size_t k = 0; k < count; k++)
        if ((int)strategies[k] < 0 || strategies[k] >= NT_STENCIL_NSTRATEGIES)
            return nt_fail(NT_EINVAL, "strategies[%zu] = %d is not a stencil strategy", k,
                           (int)strategies[k]);
    nt_status st = check_inputs(n, p, ini, params, model);
    if (st != NT_OK)
        return st;
    nt_stencil_cost_t *out = malloc(count * sizeof *out);
    if (!out)
        return nt_fail(NT_ENOMEM, "no memory for %zu costs", count);
    // One full run scores every family; a family absent from it (no member on this instance)
    // is scored by its own run, which supplies the starting point.
    nt_stencil_choice_t *ch = malloc(sizeof *ch);
    if (!ch) {
        free(out);
        return nt_fail(NT_ENOMEM, "no memory for the candidate report");
    }
    int *part = malloc((size_t)n * sizeof *part), *sigma = malloc((size_t)p * sizeof *sigma);
    if (!part || !sigma)
        st = nt_fail(NT_ENOMEM, "no memory for a partition of %lld items", (long long)n);
    if (st == NT_OK)
        st = nt_stencil_part_redistrib(n, p, ini, params, model, part, sigma, ch);
    for (size_t k = 0; k < count && st == NT_OK; k++) {
        if (strategies[k] == NT_STENCIL_PART_REDISTRIB) {
            out[k] = ch->best.cost;
            continue;
        }
        bool found = false;
        for (size_t c = 0; c < ch->ncandidates; c++) {
            const nt_stencil_candidate_t *cd = &ch->candidates[c];
            if (cd->strategy == strategies[k] &&
                (!found || nt_stencil_total(&cd->cost, model) < nt_stencil_total(&out[k], model))) {
                out[k] = cd->cost;
                found = true;
            }
        }
        if (!found)
            st = solve(n, p, ini, params, model, strategies[k], NULL, NULL, &out[k], NULL);
    }
    if (st == NT_OK)
        memcpy(costs, out, count * sizeof *out);
    free(out);
    free(ch);
    free(part);
    free(sigma);
    return st;
}
