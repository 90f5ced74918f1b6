// `numatile topo --interleave MIB [--weights bandwidth|equal|w0,w1,...]`: a buffer interleaved
// page by page in the asked ratios (nt_mem_alloc_weighted()), then every page's node read back
// (nt_mem_where()) and compared with the asked shares.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_topo_interleave.h"

// "w0,w1,..." into w (D entries); false when malformed, negative or all zero.
static bool parse_list(const char *s, int D, double *w)
{
    double sum = 0;
    for (int d = 0; d < D; d++) {
        char buf[64];
        const char *e = strchr(s, ',');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if ((d < D - 1) != (e != NULL) || n == 0 || n >= sizeof buf)
            return false;
        memcpy(buf, s, n);
        buf[n] = 0;
        if (!cli_parse_double(buf, &w[d]) || w[d] < 0)
            return false;
        sum += w[d];
        s = e ? e + 1 : s + n;
    }
    return sum > 0;
}

int topo_interleave_check(const char *weights, int D)
{
    if (!weights || !strcmp(weights, "bandwidth") || !strcmp(weights, "equal"))
        return CLI_OK;
    double *w = malloc((size_t)D * sizeof *w);
    bool ok = w && parse_list(weights, D, w);
    free(w);
    return ok ? CLI_OK
              : cli_usage("topo", "--weights: '%s' is not bandwidth, equal or %d weights "
                          ">= 0 (not all 0) separated by commas", weights, D);
}

// The weights asked for: given, equal, or by bandwidth from the first domain with cpus.
static int weights_of(const nt_topo_t *t, topo_interleave *il, double *w)
{
    int D = nt_topo_ndomains(t), init = -1;
    const char *s = il->weights ? il->weights : "bandwidth";
    if (strcmp(s, "bandwidth") && strcmp(s, "equal")) {
        il->from = "given";
        return parse_list(s, D, w) ? CLI_OK : cli_usage("topo", "--weights: '%s'", s);
    }
    for (int d = 0; d < D && init < 0; d++) {
        nt_domain_info_t info;
        nt_topo_domain(t, d, &info);
        init = info.ncpus > 0 ? d : -1;
    }
    nt_status st = nt_tier_weights(t, init < 0 ? 0 : init, 0, w);
    if (st)
        return cli_lib_error("topo", st);
    il->from = nt_topo_memattr_source(t) == NT_ATTR_HWLOC ? "bandwidth" : "equal";
    if (!strcmp(s, "equal")) {
        for (int d = 0; d < D; d++)
            w[d] = w[d] > 0 ? 1 : 0;
        il->from = "equal";
    }
    return CLI_OK;
}

// Shares asked of each node, pages found on each, and the worst relative error.
static void compare(const nt_topo_t *t, const double *w, const nt_page_hist_t *h,
                    topo_interleave *il)
{
    double sum = 0;
    for (int d = 0; d < nt_topo_ndomains(t); d++)
        sum += w[d];
    for (int d = 0; d < nt_topo_ndomains(t); d++) {
        nt_domain_info_t info;
        nt_topo_domain(t, d, &info);
        il->asked[info.node] += w[d] / sum;
    }
    il->pages = h->pages;
    il->worst = 0;
    for (int n = 0; n < 64; n++) {
        il->on[n] = n < h->nnodes ? h->per_node[n] : 0;
        if (il->asked[n] > 0) {
            double e = fabs((double)il->on[n] / (double)h->pages / il->asked[n] - 1);
            il->worst = e > il->worst ? e : il->worst;
        }
    }
}

int topo_interleave_run(const nt_topo_t *t, topo_interleave *il)
{
    int D = nt_topo_ndomains(t);
    double *w = calloc((size_t)D, sizeof *w);
    if (!w)
        return CLI_RUNTIME;
    int rc = weights_of(t, il, w);
    size_t bytes = (size_t)il->mib << 20;
    void *p = NULL;
    nt_status st = NT_OK;
    if (rc == CLI_OK && (st = nt_mem_room(t, NULL, bytes, "--interleave")) == NT_OK)
        st = nt_mem_alloc_weighted(t, w, bytes, 0, &p, &il->rep);
    nt_page_hist_t h;
    if (rc == CLI_OK && st == NT_OK && (st = nt_mem_where(p, bytes, &h)) == NT_OK)
        compare(t, w, &h, il);
    if (p)
        nt_mem_free(p, bytes);
    if (rc == CLI_OK && st)
        rc = cli_lib_error("topo", st);
    free(w);
    return rc;
}

void topo_interleave_print(const topo_interleave *il)
{
    printf("weighted interleave: %d MiB, %lld pages, weights by %s (page by page; %lld moved "
           "after the first touch, %lld left elsewhere)\n", il->mib, (long long)il->pages,
           il->from, (long long)il->rep.moved, (long long)il->rep.misplaced);
    for (int n = 0; n < 64; n++)
        if (il->asked[n] > 0 || il->on[n] > 0)
            printf("  node %d: asked %.4f, got %lld pages = %.4f\n", n, il->asked[n],
                   (long long)il->on[n], (double)il->on[n] / (double)il->pages);
    printf("  largest error: %.3f%% of a node's asked share\n", 100 * il->worst);
}

json_t *topo_interleave_json(const topo_interleave *il)
{
    json_t *nodes = json_array();
    for (int n = 0; n < 64; n++)
        if (il->asked[n] > 0 || il->on[n] > 0)
            json_array_append_new(nodes, json_pack("{s:i, s:f, s:I, s:f}", "node", n,
                                                   "asked_share", il->asked[n], "pages",
                                                   (json_int_t)il->on[n], "share",
                                                   (double)il->on[n] / (double)il->pages));
    return json_pack("{s:I, s:I, s:s, s:s, s:o, s:I, s:I, s:f}", "bytes",
                     (json_int_t)il->mib << 20, "pages", (json_int_t)il->pages, "weights_from",
                     il->from, "method", "page-by-page", "nodes", nodes, "moved",
                     (json_int_t)il->rep.moved, "misplaced", (json_int_t)il->rep.misplaced,
                     "max_error", il->worst);
}
