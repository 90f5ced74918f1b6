// Hierarchical relabelling (match.h, nt_match_hier_solve): target rank-groups placed on ranks by
// an exact R x R matching of the aggregated count matrix, then each group's parts placed on its
// rank's domains by an exact matching of the rank's own sub-problem. Costs split into what
// crosses ranks and what moves between domains of one rank.
#include <stdlib.h>
#include <string.h>

#include "nt_partition.h"

// Validated view of a problem: padded domain count, ranks, each rank's domains in order.
typedef struct hview {
    int pi, pt, pd, nr;
    const int64_t *n, *dist;
    const int *rank_of;
    int64_t total;
    int *first; // nr + 1 offsets into doms
    int *doms;  // pd domains grouped by rank, ascending within a rank
    int *gfirst; // nr + 1 offsets into parts
    int *parts;  // pt parts grouped by target rank-group (rank_of[j]), ascending within a group
} hview;

static void hview_free(hview *v)
{
    free(v->first);
    free(v->doms);
    free(v->gfirst);
    free(v->parts);
}

// Bucket labels 0..len-1 by key[label] (in 0..nr-1), stable: first[] offsets, out[] labels.
static void bucket(const int *key, int len, int nr, int *first, int *out)
{
    memset(first, 0, (size_t)(nr + 1) * sizeof *first);
    for (int x = 0; x < len; x++)
        first[key[x] + 1]++;
    for (int r = 0; r < nr; r++)
        first[r + 1] += first[r];
    // first[r] serves as rank r's cursor, then the cursors (now each next rank's start) shift
    // back by one to become the offsets again.
    for (int x = 0; x < len; x++)
        out[first[key[x]]++] = x;
    memmove(first + 1, first, (size_t)nr * sizeof *first);
    first[0] = 0;
}

// Everything about the problem except the objectives; fills v (free with hview_free).
static nt_status hview_init(const nt_match_hier_problem_t *prob, hview *v)
{
    *v = (hview){0};
    if (!prob)
        return nt_fail(NT_EINVAL, "match_hier: prob is NULL");
    v->pi = prob->p_ini;
    v->pt = prob->p_tar;
    v->pd = prob->p_dom ? prob->p_dom : (prob->p_ini > prob->p_tar ? prob->p_ini : prob->p_tar);
    v->n = prob->counts;
    v->dist = prob->dist;
    v->nr = prob->nranks;
    v->rank_of = prob->rank_of;
    nt_status st = nt_shape_check("match_hier", v->pi, v->pt, v->pd);
    if (st != NT_OK)
        return st;
    if (v->pd > NT_MATCH_MAX_P)
        return nt_fail(NT_ERANGE, "match_hier: p_dom %d is more than the limit of %d", v->pd,
                       NT_MATCH_MAX_P);
    if (!v->n)
        return nt_fail(NT_EINVAL, "match_hier: counts is NULL");
    if (!v->rank_of)
        return nt_fail(NT_EINVAL, "match_hier: rank_of is NULL");
    if (v->nr < 1 || v->nr > v->pd)
        return nt_fail(NT_EINVAL, "match_hier: nranks %d is not in 1..p_dom (%d): every rank "
                       "needs a domain", v->nr, v->pd);
    for (int k = 0; k < v->pd; k++)
        if (v->rank_of[k] < 0 || v->rank_of[k] >= v->nr)
            return nt_fail(NT_EINVAL, "match_hier: rank_of[%d] = %d is not a rank 0..%d", k,
                           v->rank_of[k], v->nr - 1);
    if ((st = nt_counts_total(v->n, v->pi, v->pt, &v->total)) != NT_OK)
        return st;
    if (v->dist)
        for (int64_t x = 0; x < (int64_t)v->pd * v->pd; x++)
            if (v->dist[x] < 0)
                return nt_fail(NT_EINVAL, "match_hier: dist[%lld][%lld] = %lld is negative",
                               (long long)(x / v->pd), (long long)(x % v->pd),
                               (long long)v->dist[x]);
    v->first = malloc((size_t)(v->nr + 1) * sizeof *v->first);
    v->doms = malloc((size_t)v->pd * sizeof *v->doms);
    v->gfirst = malloc((size_t)(v->nr + 1) * sizeof *v->gfirst);
    v->parts = malloc((size_t)v->pt * sizeof *v->parts);
    if (!v->first || !v->doms || !v->gfirst || !v->parts) {
        hview_free(v);
        return nt_fail(NT_ENOMEM, "match_hier: cannot allocate scratch for %d domains", v->pd);
    }
    bucket(v->rank_of, v->pd, v->nr, v->first, v->doms);
    bucket(v->rank_of, v->pt, v->nr, v->gfirst, v->parts); // part j's group = rank_of[j]
    for (int r = 0; r < v->nr; r++)
        if (v->first[r + 1] == v->first[r]) {
            hview_free(v);
            return nt_fail(NT_EINVAL, "match_hier: rank %d has no domain in rank_of", r);
        }
    return NT_OK;
}

// Costs of a full labelling: inter/intra split, rank-level one-port steps, domain-level costs.
static nt_status hier_cost(const hview *v, const int *sigma, nt_match_hier_cost_t *out)
{
    nt_match_hier_cost_t c = {0};
    nt_status st = nt_cost_eval(v->n, v->pi, v->pt, v->pd, sigma, v->dist, &c.total);
    if (st != NT_OK)
        return st;
    int64_t *sent = calloc((size_t)v->nr, sizeof *sent);
    int64_t *recv = calloc((size_t)v->nr, sizeof *recv);
    if (!sent || !recv) {
        free(sent);
        free(recv);
        return nt_fail(NT_ENOMEM, "match_hier: cannot allocate %d rank sums", v->nr);
    }
    // Every sum is a partial sum of the checked total: no overflow.
    for (int i = 0; i < v->pi; i++)
        for (int j = 0; j < v->pt; j++) {
            int64_t w = v->n[(int64_t)i * v->pt + j];
            int k = sigma[j], a = v->rank_of[i], b = v->rank_of[k];
            if (a != b) {
                c.inter_volume += w;
                sent[a] += w;
                recv[b] += w;
            } else if (i != k) {
                c.intra_volume += w;
            }
        }
    for (int r = 0; r < v->nr; r++) {
        if (sent[r] > c.inter_steps)
            c.inter_steps = sent[r];
        if (recv[r] > c.inter_steps)
            c.inter_steps = recv[r];
    }
    free(sent);
    free(recv);
    *out = c;
    return NT_OK;
}

// Rank level: group g (the parts j with rank_of[j] = g) goes to rank group_rank[g]. The R x R
// aggregate a[s][g] = weight on rank s's domains of the parts of group g is an ordinary
// relabelling problem; a group may only go to a rank with as many domains as it has parts.
static nt_status place_groups(const hview *v, nt_match_objective obj, int *group_rank)
{
    int nr = v->nr;
    int64_t *a = calloc((size_t)nr * (size_t)nr, sizeof *a);
    unsigned char *ok = malloc((size_t)nr * (size_t)nr);
    if (!a || !ok) {
        free(a);
        free(ok);
        return nt_fail(NT_ENOMEM, "match_hier: cannot allocate the %d x %d rank matrix", nr, nr);
    }
    bool masked = false;
    for (int s = 0; s < nr; s++)
        for (int g = 0; g < nr; g++) {
            ok[s * nr + g] = v->gfirst[g + 1] - v->gfirst[g] <= v->first[s + 1] - v->first[s];
            masked |= !ok[s * nr + g];
        }
    for (int i = 0; i < v->pi; i++)
        for (int j = 0; j < v->pt; j++)
            a[(int64_t)v->rank_of[i] * nr + v->rank_of[j]] += v->n[(int64_t)i * v->pt + j];
    nt_match_problem_t rp = {.p_ini = nr, .p_tar = nr, .p_dom = nr, .counts = a,
                             .allowed = masked ? ok : NULL};
    nt_status st = nt_match_solve(&rp, obj, group_rank, NULL);
    free(a);
    free(ok);
    return st;
}

// Inside rank r: the t parts of a group onto the rank's m domains (t <= m), by volume (keep
// the most on its domain) or distance-weighted volume (bring each part from every source,
// other ranks included, at the least distance cost). Writes sigma for those parts.
static nt_status place_parts(const hview *v, nt_match_objective obj, const int *dom, int m,
                             const int *part, int t, int *sigma)
{
    if (obj == NT_MATCH_CANONICAL) {
        for (int x = 0; x < t; x++)
            sigma[part[x]] = dom[x];
        return NT_OK;
    }
    int64_t *c = calloc((size_t)m * (size_t)m, sizeof *c);
    int *res = malloc((size_t)m * sizeof *res);
    nt_status st = NT_OK;
    if (!c || !res) {
        st = nt_fail(NT_ENOMEM, "match_hier: cannot allocate a %d x %d rank sub-problem", m, m);
        goto done;
    }
    if (obj == NT_MATCH_VOLUME) {
        // Rows = the rank's domains (empty beyond p_ini), columns = the group's parts.
        for (int k = 0; k < m; k++)
            for (int x = 0; x < t && dom[k] < v->pi; x++)
                c[(int64_t)k * t + x] = v->n[(int64_t)dom[k] * v->pt + part[x]];
        nt_match_problem_t lp = {.p_ini = m, .p_tar = t, .p_dom = m, .counts = c};
        if ((st = nt_match_solve(&lp, NT_MATCH_VOLUME, res, NULL)) == NT_OK)
            for (int x = 0; x < t; x++)
                sigma[part[x]] = dom[res[x]];
        goto done;
    }
    // Distance: c[k][x] = sum_{i != dom_k} n[i][part_x] * dist[i][dom_k]; padded columns cost 0.
    int64_t maxd = 0, bound;
    for (int k = 0; k < m; k++)
        for (int i = 0; i < v->pi; i++)
            if (v->dist[(int64_t)i * v->pd + dom[k]] > maxd)
                maxd = v->dist[(int64_t)i * v->pd + dom[k]];
    if (!nt_mul_i64(v->total, maxd, &bound) || bound > nt_assign_cost_limit(m)) {
        st = nt_fail(NT_ERANGE, "match_hier: total weight x largest distance exceeds 2^58 / %d",
                     m);
        goto done;
    }
    for (int k = 0; k < m; k++)
        for (int i = 0; i < v->pi; i++) {
            int64_t d = v->dist[(int64_t)i * v->pd + dom[k]];
            if (i == dom[k] || d == 0)
                continue;
            for (int x = 0; x < t; x++)
                c[(int64_t)k * m + x] += v->n[(int64_t)i * v->pt + part[x]] * d;
        }
    if ((st = nt_match_assignment(c, m, res, NULL)) == NT_OK)
        for (int x = 0; x < t; x++)
            sigma[part[x]] = dom[res[x]];
done:
    free(c);
    free(res);
    return st;
}

// Rank level with split groups: component j may go to any rank. A labelling's inter-rank
// volume is sum_j (C_j - b[rank(sigma_j)][j]), b[s][j] = weight of j on rank s's domains, so
// the volume matching of the p_dom x p_tar matrix n'[k][j] = b[rank_of[k]][j] minimises it
// over all labellings (ranks with D_r domains take at most D_r components).
static nt_status place_split(const hview *v, int *part_rank)
{
    int pd = v->pd, pt = v->pt;
    int64_t *b = calloc((size_t)v->nr * (size_t)pt, sizeof *b);
    int64_t *np = malloc((size_t)pd * (size_t)pt * sizeof *np);
    int *res = malloc((size_t)pt * sizeof *res);
    nt_status st = NT_OK;
    if (!b || !np || !res) {
        st = nt_fail(NT_ENOMEM, "match_hier: cannot allocate a %d x %d matrix", pd, pt);
        goto done;
    }
    for (int i = 0; i < v->pi; i++)
        for (int j = 0; j < pt; j++)
            b[(int64_t)v->rank_of[i] * pt + j] += v->n[(int64_t)i * pt + j];
    for (int k = 0; k < pd; k++)
        memcpy(np + (int64_t)k * pt, b + (int64_t)v->rank_of[k] * pt, (size_t)pt * sizeof *np);
    nt_match_problem_t sp = {.p_ini = pd, .p_tar = pt, .p_dom = pd, .counts = np};
    if ((st = nt_match_solve(&sp, NT_MATCH_VOLUME, res, NULL)) == NT_OK)
        for (int j = 0; j < pt; j++)
            part_rank[j] = v->rank_of[res[j]];
done:
    free(b);
    free(np);
    free(res);
    return st;
}

// Domain level: the components of each rank (part_rank) onto its domains, into res.
static nt_status place_all(const hview *v, nt_match_objective obj, const int *part_rank,
                           int *res)
{
    int *first = malloc((size_t)(v->nr + 1) * sizeof *first);
    int *parts = malloc((size_t)v->pt * sizeof *parts);
    nt_status st = NT_OK;
    if (!first || !parts)
        st = nt_fail(NT_ENOMEM, "match_hier: cannot allocate %d labels", v->pt);
    else
        bucket(part_rank, v->pt, v->nr, first, parts);
    for (int r = 0; r < v->nr && st == NT_OK; r++) {
        int t = first[r + 1] - first[r];
        if (t > 0)
            st = place_parts(v, obj, v->doms + v->first[r], v->first[r + 1] - v->first[r],
                             parts + first[r], t, res);
    }
    free(first);
    free(parts);
    return st;
}

static nt_status check_objectives(const nt_match_hier_problem_t *prob,
                                  nt_match_objective rank_obj, nt_match_objective domain_obj)
{
    if (rank_obj != NT_MATCH_CANONICAL && rank_obj != NT_MATCH_VOLUME &&
        rank_obj != NT_MATCH_STEPS && rank_obj != NT_MATCH_LEX)
        return nt_fail(NT_EINVAL, "match_hier: rank objective %d is not canonical, volume, "
                       "steps or lex", (int)rank_obj);
    if (prob && prob->split_groups && rank_obj != NT_MATCH_CANONICAL &&
        rank_obj != NT_MATCH_VOLUME)
        return nt_fail(NT_EINVAL, "match_hier: with split_groups the rank objective must be "
                       "volume or canonical, not %s", nt_match_objective_name(rank_obj));
    if (domain_obj != NT_MATCH_CANONICAL && domain_obj != NT_MATCH_VOLUME &&
        domain_obj != NT_MATCH_DISTANCE)
        return nt_fail(NT_EINVAL, "match_hier: domain objective %d is not canonical, volume or "
                       "distance", (int)domain_obj);
    if (prob && domain_obj == NT_MATCH_DISTANCE && !prob->dist)
        return nt_fail(NT_EINVAL, "match_hier: the distance domain objective needs dist");
    return NT_OK;
}

nt_status nt_match_hier_solve(const nt_match_hier_problem_t *prob, nt_match_objective rank_obj,
                              nt_match_objective domain_obj, int *sigma, int *group_rank,
                              nt_match_hier_cost_t *cost)
{
    if (!sigma)
        return nt_fail(NT_EINVAL, "match_hier: sigma is NULL");
    nt_status st = check_objectives(prob, rank_obj, domain_obj);
    hview v;
    if (st != NT_OK || (st = hview_init(prob, &v)) != NT_OK)
        return st;
    bool split = prob->split_groups && rank_obj == NT_MATCH_VOLUME;
    int *gr = malloc((size_t)v.nr * sizeof *gr);
    int *part_rank = malloc((size_t)v.pt * sizeof *part_rank);
    int *res = malloc((size_t)v.pt * sizeof *res);
    nt_match_hier_cost_t c;
    if (!gr || !part_rank || !res) {
        st = nt_fail(NT_ENOMEM, "match_hier: cannot allocate %d labels", v.pt);
        goto done;
    }
    if (split) {
        st = place_split(&v, part_rank);
    } else if ((st = place_groups(&v, rank_obj, gr)) == NT_OK) {
        for (int j = 0; j < v.pt; j++)
            part_rank[j] = gr[v.rank_of[j]];
    }
    if (st == NT_OK)
        st = place_all(&v, domain_obj, part_rank, res);
    if (st == NT_OK && cost)
        st = hier_cost(&v, res, &c);
    if (st == NT_OK) {
        memcpy(sigma, res, (size_t)v.pt * sizeof *sigma);
        for (int g = 0; group_rank && g < v.nr; g++)
            group_rank[g] = prob->split_groups ? -1 : gr[g];
        if (cost)
            *cost = c;
    }
done:
    free(gr);
    free(part_rank);
    free(res);
    hview_free(&v);
    return st;
}

nt_status nt_match_hier_cost(const nt_match_hier_problem_t *prob, const int *sigma,
                             nt_match_hier_cost_t *cost)
{
    if (!sigma || !cost)
        return nt_fail(NT_EINVAL, "match_hier cost: sigma or cost is NULL");
    hview v;
    nt_status st = hview_init(prob, &v);
    if (st != NT_OK)
        return st;
    st = nt_sigma_check("match_hier cost", sigma, v.pt, v.pd);
    if (st == NT_OK)
        st = hier_cost(&v, sigma, cost);
    hview_free(&v);
    return st;
}

nt_status nt_match_hier_ranks(int p_dom, int nranks, int *rank_of)
{
    if (!rank_of)
        return nt_fail(NT_EINVAL, "match_hier ranks: rank_of is NULL");
    if (p_dom < 1 || nranks < 1 || nranks > p_dom || p_dom % nranks)
        return nt_fail(NT_EINVAL, "match_hier ranks: %d domains do not split into %d equal "
                       "ranks", p_dom, nranks);
    int per = p_dom / nranks;
    for (int k = 0; k < p_dom; k++)
        rank_of[k] = k / per;
    return NT_OK;
}
