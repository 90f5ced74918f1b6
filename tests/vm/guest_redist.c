// Guest integration tests of redistribution (tests/vm/run.sh): tiled matrices on the guest's
// physical NUMA domains, redistributed between DISTs, tile sizes, layouts and element sizes,
// with submatrices and every relabelling objective, in copy and move mode, free and steps
// schedules.
//
// Oracles, all computed here from the two maps and the source values:
// - placement: every page of every tile is on its domain's node, by nt_matrix_check_placement
//   and by a move_pages(2) status query made here (pages deduplicated per matrix; a page that
//   two tiles of different nodes share is an error of its own);
// - contents: every target element of the submatrix holds the value this program wrote at the
//   source coordinates, every other target element is zero (own per-element loop, with its own
//   address arithmetic), and nt_matrix_compare agrees;
// - statistics: bytes moved, bytes that changed node and bytes per domain pair recounted
//   element by element; the tiles that must be kept or migrated and their pages derived from
//   the tile geometry; migrated tiles keep their address and their pages, on the source node
//   before, are on the target node after; every copy task ran on its intended domain;
// - the steps schedule gives the same target (map, bytes, statistics) as the free schedule;
// - a relabelled plan is no worse than the identity for its objective.
// Prints one line per check, then "guest: redist tests=T passed=P failed=F".
#include "guest_common.h"

static int64_t migrated_total; // pages the oracle saw change node in move mode
static int ndom;               // domains of the physical topology

// --- Values written to the source: a hash of the coordinates, independent of the library --

static void value_of(uint64_t seed, int64_t r, int64_t c, unsigned char *out, size_t es)
{
    for (size_t off = 0; off < es; off += 8) {
        uint64_t w = mix(seed ^ mix((uint64_t)r * 0x9E3779B97F4A7C15ull + (uint64_t)c) ^
                         (uint64_t)off);
        size_t n = es - off < 8 ? es - off : 8;
        memcpy(out + off, &w, n);
    }
}

static void fill_fn(int64_t r, int64_t c, void *elem, size_t es, void *arg)
{
    value_of(*(const uint64_t *)arg, r, c, elem, es);
}

// Address of element (r,c), computed here from the descriptor's tiles and leading dimensions.
static const unsigned char *elem_at(const nt_matrix_t *A, int64_t r, int64_t c)
{
    int64_t i = r / A->mb, j = c / A->nb;
    int64_t ld = A->layout == NT_LAYOUT_TILE ? (i < A->mt - 1 ? A->mb : A->m - i * A->mb)
                                             : A->lld[A->owner[i * A->nt + j]];
    return (const unsigned char *)A->tile[i * A->nt + j] +
           ((size_t)(c - j * A->nb) * (size_t)ld + (size_t)(r - i * A->mb)) * A->elem_size;
}

// --- Placement: the library's report and the move_pages oracle (guest_common.h) ---------------

// Both placement checks of a matrix.
static void check_placed(const nt_matrix_t *A, const char *name, const char *what)
{
    nt_placement_report_t rep;
    nt_status st = nt_matrix_check_placement(A, &rep);
    check(st == NT_OK && rep.pages > 0 && rep.on_domain == rep.pages && rep.elsewhere == 0 &&
          rep.absent == 0, "%s: %s: nt_matrix_check_placement: %lld of %lld pages on their "
          "domain's node (elsewhere %lld, absent %lld)", name, what,
          st ? -1LL : (long long)rep.on_domain, st ? -1LL : (long long)rep.pages,
          st ? -1LL : (long long)rep.elsewhere, st ? -1LL : (long long)rep.absent);
    oracle_res o = oracle_matrix(A);
    check(o.sys_ok && o.pages > 0 && o.on_node == o.pages && o.conflicts == 0,
          "%s: %s: move_pages finds %lld of %lld tile pages on their domain's node "
          "(%lld pages shared across nodes)", name, what, (long long)o.on_node,
          (long long)o.pages, (long long)o.conflicts);
}

// Anonymous memory in transparent huge pages (kB) of the mapping that holds p
// (/proc/self/smaps), -1 when none does.
static long thp_kb_at(const void *p)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[512];
    long kb = -1;
    bool in = false;
    while (f && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
            in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
        else if (in && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
            break;
    }
    if (f)
        fclose(f);
    return kb;
}

// Whether huge pages can be in use: the kernel has them and NT_NO_HUGEPAGES is not set.
static bool thp_possible(void)
{
    const char *e = getenv("NT_NO_HUGEPAGES");
    if (e && *e && strcmp(e, "0") != 0)
        return false;
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    char line[128] = "";
    bool ok = f && fgets(line, sizeof line, f) && !strstr(line, "[never]");
    if (f)
        fclose(f);
    return ok;
}

// --- The cases ---------------------------------------------------------------------------------

typedef struct rcase {
    const char *name;
    int64_t m, n, mb, nb;
    size_t es;
    const char *sspec; // P, Q, D are replaced by the grid and the domain count
    nt_layout sl;
    int64_t m2, n2, mb2, nb2;
    const char *tspec;
    nt_layout tl;
    bool has_sub;
    nt_sub_t sub;
    nt_match_objective rel;
    nt_exec_mode mode;
    bool prealloc;      // the target has memory before the execution (copy, no relabelling)
    bool want_migrate;  // the case is built so that some tiles migrate
    nt_exec_order order; // copy order of periodic plans (AUTO: TARGET on several nodes)
} rcase;

static int gridP, gridQ;

static void expand(const char *tmpl, char *out, size_t cap, int *ndomains)
{
    size_t k = 0;
    for (const char *p = tmpl; *p && k + 12 < cap; p++) {
        if (*p == 'P')
            k += (size_t)snprintf(out + k, cap - k, "%d", gridP);
        else if (*p == 'Q')
            k += (size_t)snprintf(out + k, cap - k, "%d", gridQ);
        else if (*p == 'D')
            k += (size_t)snprintf(out + k, cap - k, "%d", ndom);
        else
            out[k++] = *p;
    }
    out[k] = '\0';
    *ndomains = strncmp(out, "random", 6) == 0 || strncmp(out, "balanced", 8) == 0 ? ndom : 0;
}

static const char *obj_name(nt_match_objective o)
{
    static const char *names[] = {"canonical", "volume", "steps", "lex", "distance"};
    return (int)o >= 0 && (int)o < 5 ? names[o] : "?";
}

// What one execution produced, kept to compare the free and the steps schedule.
typedef struct run_out {
    nt_matrix_t *S, *T;
    nt_exec_stats_t stats;
    bool ok;
} run_out;

// Where a target tile's data comes from, and whether the executor can adopt that tile.
static bool adoptable(const rcase *k, const nt_matrix_t *S, const nt_matrix_t *T, int64_t ti,
                      int64_t tj, int64_t *src_tile)
{
    if (k->prealloc || S->layout != NT_LAYOUT_TILE || T->layout != NT_LAYOUT_TILE)
        return false;
    int64_t r0 = ti * T->mb, c0 = tj * T->nb, rows = rows_of(T, ti), cols = cols_of(T, tj);
    nt_sub_t s = k->has_sub ? k->sub : (nt_sub_t){S->m, S->n, 0, 0, 0, 0};
    if (r0 < s.dst_row || r0 + rows > s.dst_row + s.rows || c0 < s.dst_col ||
        c0 + cols > s.dst_col + s.cols)
        return false;
    int64_t sr = r0 - s.dst_row + s.src_row, sc = c0 - s.dst_col + s.src_col;
    if (sr % S->mb || sc % S->nb)
        return false;
    int64_t si = sr / S->mb, sj = sc / S->nb;
    if (rows_of(S, si) != rows || cols_of(S, sj) != cols)
        return false;
    if ((size_t)rows * (size_t)cols * S->elem_size < pgsz)
        return false;
    *src_tile = si * S->nt + sj;
    return true;
}

static int64_t pair_steps(const int64_t *pair, const int64_t *dist, int64_t *moved,
                          int64_t *distvol)
{
    int64_t steps = 0;
    *moved = *distvol = 0;
    for (int a = 0; a < ndom; a++) {
        int64_t out = 0, in = 0;
        for (int b = 0; b < ndom; b++)
            if (a != b) {
                out += pair[a * ndom + b];
                in += pair[b * ndom + a];
                *moved += pair[a * ndom + b];
                *distvol += pair[a * ndom + b] * dist[a * ndom + b];
            }
        if (out > steps)
            steps = out;
        if (in > steps)
            steps = in;
    }
    return steps;
}

// One execution under test: the case, its matrices, and what the oracle took from the maps
// before the execution (copies: the plan is freed and the target's map replaced by then).
typedef struct rrun {
    const rcase *k;
    char name[256];
    uint64_t seed;
    nt_matrix_t *S, *T;
    nt_sub_t whole;
    const nt_sub_t *sub, *sb; // the submatrix as passed to the plan (NULL: all), as used
    size_t nst, ntt;
    int *tmap;                // target component of each tile before the execution
    char **saddr;             // the source's tile addresses before
    int64_t *pair, *pair0;    // bytes per domain pair after relabelling, with the identity
    int64_t *dist;            // the topology's distances
    int64_t *src_of;          // adoptable target tile -> source tile (-1: copied)
    int sigma[MAXN];
    // Tiles that must be kept or migrated, their pages on the source node before.
    int64_t want_kept, want_mig, want_mig_pages, before_on_src, adopted_bytes;
    // The recount: bytes of the submatrix, moved, that change node; one-port steps.
    int64_t bytes_all, moved, node_changed, steps;
} rrun;

// Tiles of 2 MiB or more: some are in huge pages (so that moving them is tested with huge
// pages that must not reach into a neighbour tile).
static void check_huge_source(const rrun *r)
{
    const nt_matrix_t *S = r->S;
    if (r->k->mb * r->k->nb * (int64_t)r->k->es < (2 << 20) || !thp_possible())
        return;
    long kb = 0;
    for (int64_t t = 0; t < S->mt * S->nt; t++) {
        size_t bytes = (size_t)rows_of(S, t / S->nt) * (size_t)cols_of(S, t % S->nt) * r->k->es;
        long x = thp_kb_at((const char *)S->tile[t] + bytes / 2);
        kb += x > 0 ? x : 0;
    }
    check(kb > 0, "%s: the source's tiles are in huge pages (%ld kB in their mappings)", r->name,
          kb);
}

// The case's name (maps, objective, mode, schedule) and its two matrices, the source filled
// and placed; false (after a failed check, nothing left allocated) when one cannot be created.
static bool make_matrices(const nt_topo_t *topo, nt_exec_schedule sched, rrun *r)
{
    const rcase *k = r->k;
    const char *sn = sched == NT_SCHED_STEPS ? "steps" : "free";
    char ss[64], ts[64];
    int snd, tnd;
    expand(k->sspec, ss, sizeof ss, &snd);
    expand(k->tspec, ts, sizeof ts, &tnd);
    snprintf(r->name, sizeof r->name, "%s [%s %s -> %s %s, %s, %s, %s]", k->name,
             k->sl == NT_LAYOUT_TILE ? "tile" : "scalapack", ss,
             k->tl == NT_LAYOUT_TILE ? "tile" : "scalapack", ts, obj_name(k->rel),
             k->mode == NT_EXEC_MOVE ? "move" : "copy", sn);
    nt_matrix_shape_t ssh = {k->m, k->n, k->mb, k->nb, k->es};
    nt_matrix_shape_t tsh = {k->m2, k->n2, k->mb2, k->nb2, k->es};
    nt_matrix_t *S = NULL, *T = NULL;
    nt_status st = nt_matrix_create_spec(topo, &ssh, ss, snd, k->sl, 0, &S);
    if (!check(st == NT_OK, "%s: create source: %s", r->name, st ? nt_last_error() : "ok"))
        return false;
    st = nt_matrix_create_spec(topo, &tsh, ts, tnd, k->tl, k->prealloc ? 0 : NT_MATRIX_NOALLOC,
                               &T);
    if (!check(st == NT_OK, "%s: create target: %s", r->name, st ? nt_last_error() : "ok")) {
        nt_matrix_destroy(S);
        return false;
    }
    r->S = S;
    r->T = T;
    check(nt_matrix_fill(S, fill_fn, &r->seed) == NT_OK, "%s: fill the source", r->name);
    check_placed(S, r->name, "source before");
    check_huge_source(r);
    if (k->prealloc)
        check_placed(T, r->name, "allocated target before");
    return true;
}

// The oracle's tables, filled from the maps before the execution; false (after a failed
// check) when they cannot be allocated.
static bool alloc_tables(const nt_topo_t *topo, rrun *r)
{
    const nt_matrix_t *S = r->S, *T = r->T;
    r->nst = (size_t)(S->mt * S->nt);
    r->ntt = (size_t)(T->mt * T->nt);
    r->tmap = malloc(r->ntt * sizeof *r->tmap);
    r->saddr = malloc(r->nst * sizeof *r->saddr);
    r->pair = calloc((size_t)ndom * (size_t)ndom, sizeof *r->pair);
    r->pair0 = calloc((size_t)ndom * (size_t)ndom, sizeof *r->pair0);
    r->dist = malloc((size_t)ndom * (size_t)ndom * sizeof *r->dist);
    r->src_of = malloc(r->ntt * sizeof *r->src_of);
    if (!r->tmap || !r->saddr || !r->pair || !r->pair0 || !r->dist || !r->src_of) {
        check(false, "%s: out of memory in the test", r->name);
        return false;
    }
    memcpy(r->tmap, T->owner, r->ntt * sizeof *r->tmap);
    memcpy(r->saddr, S->tile, r->nst * sizeof *r->saddr);
    const uint32_t *dm = nt_topo_distances(topo);
    for (int a = 0; a < ndom * ndom; a++)
        r->dist[a] = dm[a];
    for (size_t t = 0; t < r->ntt; t++)
        r->src_of[t] = -1;
    return true;
}

static void free_tables(rrun *r)
{
    free(r->tmap);
    free(r->saddr);
    free(r->pair);
    free(r->pair0);
    free(r->dist);
    free(r->src_of);
}

// The plan of the case, its relabelling copied into r->sigma and checked (one label in
// 0..ndom-1 per target component); NULL after a failed check.
static nt_plan_t *make_plan(nt_exec_schedule sched, rrun *r)
{
    const rcase *k = r->k;
    r->whole = (nt_sub_t){k->m, k->n, 0, 0, 0, 0};
    r->sub = k->has_sub ? &k->sub : NULL;
    r->sb = k->has_sub ? &k->sub : &r->whole;
    nt_plan_opts_t po = {.relabel = k->rel, .schedule = sched == NT_SCHED_STEPS};
    nt_plan_t *plan = NULL;
    nt_status st = nt_plan_create(r->S, r->T, r->sub, &po, &plan);
    if (!check(st == NT_OK, "%s: plan: %s", r->name, st ? nt_last_error() : "ok"))
        return NULL;
    // The plan owns sigma and is freed right after the execution: keep a copy.
    int nsig = 0;
    const int *psig = nt_plan_sigma(plan, &nsig);
    for (int c = 0; c < MAXN; c++)
        r->sigma[c] = c < nsig && psig ? psig[c] : -1;
    bool sig_ok = nsig == r->T->ndomains && nsig <= MAXN;
    for (int c = 0; sig_ok && c < nsig; c++)
        sig_ok = r->sigma[c] >= 0 && r->sigma[c] < ndom;
    for (size_t t = 0; sig_ok && t < r->ntt; t++)
        sig_ok = r->tmap[t] >= 0 && r->tmap[t] < nsig;
    if (!check(sig_ok, "%s: relabelling of %d components onto %d domains", r->name, nsig,
               ndom)) {
        nt_plan_destroy(plan);
        return NULL;
    }
    return plan;
}

// Tiles that must be kept or migrated, and the pages of the migrated ones on their source
// node before the execution.
static void expect_adoption(rrun *r)
{
    const rcase *k = r->k;
    const nt_matrix_t *S = r->S, *T = r->T;
    for (int64_t i = 0; i < T->mt; i++)
        for (int64_t j = 0; j < T->nt; j++) {
            int64_t t = i * T->nt + j, s;
            if (!adoptable(k, S, T, i, j, &s))
                continue;
            int sd = S->owner[s], td = r->sigma[r->tmap[t]];
            size_t bytes = (size_t)rows_of(T, i) * (size_t)cols_of(T, j) * k->es;
            if (sd == td) {
                if (k->mode == NT_EXEC_COPY || node_of[sd] == node_of[td]) {
                    r->src_of[t] = s;
                    r->want_kept++;
                    r->adopted_bytes += (int64_t)bytes;
                }
                continue;
            }
            if (k->mode != NT_EXEC_MOVE)
                continue;
            r->src_of[t] = s;
            r->adopted_bytes += (int64_t)bytes;
            r->want_mig++;
            r->want_mig_pages += (int64_t)((bytes + pgsz - 1) / pgsz);
            r->before_on_src += pages_on(r->saddr[s], bytes, node_of[sd]);
        }
    if (k->mode == NT_EXEC_MOVE)
        check(r->before_on_src == r->want_mig_pages, "%s: before: move_pages finds the %lld "
              "pages of the %lld tiles to migrate on their source nodes (%lld)", r->name,
              (long long)r->want_mig_pages, (long long)r->want_mig, (long long)r->before_on_src);
    if (k->want_migrate)
        check(r->want_mig > 0 && r->want_mig_pages > 0, "%s: the maps make %lld tiles (%lld "
              "pages) migrate", r->name, (long long)r->want_mig, (long long)r->want_mig_pages);
}

// Bytes per domain pair, element by element (after relabelling, and with the identity): the
// plan's counts equal them, and a relabelling is no worse than the identity for its objective.
static void recount_pairs(const nt_plan_info_t *pi, rrun *r)
{
    const rcase *k = r->k;
    const nt_matrix_t *S = r->S, *T = r->T;
    const nt_sub_t *sb = r->sb;
    for (int64_t y = 0; y < sb->cols; y++)
        for (int64_t x = 0; x < sb->rows; x++) {
            int64_t sr = sb->src_row + x, sc = sb->src_col + y;
            int64_t tr = sb->dst_row + x, tc = sb->dst_col + y;
            int sd = S->owner[(sr / S->mb) * S->nt + sc / S->nb];
            int comp = r->tmap[(tr / T->mb) * T->nt + tc / T->nb];
            int td = r->sigma[comp];
            r->pair[sd * ndom + td] += (int64_t)k->es;
            r->pair0[sd * ndom + comp] += (int64_t)k->es;
            r->bytes_all += (int64_t)k->es;
            r->node_changed += node_of[sd] != node_of[td] ? (int64_t)k->es : 0;
        }
    int64_t dvol, moved0, dvol0;
    r->steps = pair_steps(r->pair, r->dist, &r->moved, &dvol);
    int64_t steps0 = pair_steps(r->pair0, r->dist, &moved0, &dvol0);
    check(pi->bytes == r->bytes_all && pi->bytes_moved == r->moved && pi->steps_bytes == r->steps,
          "%s: plan bytes %lld moved %lld steps %lld = recount %lld, %lld, %lld", r->name,
          (long long)pi->bytes, (long long)pi->bytes_moved, (long long)pi->steps_bytes,
          (long long)r->bytes_all, (long long)r->moved, (long long)r->steps);
    if (k->rel == NT_MATCH_VOLUME)
        check(r->moved <= moved0, "%s: volume relabelling moves %lld <= identity %lld bytes",
              r->name, (long long)r->moved, (long long)moved0);
    if (k->rel == NT_MATCH_STEPS || k->rel == NT_MATCH_LEX)
        check(r->steps <= steps0, "%s: %s relabelling: one-port steps %lld <= identity %lld "
              "bytes", r->name, obj_name(k->rel), (long long)r->steps, (long long)steps0);
    if (k->rel == NT_MATCH_DISTANCE)
        check(dvol <= dvol0, "%s: distance relabelling: bytes x distance %lld <= identity "
              "%lld", r->name, (long long)dvol, (long long)dvol0);
}

// After the execution: the target's map is the relabelled one, its pages placed; its contents
// the submatrix from the source values, zero elsewhere; a copied source is unchanged.
static void check_target(const rrun *r)
{
    const rcase *k = r->k;
    const nt_matrix_t *S = r->S, *T = r->T;
    const nt_sub_t *sb = r->sb;
    int64_t badmap = 0;
    for (size_t t = 0; t < r->ntt; t++)
        badmap += T->owner[t] != r->sigma[r->tmap[t]];
    check(badmap == 0, "%s: target map = sigma(target spec) (%lld tiles differ)", r->name,
          (long long)badmap);
    check_placed(T, r->name, "target after");
    unsigned char want[64], zero[64] = {0};
    int64_t bad = 0, bad_src = 0;
    for (int64_t c = 0; c < T->n; c++)
        for (int64_t row = 0; row < T->m; row++) {
            int64_t x = row - sb->dst_row, y = c - sb->dst_col;
            const unsigned char *e = elem_at(T, row, c);
            if (x >= 0 && x < sb->rows && y >= 0 && y < sb->cols) {
                value_of(r->seed, sb->src_row + x, sb->src_col + y, want, k->es);
                bad += memcmp(e, want, k->es) != 0;
            } else {
                bad += memcmp(e, zero, k->es) != 0;
            }
        }
    check(bad == 0, "%s: target elements equal the source values by global coordinates, zero "
          "outside the submatrix (%lld differ)", r->name, (long long)bad);
    int64_t mism = -1;
    nt_status st = nt_matrix_compare(T, S, r->sub, &mism);
    check(st == NT_OK && mism == 0, "%s: nt_matrix_compare(target, source) = %lld", r->name,
          (long long)mism);
    if (k->mode == NT_EXEC_COPY) {
        for (int64_t c = 0; c < S->n; c++)
            for (int64_t row = 0; row < S->m; row++) {
                value_of(r->seed, row, c, want, k->es);
                bad_src += memcmp(elem_at(S, row, c), want, k->es) != 0;
            }
        check(bad_src == 0, "%s: the source is unchanged (%lld elements differ)", r->name,
              (long long)bad_src);
    }
}

// The execution's statistics against the recount and the expected adoptions.
static void check_stats(const rrun *r, const nt_exec_stats_t *es)
{
    const char *name = r->name;
    int64_t pair_bad = 0;
    for (int a = 0; a < ndom; a++)
        for (int b = 0; b < ndom; b++)
            pair_bad += a != b && es->pair_bytes[a * ndom + b] != r->pair[a * ndom + b];
    check(es->ndomains == ndom && pair_bad == 0, "%s: bytes per domain pair = recount (%lld "
          "pairs differ)", name, (long long)pair_bad);
    check(es->bytes_moved == r->moved, "%s: bytes moved %lld = recount %lld", name,
          (long long)es->bytes_moved, (long long)r->moved);
    check(es->bytes_node_changed == r->node_changed, "%s: bytes that changed node %lld = "
          "recount %lld", name, (long long)es->bytes_node_changed, (long long)r->node_changed);
    check(es->bytes_copied == r->bytes_all - r->adopted_bytes, "%s: bytes copied %lld = %lld - "
          "%lld adopted", name, (long long)es->bytes_copied, (long long)r->bytes_all,
          (long long)r->adopted_bytes);
    check(es->tiles_kept == r->want_kept && es->tiles_migrated == r->want_mig, "%s: tiles kept "
          "%lld, migrated %lld (expected %lld, %lld)", name, (long long)es->tiles_kept,
          (long long)es->tiles_migrated, (long long)r->want_kept, (long long)r->want_mig);
    check(es->pages_migrated == r->want_mig_pages && es->pages_failed == 0, "%s: pages migrated "
          "%lld (expected %lld), failed %lld", name, (long long)es->pages_migrated,
          (long long)r->want_mig_pages, (long long)es->pages_failed);
    check(es->tasks_on_domain == es->tasks && (es->tasks > 0 || es->bytes_copied == 0),
          "%s: %lld of %lld copy tasks ran on their intended domain", name,
          (long long)es->tasks_on_domain, (long long)es->tasks);
}

// Adopted tiles keep their address; migrated ones now sit on the target node.
static void check_adopted(const rrun *r)
{
    const rcase *k = r->k;
    const nt_matrix_t *S = r->S, *T = r->T;
    int64_t addr_bad = 0, after_on_dst = 0;
    for (int64_t i = 0; i < T->mt; i++)
        for (int64_t j = 0; j < T->nt; j++) {
            int64_t t = i * T->nt + j, s = r->src_of[t];
            if (s < 0)
                continue;
            addr_bad += T->tile[t] != r->saddr[s];
            if (S->owner[s] != T->owner[t])
                after_on_dst += pages_on(T->tile[t], (size_t)rows_of(T, i) *
                                         (size_t)cols_of(T, j) * k->es, node_of[T->owner[t]]);
        }
    check(addr_bad == 0, "%s: the %lld adopted tiles keep their address (%lld moved)", r->name,
          (long long)(r->want_kept + r->want_mig), (long long)addr_bad);
    if (k->mode == NT_EXEC_MOVE) {
        check(after_on_dst == r->want_mig_pages, "%s: after: move_pages finds the %lld migrated "
              "pages on their target nodes (%lld)", r->name, (long long)r->want_mig_pages,
              (long long)after_on_dst);
        if (after_on_dst == r->want_mig_pages && r->before_on_src == r->want_mig_pages)
            migrated_total += r->want_mig_pages;
    }
}

// One case under one schedule: build, plan, recount, execute, check everything.
static run_out run_case(const nt_topo_t *topo, const rcase *k, nt_exec_schedule sched,
                        uint64_t seed)
{
    run_out ro = {NULL, NULL, {0}, false};
    rrun r = {.k = k, .seed = seed};
    if (!make_matrices(topo, sched, &r))
        return ro;
    ro.S = r.S;
    ro.T = r.T;
    nt_plan_t *plan = alloc_tables(topo, &r) ? make_plan(sched, &r) : NULL;
    if (plan) {
        nt_plan_info_t pi;
        nt_plan_info(plan, &pi);
        expect_adoption(&r);
        recount_pairs(&pi, &r);
        nt_exec_opts_t eo = {.mode = k->mode, .schedule = sched, .order = k->order};
        nt_exec_stats_t es = {0};
        nt_status st = nt_plan_execute(plan, r.S, r.T, &eo, &es);
        nt_plan_destroy(plan);
        if (check(st == NT_OK, "%s: execute: %s", r.name, st ? nt_last_error() : "ok")) {
            ro.stats = es;
            ro.ok = true;
            check_target(&r);
            check_stats(&r, &es);
            check_adopted(&r);
        }
    }
    free_tables(&r);
    return ro;
}

// Whole targets of two runs equal: map, every element's bytes, the statistics.
static void compare_runs(const rcase *k, const run_out *a, const run_out *b)
{
    if (!a->ok || !b->ok)
        return;
    const nt_matrix_t *A = a->T, *B = b->T;
    size_t ntt = (size_t)(A->mt * A->nt);
    bool same_map = memcmp(A->owner, B->owner, ntt * sizeof *A->owner) == 0;
    int64_t bad = 0;
    for (int64_t c = 0; c < A->n; c++)
        for (int64_t r = 0; r < A->m; r++)
            bad += memcmp(elem_at(A, r, c), elem_at(B, r, c), A->elem_size) != 0;
    int64_t mism = -1;
    nt_status st = nt_matrix_compare(A, B, NULL, &mism);
    check(same_map && bad == 0 && st == NT_OK && mism == 0, "%s: steps schedule = free "
          "schedule: same map %d, %lld elements differ (compare %lld)", k->name, same_map,
          (long long)bad, (long long)mism);
    const nt_exec_stats_t *x = &a->stats, *y = &b->stats;
    bool same = x->bytes_moved == y->bytes_moved && x->bytes_copied == y->bytes_copied &&
                x->bytes_node_changed == y->bytes_node_changed &&
                x->tiles_kept == y->tiles_kept && x->tiles_migrated == y->tiles_migrated &&
                x->pages_migrated == y->pages_migrated &&
                memcmp(x->pair_bytes, y->pair_bytes,
                       (size_t)x->ndomains * (size_t)x->ndomains * sizeof(int64_t)) == 0;
    check(same, "%s: steps and free schedules report the same bytes, tiles and pages", k->name);
}

static void free_run(run_out *r)
{
    nt_exec_stats_free(&r->stats);
    // The target owns the adopted tiles; the source only aliases them.
    nt_matrix_destroy(r->T);
    nt_matrix_destroy(r->S);
}

// Elements of the n x n matrix A of doubles that differ from the values of `seed`.
static int64_t wrong_elements(const nt_matrix_t *A, uint64_t seed)
{
    unsigned char want[8];
    int64_t bad = 0;
    for (int64_t c = 0; c < A->n; c++)
        for (int64_t r = 0; r < A->m; r++) {
            value_of(seed, r, c, want, 8);
            bad += memcmp(elem_at(A, r, c), want, 8) != 0;
        }
    return bad;
}

// T (an in-place target holding the values of `seed`) moved onto mspec in move mode: every page
// of the result on its domain's node, every value T's.
static void move_after_inplace(const nt_topo_t *topo, const char *name, nt_matrix_t *T,
                               const char *mspec, uint64_t seed)
{
    char ms[64];
    int ndm;
    expand(mspec, ms, sizeof ms, &ndm);
    nt_matrix_shape_t sh = {T->m, T->n, T->mb, T->nb, 8};
    nt_matrix_t *U = NULL;
    nt_plan_t *plan = NULL;
    nt_exec_stats_t es = {0};
    nt_status st = nt_matrix_create_spec(topo, &sh, ms, ndm, NT_LAYOUT_TILE, NT_MATRIX_NOALLOC,
                                         &U);
    if (st == NT_OK)
        st = nt_plan_create(T, U, NULL, NULL, &plan);
    if (st == NT_OK)
        st = nt_plan_execute(plan, T, U, &(nt_exec_opts_t){.mode = NT_EXEC_MOVE}, &es);
    if (check(st == NT_OK, "%s: then moved: %s", name, st ? nt_last_error() : "ok")) {
        printf("info %s: then moved: %lld tiles migrated (whole mappings only)\n", name,
               (long long)es.tiles_migrated);
        check_placed(U, name, "then moved onto another map");
        int64_t bad = wrong_elements(U, seed);
        check(bad == 0, "%s: then moved: every element is the source's (%lld differ)", name,
              (long long)bad);
    }
    nt_exec_stats_free(&es);
    nt_plan_destroy(plan);
    nt_matrix_destroy(U);
}

// In place on real nodes: the target reuses the source's blocks through per-domain pools, and
// every page of the target, recycled or fresh, must be on its domain's node; the values must be
// the source's. Then, with mspec, the in-place target moved (move mode) onto mspec: its tiles
// are pieces of recycled blocks, which may share a huge page with a neighbour, so they must be
// copied, not migrated (a migration would move the neighbour's part too).
static void inplace_case(const nt_topo_t *topo, const char *name, int64_t n, int64_t mbs,
                         const char *sspec, int64_t mbt, const char *tspec, uint64_t seed,
                         const char *mspec)
{
    char ss[64], ts[64];
    int nds, ndt;
    expand(sspec, ss, sizeof ss, &nds);
    expand(tspec, ts, sizeof ts, &ndt);
    nt_matrix_shape_t a = {n, n, mbs, mbs, 8}, b = {n, n, mbt, mbt, 8};
    nt_matrix_t *S = NULL, *T = NULL;
    nt_plan_t *plan = NULL;
    nt_status st = nt_matrix_create_spec(topo, &a, ss, nds, NT_LAYOUT_TILE, 0, &S);
    if (st == NT_OK)
        st = nt_matrix_create_spec(topo, &b, ts, ndt, NT_LAYOUT_TILE, NT_MATRIX_NOALLOC, &T);
    if (st == NT_OK)
        st = nt_matrix_fill(S, fill_fn, &seed);
    if (st == NT_OK)
        st = nt_plan_create(S, T, NULL, &(nt_plan_opts_t){.relabel = NT_MATCH_VOLUME}, &plan);
    nt_exec_stats_t es = {0};
    if (st == NT_OK)
        st = nt_plan_execute(plan, S, T, &(nt_exec_opts_t){.inplace = true}, &es);
    if (check(st == NT_OK, "%s: in place: %s", name, st ? nt_last_error() : "ok")) {
        check(es.bytes_recycled > 0, "%s: in place: %lld bytes of the source recycled", name,
              (long long)es.bytes_recycled);
        check_placed(T, name, "in-place target (recycled blocks included)");
        int64_t bad = wrong_elements(T, seed);
        check(bad == 0, "%s: in place: every element is the source's (%lld differ)", name,
              (long long)bad);
        if (mspec)
            move_after_inplace(topo, name, T, mspec, seed);
    }
    nt_exec_stats_free(&es);
    nt_plan_destroy(plan);
    nt_matrix_destroy(T);
    nt_matrix_destroy(S);
}

// A target from a memory pool (numatile/pool.h) that a first target was destroyed into:
// recycled pages again on their domain's node.
static void pool_case(const nt_topo_t *topo, const char *name, int64_t n, const char *tspec)
{
    char ts[64];
    int ndt;
    expand(tspec, ts, sizeof ts, &ndt);
    nt_mempool_t *pool = NULL;
    nt_status st = nt_mempool_create(topo, &pool);
    for (int round = 0; round < 2 && st == NT_OK; round++) {
        nt_matrix_shape_t sh = {n, n, 64 + 32 * round, 64 + 32 * round, 8};
        nt_matrix_t *A = NULL;
        if ((st = nt_matrix_create_spec(topo, &sh, ts, ndt, NT_LAYOUT_TILE, NT_MATRIX_NOALLOC,
                                        &A)) == NT_OK &&
            (st = nt_matrix_set_pool(A, pool)) == NT_OK && (st = nt_matrix_alloc(A)) == NT_OK)
            check_placed(A, name, round ? "pooled matrix (recycled pages)" : "first matrix");
        nt_matrix_destroy(A);
    }
    check(st == NT_OK, "%s: pool: %s", name, st ? nt_last_error() : "ok");
    nt_mempool_destroy(pool);
}

// The redistributions, each run under the free and the steps schedule (P, Q, D in the specs:
// the most square grid and the domain count of the guest).
#define TL NT_LAYOUT_TILE
#define SL NT_LAYOUT_SCALAPACK
#define CP NT_EXEC_COPY
#define MV NT_EXEC_MOVE
// 200 = 6 x 32 + 8: full 8 KiB tiles (two pages, migratable) and packed partial ones.
static const rcase cases[] = {
    {"r01", 200, 200, 32, 32, 8, "random:11", TL, 200, 200, 32, 32, "balanced:12", TL,
     false, {0}, NT_MATCH_CANONICAL, CP, false, false, NT_ORDER_AUTO},
    {"r02", 200, 200, 32, 32, 8, "random:11", TL, 200, 200, 32, 32, "balanced:12", TL,
     false, {0}, NT_MATCH_CANONICAL, MV, false, true, NT_ORDER_AUTO},
    {"r03", 200, 184, 32, 32, 8, "bc2d:PxQ", TL, 200, 184, 32, 32, "skewed:PxQ:5", TL,
     false, {0}, NT_MATCH_VOLUME, MV, false, true, NT_ORDER_AUTO},
    {"r04", 200, 200, 32, 32, 8, "chunk:D:3", TL, 200, 200, 32, 32, "band:2:PxQ", TL,
     false, {0}, NT_MATCH_STEPS, MV, false, true, NT_ORDER_AUTO},
    {"r05", 176, 200, 32, 32, 8, "skewed:PxQ:9", TL, 176, 200, 32, 32, "random:4", TL,
     false, {0}, NT_MATCH_LEX, MV, false, true, NT_ORDER_AUTO},
    {"r06", 200, 200, 32, 32, 8, "band:1:PxQ", TL, 200, 200, 32, 32, "chunk:D:8", TL,
     false, {0}, NT_MATCH_DISTANCE, MV, false, true, NT_ORDER_AUTO},
    {"r07", 200, 200, 32, 32, 8, "balanced:2", TL, 200, 200, 48, 40, "bc2d:PxQ", TL,
     false, {0}, NT_MATCH_VOLUME, CP, false, false, NT_ORDER_AUTO},
    {"r08", 200, 168, 32, 24, 8, "bc2d:PxQ", SL, 200, 168, 32, 32, "random:6", TL,
     false, {0}, NT_MATCH_CANONICAL, CP, false, false, NT_ORDER_AUTO},
    {"r09", 200, 168, 32, 32, 8, "random:7", TL, 200, 168, 24, 40, "bc2d:QxP:2x1", SL,
     false, {0}, NT_MATCH_LEX, CP, false, false, NT_ORDER_AUTO},
    {"r10", 160, 160, 16, 32, 8, "bc2d:1xD", SL, 160, 160, 32, 16, "bc2d:Dx1:1x2", SL,
     false, {0}, NT_MATCH_STEPS, MV, false, false, NT_ORDER_AUTO},
    {"r11", 150, 150, 64, 64, 4, "random:21", TL, 150, 150, 64, 64, "balanced:22", TL,
     false, {0}, NT_MATCH_VOLUME, MV, false, true, NT_ORDER_AUTO},
    {"r12", 90, 90, 16, 16, 16, "chunk:D:13", TL, 90, 90, 16, 16, "random:14", TL,
     false, {0}, NT_MATCH_LEX, MV, false, true, NT_ORDER_AUTO},
    {"r13", 300, 300, 64, 64, 1, "balanced:31", TL, 300, 300, 64, 64, "skewed:PxQ:32", TL,
     false, {0}, NT_MATCH_DISTANCE, MV, false, true, NT_ORDER_AUTO},
    {"r14", 120, 110, 20, 30, 12, "random:41", TL, 120, 110, 32, 16, "chunk:D:42", TL,
     false, {0}, NT_MATCH_CANONICAL, CP, false, false, NT_ORDER_AUTO},
    {"r15", 256, 256, 32, 32, 8, "random:51", TL, 200, 180, 40, 24, "balanced:52", TL,
     true, {150, 120, 40, 24, 8, 16}, NT_MATCH_CANONICAL, CP, false, false, NT_ORDER_AUTO},
    // Tile-aligned submatrix: inner tiles migrate, the partial border tiles are copied.
    {"r16", 256, 256, 32, 32, 8, "random:61", TL, 256, 224, 32, 32, "random:62", TL,
     true, {170, 160, 64, 32, 0, 32}, NT_MATCH_VOLUME, MV, false, true, NT_ORDER_AUTO},
    {"r17", 256, 256, 32, 32, 8, "bc2d:PxQ", SL, 200, 200, 32, 32, "bc2d:QxP", SL,
     true, {100, 90, 30, 50, 70, 60}, NT_MATCH_STEPS, CP, false, false, NT_ORDER_AUTO},
    {"r18", 200, 200, 32, 32, 8, "random:71", TL, 200, 200, 24, 40, "bc2d:PxQ", TL,
     true, {120, 150, 20, 10, 60, 30}, NT_MATCH_CANONICAL, CP, true, false, NT_ORDER_AUTO},
    {"r19", 200, 200, 32, 32, 8, "chunk:D:81", TL, 200, 200, 32, 32, "chunk:2:82", TL,
     false, {0}, NT_MATCH_VOLUME, MV, false, false, NT_ORDER_AUTO},
    {"r20", 200, 200, 32, 32, 8, "random:91", TL, 200, 200, 32, 32, "balanced:92", TL,
     false, {0}, NT_MATCH_CANONICAL, CP, true, false, NT_ORDER_AUTO},
    // Periodic plans (block-cyclic ScaLAPACK on both sides) in each copy order, element-
    // cyclic and small blocks: every page of every local matrix on its domain's node.
    {"r21", 300, 290, 1, 1, 8, "bc2d:PxQ", SL, 300, 290, 3, 3, "bc2d:Dx1", SL, false, {0},
     NT_MATCH_VOLUME, CP, false, false, NT_ORDER_AUTO},
    {"r22", 300, 290, 1, 1, 8, "bc2d:PxQ", SL, 300, 290, 3, 3, "bc2d:Dx1", SL, false, {0},
     NT_MATCH_CANONICAL, CP, false, false, NT_ORDER_SOURCE},
    {"r23", 256, 240, 8, 8, 8, "bc2d:PxQ", SL, 250, 250, 12, 12, "bc2d:QxP", SL, true,
     {200, 180, 10, 20, 30, 40}, NT_MATCH_LEX, CP, false, false, NT_ORDER_GLOBAL},
    {"r24", 256, 256, 64, 64, 8, "bc2d:PxQ", SL, 256, 256, 100, 100, "bc1d:D", SL, false, {0},
     NT_MATCH_CANONICAL, CP, true, false, NT_ORDER_TARGET},
    // Tiles of 3.2 MB (not a multiple of 2 MiB), whose mappings can merge and take
    // transparent huge pages across tile boundaries: a migrated tile must not carry pages
    // of a neighbour that stays.
    {"r25", 1920, 1920, 640, 640, 8, "random:111", TL, 1920, 1920, 640, 640, "random:112",
     TL, false, {0}, NT_MATCH_CANONICAL, MV, false, true, NT_ORDER_AUTO},
};
#undef TL
#undef SL
#undef CP
#undef MV

// The topology is this guest's: physical, one domain per node of the shape, domain d on node
// d (node_of[] filled); false after a failed check.
static bool topo_sane(const nt_topo_t *topo, int nodes)
{
    bool sane = check(nt_topo_get_kind(topo) == NT_TOPO_PHYSICAL && ndom == nodes &&
                      ndom >= 2 && ndom <= MAXN, "topo: physical, %d domains (shape: %d nodes)",
                      ndom, nodes);
    for (int d = 0; sane && d < ndom; d++) {
        nt_domain_info_t info;
        nt_topo_domain(topo, d, &info);
        node_of[d] = info.node;
        sane = check(info.node == d, "topo: domain %d is node %d", d, info.node);
    }
    return sane;
}

int main(void)
{
    double t_start = now();
    int nodes = guest_start("guest_redist");
    nt_topo_t *topo = NULL;
    nt_status st = nt_topo_load(NULL, &topo);
    if (!check(st == NT_OK, "topo: load this machine: %s", st ? nt_last_error() : "ok"))
        return guest_summary("redist");
    ndom = nt_topo_ndomains(topo);
    if (!topo_sane(topo, nodes)) {
        nt_topo_destroy(topo);
        return guest_summary("redist");
    }
    // The most square process grid P x Q = D.
    gridP = 1;
    for (int p = 1; p * p <= ndom; p++)
        if (ndom % p == 0)
            gridP = p;
    gridQ = ndom / gridP;

    int ncase = (int)(sizeof cases / sizeof *cases);
    for (int c = 0; c < ncase; c++) {
        uint64_t seed = 1000u + (uint64_t)c;
        run_out a = run_case(topo, &cases[c], NT_SCHED_FREE, seed);
        run_out b = run_case(topo, &cases[c], NT_SCHED_STEPS, seed);
        compare_runs(&cases[c], &a, &b);
        free_run(&a);
        free_run(&b);
    }
    inplace_case(topo, "i01 relabelling", 256, 32, "balanced:1", 32, "balanced:2", 7, NULL);
    inplace_case(topo, "i02 nb 64 -> 32", 256, 64, "bc2d:PxQ", 32, "bc2d:Dx1", 8, NULL);
    // Tiles of 3.2 MB and 0.8 MB: recycled blocks partly in huge pages, then moved.
    inplace_case(topo, "i03 nb 640 -> 320", 1920, 640, "random:9", 320, "bc2d:PxQ", 9,
                 "random:10");
    pool_case(topo, "p01", 320, "random:3");
    check(migrated_total > 0, "move mode: move_pages saw %lld pages change node in all",
          (long long)migrated_total);
    nt_topo_destroy(topo);

    guest_print_verified("guest_redist", ndom);
    printf("guest_redist: pages migrated and confirmed by move_pages: %lld\n",
           (long long)migrated_total);
    printf("guest_redist: %.1f s\n", now() - t_start);
    return guest_summary("redist");
}
