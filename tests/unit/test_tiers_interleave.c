// Weighted interleave: the page layout against the ideal shares after every prefix (within one
// page, the property that makes any buffer's ratios right), the allocation on this machine
// (every page where its node's share says, read back with move_pages), the tool's report,
// and bad input.
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "numatile.h"
#include "tool_run.h"

Test(tiers_interleave, layout_keeps_every_prefix_within_a_page)
{
    static const double ws[][4] = {{3, 1, 0, 0}, {1, 1, 1, 1}, {0.6, 0.3, 0.1, 0}, {0, 0, 0, 5},
                                   {100000, 31457, 0, 60000}};
    enum { PAGES = 5000 };
    int *dom = malloc(PAGES * sizeof *dom);
    for (size_t c = 0; c < sizeof ws / sizeof *ws; c++) {
        cr_assert_eq(nt_mem_interleave_layout(ws[c], 4, PAGES, dom), NT_OK);
        double sum = ws[c][0] + ws[c][1] + ws[c][2] + ws[c][3];
        int64_t got[4] = {0};
        for (int k = 0; k < PAGES; k++) {
            got[dom[k]]++;
            for (int d = 0; d < 4; d++)
                cr_assert_leq(fabs((double)got[d] - (k + 1) * ws[c][d] / sum), 1.0,
                              "case %zu: domain %d after %d pages: %lld", c, d, k + 1,
                              (long long)got[d]);
        }
    }
    free(dom);
    int d1;
    cr_assert_eq(nt_mem_interleave_layout((double[]){0, 0}, 2, 1, &d1), NT_EINVAL);
    cr_assert_eq(nt_mem_interleave_layout((double[]){-1, 2}, 2, 1, &d1), NT_EINVAL);
    cr_assert_eq(nt_mem_interleave_layout((double[]){NAN, 2}, 2, 1, &d1), NT_EINVAL);
    cr_assert_eq(nt_mem_interleave_layout(NULL, 2, 1, &d1), NT_EINVAL);
}

// This machine: every page lands on the node of a domain of positive weight; with virtual
// domains on one node, all on it.
Test(tiers_interleave, allocation_on_this_machine)
{
    nt_topo_t *t;
    cr_assert_eq(nt_topo_load(&(nt_topo_opts_t){.domains = 2}, &t), NT_OK);
    void *p = (void *)&t;
    nt_interleave_report_t r;
    size_t bytes = (size_t)3 << 20;
    cr_assert_eq(nt_mem_alloc_weighted(t, (double[]){3, 1}, bytes, NT_MEM_STRICT, &p, &r), NT_OK,
                 "%s", nt_last_error());
    nt_page_hist_t h;
    cr_assert_eq(nt_mem_where(p, bytes, &h), NT_OK);
    nt_domain_info_t info;
    nt_topo_domain(t, 0, &info);
    cr_assert_eq(h.per_node[info.node], h.pages);
    cr_assert_eq(r.pages, h.pages);
    cr_assert_eq(r.placed + r.moved, r.pages);
    cr_assert_eq(r.misplaced, 0);
    nt_mem_free(p, bytes);
    void *q = &q;
    cr_assert_eq(nt_mem_alloc_weighted(t, (double[]){0, 0}, bytes, 0, &q, NULL), NT_EINVAL);
    cr_assert_eq(nt_mem_alloc_weighted(t, (double[]){1, 1}, 0, 0, &q, NULL), NT_EINVAL);
    cr_assert_eq(nt_mem_alloc_weighted(t, (double[]){1, 1}, bytes, 0x40, &q, NULL), NT_EINVAL);
    cr_assert_eq(nt_mem_alloc_weighted(NULL, (double[]){1, 1}, bytes, 0, &q, NULL), NT_EINVAL);
    cr_assert_eq(q, (void *)&q, "output touched on failure");
    nt_topo_destroy(t);
    cr_assert_eq(nt_topo_load(&(nt_topo_opts_t){.synthetic = "pack:2 numa:1 core:1 pu:1"}, &t),
                 NT_OK);
    cr_assert_eq(nt_mem_alloc_weighted(t, (double[]){1, 1}, bytes, 0, &q, NULL), NT_ENOTSUP);
    nt_topo_destroy(t);
}

Test(tiers_interleave, tool_reports_pages_per_node)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    json_t *j = tool_json((const char *[]){"topo", "--domains", "2", "--interleave", "4",
                                           "--weights", "1,3", "--json", NULL});
    json_t *il = json_object_get(j, "interleave");
    cr_assert_not_null(il);
    cr_assert_eq(json_integer_value(json_object_get(il, "pages")), 1024);
    cr_assert_str_eq(json_string_value(json_object_get(il, "weights_from")), "given");
    json_t *n0 = json_array_get(json_object_get(il, "nodes"), 0);
    cr_assert_eq(json_integer_value(json_object_get(n0, "pages")), 1024);
    cr_assert_float_eq(json_real_value(json_object_get(il, "max_error")), 0, 1e-12);
    json_decref(j);
    const char *bad[][8] = {{"topo", "--weights", "1", NULL},
                            {"topo", "--interleave", "4", "--weights", "1,x", NULL},
                            {"topo", "--interleave", "0", NULL},
                            {"topo", "--synthetic", "pack:2 numa:1 core:1 pu:1", "--interleave",
                             "4", NULL}};
    for (int k = 0; k < 4; k++) {
        tool_result r = tool_run(bad[k]);
        cr_assert_eq(r.status, 2, "case %d: %d %s", k, r.status, r.err);
        cr_assert(strstr(r.err, k == 3 ? "--interleave" : k ? (k == 2 ? "--interleave" :
                                                             "--weights") : "--weights"),
                  "%s", r.err);
        tool_result_free(&r);
    }
}
