// `numatile match` and `numatile schedule` (DESIGN.md contract) run as a subprocess on temporary
// instance files. Oracles: volume and steps recomputed from the file by a naive loop over the
// items for the printed sigma, and an exhaustive search over all P! labellings for small P.
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perm_util.h"
#include "tool_run.h"

#ifdef __SANITIZE_ADDRESS__
enum { RANDOM_INSTANCES = 12 };
#else
enum { RANDOM_INSTANCES = 40 };
#endif

enum { MAXP = 7, MAXN = 64 };

typedef struct inst {
    int p, n;
    int d[MAXN], c[MAXN]; // initial domain, target component
    int64_t w[MAXN];
    bool weighted;
} inst;

// Test-local generator (xorshift64*), independent of the library's.
static uint64_t rng_state = 88172645463325252ULL;
static uint64_t rnd(uint64_t n)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (rng_state * 2685821657736338717ULL) % n;
}

// Write an instance file with some comments and blank lines; returns a malloc'd path.
static char *write_inst(const inst *in)
{
    char *path = strdup("/tmp/nt-cli-match-XXXXXX");
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "# test instance\n\n%d %d   # P N\n", in->p, in->n);
    for (int x = 0; x < in->n; x++) {
        if (in->weighted && in->w[x] != 1)
            fprintf(f, "%d %d %lld\n", in->d[x], in->c[x], (long long)in->w[x]);
        else
            fprintf(f, "%d\t%d\n", in->d[x], in->c[x]);
        if (x % 7 == 3)
            fprintf(f, "  # a comment line\n");
    }
    fclose(f);
    return path;
}

static char *write_text(const char *text)
{
    char *path = strdup("/tmp/nt-cli-bad-XXXXXX");
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

// Naive costs of sigma: every item whose domain differs from its component's domain moves.
static void naive_costs(const inst *in, const int *sigma, int64_t *volume, int64_t *steps)
{
    int64_t sent[MAXP] = {0}, recv[MAXP] = {0}, v = 0, s = 0;
    for (int x = 0; x < in->n; x++) {
        int to = sigma[in->c[x]];
        if (to != in->d[x]) {
            sent[in->d[x]] += in->w[x];
            recv[to] += in->w[x];
            v += in->w[x];
        }
    }
    for (int k = 0; k < in->p; k++) {
        if (sent[k] > s)
            s = sent[k];
        if (recv[k] > s)
            s = recv[k];
    }
    *volume = v;
    *steps = s;
}

// Exhaustive search: least volume, least steps, and the lexicographic (steps, volume) optimum.
static void brute_force(const inst *in, int64_t *best_vol, int64_t *best_steps,
                        int64_t lex[2])
{
    int perm[MAXP];
    for (int i = 0; i < in->p; i++)
        perm[i] = i;
    *best_vol = *best_steps = INT64_MAX;
    lex[0] = lex[1] = INT64_MAX;
    for (;;) {
        int64_t v, s;
        naive_costs(in, perm, &v, &s);
        if (v < *best_vol)
            *best_vol = v;
        if (s < *best_steps)
            *best_steps = s;
        if (s < lex[0] || (s == lex[0] && v < lex[1])) {
            lex[0] = s;
            lex[1] = v;
        }
        // next permutation in lexicographic order
        int i = in->p - 2;
        while (i >= 0 && perm[i] > perm[i + 1])
            i--;
        if (i < 0)
            break;
        int j = in->p - 1;
        while (perm[j] < perm[i])
            j--;
        int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
        for (int a = i + 1, b = in->p - 1; a < b; a++, b--) {
            t = perm[a];
            perm[a] = perm[b];
            perm[b] = t;
        }
    }
}

static int64_t jint(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    cr_assert(json_is_integer(v), "field '%s' missing or not an integer", key);
    return json_integer_value(v);
}

// sigma of the JSON must be a permutation of 0..p-1.
static void read_sigma(json_t *j, int p, int *sigma)
{
    json_t *s = json_object_get(j, "sigma");
    cr_assert(json_is_array(s) && (int)json_array_size(s) == p, "sigma missing or wrong size");
    bool seen[MAXP] = {false};
    for (int k = 0; k < p; k++) {
        json_t *v = json_array_get(s, (size_t)k);
        cr_assert(json_is_integer(v));
        sigma[k] = (int)json_integer_value(v);
        cr_assert(sigma[k] >= 0 && sigma[k] < p && !seen[sigma[k]], "sigma not a permutation");
        seen[sigma[k]] = true;
    }
}

static void random_inst(inst *in)
{
    *in = (inst){.p = 1 + (int)rnd(6), .weighted = rnd(2) == 0};
    in->n = (int)rnd(MAXN + 1);
    int shape = (int)rnd(4);
    for (int x = 0; x < in->n; x++) {
        // shapes: uniform; one domain holds everything; balanced-ish blocks; few components
        in->d[x] = shape == 1 ? 0 : (int)rnd((uint64_t)in->p);
        if (shape == 2)
            in->c[x] = x * in->p / in->n;
        else if (shape == 3)
            in->c[x] = (int)rnd(2) % in->p;
        else
            in->c[x] = (int)rnd((uint64_t)in->p);
        in->w[x] = in->weighted ? 1 + (int64_t)rnd(rnd(3) ? 5 : 1000000) : 1;
    }
}

static void check_match(const inst *in)
{
    char *path = write_inst(in);
    int64_t best_vol, best_steps, lex[2], can_vol, can_steps;
    brute_force(in, &best_vol, &best_steps, lex);
    int identity[MAXP];
    for (int k = 0; k < in->p; k++)
        identity[k] = k;
    naive_costs(in, identity, &can_vol, &can_steps);
    const char *objs[] = {"volume", "steps", "lex"};
    for (int o = 0; o < 3; o++) {
        json_t *j = tool_json((const char *[]){"match", "--instance", path, "--objective",
                                              objs[o], "--json", NULL});
        cr_assert_str_eq(json_string_value(json_object_get(j, "objective")), objs[o]);
        cr_assert_eq(jint(j, "domains"), in->p);
        cr_assert_eq(jint(j, "items"), in->n);
        cr_assert(json_is_number(json_object_get(j, "seconds")));
        cr_assert_geq(json_number_value(json_object_get(j, "seconds")), 0.0);
        int sigma[MAXP];
        read_sigma(j, in->p, sigma);
        int64_t v, s;
        naive_costs(in, sigma, &v, &s);
        cr_assert_eq(jint(j, "volume"), v, "%s: printed volume %lld, file says %lld", objs[o],
                     (long long)jint(j, "volume"), (long long)v);
        cr_assert_eq(jint(j, "steps"), s, "%s: printed steps differ from the file's", objs[o]);
        cr_assert_eq(jint(j, "canonical_volume"), can_vol);
        cr_assert_eq(jint(j, "canonical_steps"), can_steps);
        if (o == 0) {
            cr_assert_eq(v, best_vol, "volume %lld not optimal (%lld)", (long long)v,
                         (long long)best_vol);
            cr_assert_leq(v, can_vol);
        } else if (o == 1) {
            cr_assert_eq(s, best_steps, "steps %lld not optimal (%lld)", (long long)s,
                         (long long)best_steps);
            cr_assert_leq(s, can_steps);
        } else {
            cr_assert(s == lex[0] && v == lex[1], "lex (%lld, %lld), optimum (%lld, %lld)",
                      (long long)s, (long long)v, (long long)lex[0], (long long)lex[1]);
        }
        json_decref(j);
    }
    unlink(path);
    free(path);
}

Test(cli_match, json_fields_consistent_and_optimal)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    for (int t = 0; t < RANDOM_INSTANCES; t++) {
        inst in;
        random_inst(&in);
        check_match(&in);
    }
}

Test(cli_match, adversarial_instances)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    inst in = {.p = 1, .n = 0};
    check_match(&in); // one domain, nothing to move
    in = (inst){.p = 5, .n = 0};
    check_match(&in); // no items at all
    in = (inst){.p = 6, .n = 30, .weighted = true};
    for (int x = 0; x < in.n; x++) { // everything on domain 2, heavy sizes
        in.d[x] = 2;
        in.c[x] = x % 6;
        in.w[x] = 1000000000000LL + x;
    }
    check_match(&in);
    in = (inst){.p = 4, .n = 16};
    for (int x = 0; x < in.n; x++) { // every labelling ties on volume
        in.d[x] = x % 4;
        in.c[x] = (x / 4) % 4;
        in.w[x] = 1;
    }
    check_match(&in);
}

Test(cli_match, text_output_for_humans)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    inst in = {.p = 3, .n = 4, .d = {0, 1, 2, 2}, .c = {1, 2, 0, 0}, .w = {1, 1, 1, 1}};
    char *path = write_inst(&in);
    tool_result r = tool_run((const char *[]){"match", "--instance", path, NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "sigma") && strstr(r.out, "volume") && strstr(r.out, "canonical"),
              "%s", r.out);
    cr_assert_null(strchr(r.out, '{'), "text mode printed JSON: %s", r.out);
    tool_result_free(&r);
    r = tool_run((const char *[]){"schedule", "--instance", path, "--verify", NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "phase") && strstr(r.out, "verify: ok"), "%s", r.out);
    tool_result_free(&r);
    unlink(path);
    free(path);
}

// Phases: positive counts, distinct senders and receivers, no self-pair; per pair the counts
// add up to the transfers of the printed sigma (naive, from the file); sum of counts = steps.
static void check_schedule(const inst *in, const char *obj)
{
    char *path = write_inst(in);
    json_t *j = tool_json((const char *[]){"schedule", "--instance", path, "--objective", obj,
                                          "--verify", "--json", NULL});
    int sigma[MAXP];
    read_sigma(j, in->p, sigma);
    int64_t q[MAXP][MAXP] = {{0}}, got[MAXP][MAXP] = {{0}}, v, s;
    for (int x = 0; x < in->n; x++)
        q[in->d[x]][sigma[in->c[x]]] += in->w[x];
    naive_costs(in, sigma, &v, &s);
    cr_assert_eq(jint(j, "steps"), s);
    cr_assert(json_is_true(json_object_get(j, "verify")));
    json_t *phases = json_object_get(j, "phases");
    cr_assert(json_is_array(phases));
    int64_t total = 0;
    size_t t;
    json_t *ph;
    json_array_foreach(phases, t, ph) {
        int64_t c = jint(ph, "count");
        cr_assert_gt(c, 0);
        total += c;
        bool sends[MAXP] = {false}, recvs[MAXP] = {false};
        size_t k;
        json_t *pair;
        json_array_foreach(json_object_get(ph, "pairs"), k, pair) {
            cr_assert_eq(json_array_size(pair), 2);
            int a = (int)json_integer_value(json_array_get(pair, 0));
            int b = (int)json_integer_value(json_array_get(pair, 1));
            cr_assert(a >= 0 && a < in->p && b >= 0 && b < in->p && a != b, "pair %d->%d", a,
                      b);
            cr_assert(!sends[a] && !recvs[b], "phase %zu: domain sends or receives twice", t);
            sends[a] = recvs[b] = true;
            got[a][b] += c;
        }
    }
    cr_assert_eq(total, s, "counts add up to %lld, steps %lld", (long long)total,
                 (long long)s);
    for (int a = 0; a < in->p; a++)
        for (int b = 0; b < in->p; b++)
            if (a != b)
                cr_assert_eq(got[a][b], q[a][b], "pair %d->%d moves %lld, transfers %lld", a, b,
                             (long long)got[a][b], (long long)q[a][b]);
    json_decref(j);
    unlink(path);
    free(path);
}

Test(cli_schedule, phases_one_port_and_exact)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    const char *objs[] = {"volume", "steps", "lex", "canonical"};
    for (int t = 0; t < RANDOM_INSTANCES; t++) {
        inst in;
        random_inst(&in);
        check_schedule(&in, objs[t % 4]);
    }
}

// Every malformed file exits 2 with the problem (and, where there is one, the line) on stderr.
Test(cli_match, malformed_files_exit_2)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    static const struct {
        const char *text, *expect;
    } cases[] = {
        {"4 3\n0 1\n1 2\n", "expected 3"},           // fewer item lines than N
        {"4 2\n0 1\n1 2\n2 2\n", "line 4"},          // more item lines than N
        {"4 2\n0 1\n5 2\n", "line 3"},               // domain out of range
        {"4 2\n0 1\n1 4\n", "line 3"},               // component out of range
        {"4 2\n0 1\n-1 2\n", "line 3"},              // negative id
        {"4 2\n0 1\n1 2 -3\n", "line 3"},            // negative size
        {"4 2\n0 1 0\n1 2\n", "line 2"},             // zero size
        {"4 2\n0 1\n1 x\n", "line 3"},               // junk
        {"4 2\n0 1\n1 2 3 4\n", "line 3"},           // too many fields
        {"4 two\n", "line 1"},                       // junk header
        {"4\n", "line 1"},                           // short header
        {"0 0\n", "line 1"},                         // no domains
        {"", "P N"},                                 // empty file
        {"# nothing but a comment\n\n", "P N"},      // no header
    };
    const char *cmds[] = {"match", "schedule"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *path = write_text(cases[i].text);
        for (int c = 0; c < 2; c++) {
            tool_result r = tool_run((const char *[]){cmds[c], "--instance", path, "--json",
                                                      NULL});
            cr_assert_eq(r.status, 2, "%s on %s: exit %d, stderr %s", cmds[c], cases[i].text,
                         r.status, r.err);
            cr_assert(strstr(r.err, cases[i].expect), "%s: message '%s' lacks '%s'", cmds[c],
                      r.err, cases[i].expect);
            cr_assert_eq(r.out[0], 0, "stdout not empty on error: %s", r.out);
            tool_result_free(&r);
        }
        unlink(path);
        free(path);
    }
}

Test(cli_match, usage_errors_exit_2)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    inst in = {.p = 2, .n = 1, .w = {1}};
    char *path = write_inst(&in);
    const char *const *bad[] = {
        (const char *[]){"match", "--bogus", NULL},
        (const char *[]){"match", NULL},
        (const char *[]){"match", "--instance", NULL},
        (const char *[]){"match", "--instance", path, "--objective", "fast", NULL},
        (const char *[]){"match", "--instance", path, "--objective", "distance", NULL},
        (const char *[]){"match", "--instance", path, "extra", NULL},
        (const char *[]){"match", "--instance", path, "--verify", NULL},
        (const char *[]){"match", "--instance", "/nonexistent/instance.txt", NULL},
        (const char *[]){"schedule", "--instance", path, "--bogus", NULL},
        (const char *[]){"schedule", NULL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tool_result r = tool_run(bad[i]);
        cr_assert_eq(r.status, 2, "case %zu: exit %d (%s)", i, r.status, r.err);
        cr_assert(r.err[0], "case %zu: no message", i);
        tool_result_free(&r);
    }
    tool_result r = tool_run((const char *[]){"match", "--help", NULL});
    cr_assert_eq(r.status, 0);
    cr_assert(strstr(r.out, "--objective"));
    tool_result_free(&r);
    unlink(path);
    free(path);
}

// ---------------------------------------------------------------------------------------------
// match --ranks R: the hierarchical labelling (R ranks of P/R consecutive domains). Oracles from
// the file, item by item: inter-rank and intra-rank volume of the printed sigma, and exhaustive
// search over the R! placements of the target rank-groups (components j with the same j / D)
// and, for --split-groups, over all P! labellings.

typedef struct hier_costs {
    int64_t inter, intra, inter_steps;
} hier_costs;

static hier_costs naive_hier(const inst *in, const int *sigma, int per)
{
    hier_costs h = {0, 0, 0};
    int64_t sent[MAXP] = {0}, recv[MAXP] = {0};
    for (int x = 0; x < in->n; x++) {
        int to = sigma[in->c[x]], a = in->d[x] / per, b = to / per;
        if (a != b) {
            h.inter += in->w[x];
            sent[a] += in->w[x];
            recv[b] += in->w[x];
        } else if (to != in->d[x]) {
            h.intra += in->w[x];
        }
    }
    for (int r = 0; r < MAXP; r++) {
        h.inter_steps = sent[r] > h.inter_steps ? sent[r] : h.inter_steps;
        h.inter_steps = recv[r] > h.inter_steps ? recv[r] : h.inter_steps;
    }
    return h;
}

// Least intra-rank volume over the labellings that put every component on the rank sigma does.
static int64_t best_intra_same_ranks(const inst *in, const int *sigma, int per)
{
    int perm[MAXP];
    for (int k = 0; k < in->p; k++)
        perm[k] = k;
    int64_t best = INT64_MAX;
    do {
        bool same = true;
        for (int j = 0; j < in->p; j++)
            same &= perm[j] / per == sigma[j] / per;
        if (same) {
            hier_costs h = naive_hier(in, perm, per);
            best = h.intra < best ? h.intra : best;
        }
    } while (next_perm(perm, in->p));
    return best;
}

static void check_ranks(const inst *in, int nr)
{
    int per = in->p / nr;
    char *path = write_inst(in);
    char rs[16];
    snprintf(rs, sizeof rs, "%d", nr);
    // Brute force over the rank permutations of the groups, and over all labellings.
    int64_t best_v = INT64_MAX, best_s = INT64_MAX, lex_s = INT64_MAX, lex_v = INT64_MAX;
    int pi[MAXP], sigma[MAXP], id[MAXP];
    for (int r = 0; r < nr; r++)
        pi[r] = r;
    do {
        for (int j = 0; j < in->p; j++)
            sigma[j] = pi[j / per] * per + j % per;
        hier_costs h = naive_hier(in, sigma, per);
        best_v = h.inter < best_v ? h.inter : best_v;
        best_s = h.inter_steps < best_s ? h.inter_steps : best_s;
        if (h.inter_steps < lex_s || (h.inter_steps == lex_s && h.inter < lex_v))
            lex_s = h.inter_steps, lex_v = h.inter;
    } while (next_perm(pi, nr));
    int64_t any_v = INT64_MAX;
    for (int k = 0; k < in->p; k++)
        id[k] = k, sigma[k] = k;
    do {
        hier_costs h = naive_hier(in, sigma, per);
        any_v = h.inter < any_v ? h.inter : any_v;
    } while (next_perm(sigma, in->p));
    hier_costs can = naive_hier(in, id, per);
    int64_t flat_best, unused, lex[2];
    brute_force(in, &flat_best, &unused, lex);
    const char *objs[] = {"volume", "steps", "lex", "canonical", "volume"};
    for (int o = 0; o < 5; o++) {
        bool split = o == 4;
        json_t *j = tool_json((const char *[]){"match", "--instance", path, "--objective",
                                              objs[o], "--ranks", rs, "--json",
                                              split ? "--split-groups" : NULL, NULL});
        cr_assert_eq(jint(j, "ranks"), nr);
        cr_assert(json_is_boolean(json_object_get(j, "split_groups")));
        cr_assert_eq(json_is_true(json_object_get(j, "split_groups")), split);
        read_sigma(j, in->p, sigma);
        hier_costs h = naive_hier(in, sigma, per);
        int64_t v, s;
        naive_costs(in, sigma, &v, &s);
        cr_assert_eq(jint(j, "inter_volume"), h.inter, "%s: inter %lld, file says %lld",
                     objs[o], (long long)jint(j, "inter_volume"), (long long)h.inter);
        cr_assert_eq(jint(j, "intra_volume"), h.intra);
        cr_assert_eq(jint(j, "inter_steps"), h.inter_steps);
        cr_assert_eq(jint(j, "volume"), v);
        cr_assert_eq(jint(j, "steps"), s);
        cr_assert_eq(jint(j, "canonical_inter_volume"), can.inter);
        cr_assert_eq(jint(j, "canonical_intra_volume"), can.intra);
        if (o == 0) // the flat matching of the same objective is volume-optimal
            cr_assert_eq(jint(j, "flat_volume"), flat_best);
        // Groups stay whole (rank_sigma is where each went), except with --split-groups.
        json_t *rsig = json_object_get(j, "rank_sigma");
        cr_assert(split ? rsig == NULL : (int)json_array_size(rsig) == nr);
        for (int c = 0; c < in->p && !split; c++)
            cr_assert_eq(sigma[c] / per,
                         json_integer_value(json_array_get(rsig, (size_t)(c / per))));
        if (o == 0 || o == 4)
            cr_assert_eq(h.intra, best_intra_same_ranks(in, sigma, per), "%s: intra not least",
                         objs[o]);
        if (o == 0)
            cr_assert_eq(h.inter, best_v, "inter %lld, brute force %lld", (long long)h.inter,
                         (long long)best_v);
        else if (o == 1)
            cr_assert_eq(h.inter_steps, best_s);
        else if (o == 2)
            cr_assert(h.inter_steps == lex_s && h.inter == lex_v);
        else if (o == 3)
            cr_assert_eq(h.inter, can.inter);
        else
            cr_assert_eq(h.inter, any_v, "split inter %lld, least over all labellings %lld",
                         (long long)h.inter, (long long)any_v);
        json_decref(j);
    }
    unlink(path);
    free(path);
}

Test(cli_match, ranks_vs_brute_force)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    static const int shapes[][2] = {{4, 2}, {4, 4}, {6, 2}, {6, 3}, {4, 1}};
    for (int t = 0; t < RANDOM_INSTANCES / 2; t++) {
        inst in;
        random_inst(&in);
        in.p = shapes[t % 5][0];
        for (int x = 0; x < in.n; x++) { // the instance's labels, on P domains
            in.d[x] %= in.p;
            in.c[x] = (int)rnd((uint64_t)in.p);
        }
        check_ranks(&in, shapes[t % 5][1]);
    }
}

Test(cli_match, ranks_text_and_usage)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    inst in = {.p = 4, .n = 4, .d = {0, 1, 2, 3}, .c = {2, 3, 0, 1}, .w = {1, 1, 1, 1}};
    char *path = write_inst(&in);
    // Swapping the two ranks' groups keeps everything in place.
    tool_result r = tool_run((const char *[]){"match", "--instance", path, "--ranks", "2",
                                              NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "inter-rank") && strstr(r.out, "intra-rank") &&
              strstr(r.out, "rank_sigma") && strstr(r.out, "1 0"), "%s", r.out);
    cr_assert_null(strchr(r.out, '{'), "text mode printed JSON: %s", r.out);
    tool_result_free(&r);
    static const struct {
        const char *a, *b, *c, *d, *expect;
    } bad[] = {
        {"--ranks", NULL, NULL, NULL, "'--ranks' needs a value"},
        {"--ranks", "--json", NULL, NULL, "'--ranks' needs a value ('--json' is an option)"},
        {"--ranks", "0", NULL, NULL, "'0' is not a rank count"},
        {"--ranks=two", NULL, NULL, NULL, "'two' is not a rank count"},
        {"--ranks", "3", NULL, NULL, "do not split into 3 equal ranks"},
        {"--ranks", "5", NULL, NULL, "do not split into 5 equal ranks"},
        {"--split-groups", NULL, NULL, NULL, "needs --ranks"},
        {"--ranks", "2", "--split-groups", "--objective", "--objective volume or canonical"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const char *args[] = {"match", "--instance", path, bad[i].a, bad[i].b, bad[i].c,
                              bad[i].d, bad[i].d ? "lex" : NULL, NULL};
        r = tool_run(args);
        cr_assert_eq(r.status, 2, "case %zu: exit %d (%s)", i, r.status, r.err);
        cr_assert(strstr(r.err, bad[i].expect), "case %zu: '%s' lacks '%s'", i, r.err,
                  bad[i].expect);
        cr_assert_eq(r.out[0], 0);
        tool_result_free(&r);
    }
    unlink(path);
    free(path);
}
