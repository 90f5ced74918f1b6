// Scenario herrmann-fig2: Herrmann et al. 2016, §4.3, Fig. 2. A random balanced initial
// distribution of D = 1..20 items on each of P = 32 processors against the canonical block
// partition: the volume- and steps-optimal labellings relative to the canonical one.
#include "scenarios.h"
#include "scn_herrmann_common.h"

static const bench_col x_col = {.key = "D", .head = "D", .fmt = "%-5.0f"};

static int parameters(bench_run *r)
{
    int reps = bench_reps(r, 50, 10);
    bench_param(r, "P", json_integer(FIG_P));
    bench_param(r, "D", json_pack("[i, i]", 1, 20));
    bench_param(r, "instances", json_integer(reps));
    bench_param(r, "initial", json_string("random balanced: every processor holds D items, "
                                          "positions shuffled (nt_dist1d_balanced)"));
    bench_param(r, "target", json_string("canonical block partition, D items per component"));
    bench_labels(r, "D", NULL);
    return reps;
}

static void report(bench_run *r, int reps, json_t *rows)
{
    bench_printf(r,
        "\ncan.vol: mean canonical volume; E[can] = D(P-1), the paper's expectation (620 at "
        "D = 20).\nP(st=D): observed fraction of instances whose canonical steps equal D, and in "
        "brackets the paper's\n  1 - (1 - ((P-1)/P)^D)^P (it treats the processors as "
        "independent; 0.986 at P = D = 10 in the paper).\n"
        "Paper (Fig. 2 text): volume- and steps-optimal labellings about 10%% better than "
        "canonical (ratio ~0.9)\n  for D >= 10, more for small D; both labellings nearly equal "
        "with small std. Read ratio ~0.9 at D >= 10.\n"
        "Setting: as the paper (P = 32, D = 1..20, %d instances per D, random balanced "
        "initial, canonical target);\n  the random instances are ours (splitmix64 from seed "
        "%llu), so means differ from the paper's within the std.\n  lex (fewest steps, then "
        "least volume) is not in the paper.\n",
        reps, (unsigned long long)r->seed);
    fig_plot(r, "herrmann-fig2",
             "Herrmann 2016 Fig. 2 (random), P = 32: optimal / canonical (mean +- std)", "D",
             "D (items per processor)", rows);
    bench_summary(r, json_pack("{s:o}", "rows", rows));
}

int scn_herrmann_fig2(bench_run *r)
{
    int reps = parameters(r);
    bench_printf(r, "Herrmann 2016 Fig. 2: random balanced initial distribution, P = %d, "
                 "D = 1..20 items per processor, %d instances each\n", FIG_P, reps);
    bench_printf(r, "ratios optimal / canonical (mean+-std); a column pair per labelling: "
                 "volume ratio, steps ratio\n");
    fig_table_head(r, &x_col);
    json_t *rows = json_array(), *row;
    for (int d = 1; d <= 20; d++) {
        int rc = fig_point(r, "D", d, d, -1.0, reps, &row);
        if (rc) {
            json_decref(rows);
            return rc;
        }
        fig_table_row(r, &x_col, row);
        json_array_append_new(rows, row);
        bench_progress(r, d, 20, "values of D");
    }
    report(r, reps, rows);
    return 0;
}
