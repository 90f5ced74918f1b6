// `numatile topo --map TILE@DIST --m M --n N`: what a tile map puts on each domain, and
// `--draw FILE.png`: an lstopo-style picture of the domains (a box each, with its cpus and
// memory, shaded by the share of the map's bytes it holds), drawn by gnuplot from a data file
// written beside the picture, so the data fed to the plotter can be checked against the map.
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "harness.h"
#include "cli_topo_draw.h"

int topo_map_holds(const nt_topo_t *t, const topo_map *m, int64_t *tiles, int64_t *bytes)
{
    int D = nt_topo_ndomains(t);
    int64_t mt = (m->m + m->mb - 1) / m->mb, nt = (m->n + m->nb - 1) / m->nb;
    nt_tilemap_t *map;
    nt_tier_opts_t to;
    nt_matrix_shape_t sh = {m->m, m->n, m->mb, m->nb, (size_t)m->elem};
    // A tier placement depends on the machine: built from the topology (numatile/tiers.h).
    bool tier = !strncmp(m->dist, "tier:", 5);
    nt_status st = tier ? nt_tier_parse(m->dist, &to) : nt_tilemap_from_spec(m->dist, mt, nt, 0,
                                                                             &map);
    if (tier && st == NT_OK)
        st = nt_tier_tilemap(t, &sh, &to, &map);
    // random and balanced need the count: the topology's.
    if (st == NT_EINVAL && (!strncmp(m->dist, "random:", 7) || !strncmp(m->dist, "balanced:", 9)))
        st = nt_tilemap_from_spec(m->dist, mt, nt, D, &map);
    if (st != NT_OK)
        return cli_usage("topo", "--map: %s", nt_last_error());
    int rc = CLI_OK;
    if (map->ndomains > D)
        rc = cli_usage("topo", "--map: '%s' places tiles on %d domains, the topology has %d "
                       "(--domains)", m->dist, map->ndomains, D);
    for (int d = 0; d < D; d++)
        tiles[d] = bytes[d] = 0;
    for (int64_t i = 0; i < mt && rc == CLI_OK; i++)
        for (int64_t j = 0; j < nt; j++) {
            int d = map->owner[i * nt + j];
            int64_t rows = m->m - i * m->mb < m->mb ? m->m - i * m->mb : m->mb;
            int64_t cols = m->n - j * m->nb < m->nb ? m->n - j * m->nb : m->nb;
            tiles[d]++;
            bytes[d] += rows * cols * m->elem; // bounded by the caller's size check
        }
    nt_tilemap_destroy(map);
    return rc;
}

// "0-3,8" from an ascending list.
static void cpu_ranges(const int *c, int n, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = 0;
    for (int k = 0; k < n && len + 24 < cap;) {
        int e = k;
        while (e + 1 < n && c[e + 1] == c[e] + 1)
            e++;
        len += (size_t)snprintf(buf + len, cap - len, e > k ? "%s%d-%d" : "%s%d", k ? "," : "",
                                c[k], c[e]);
        k = e + 1;
    }
    if (!n)
        snprintf(buf, cap, "none");
}

// Boxes on a grid of ceil(sqrt(D)) columns, row 0 at the top.
static int grid_cols(int D)
{
    int c = 1;
    while (c * c < D)
        c++;
    return c;
}

static bool write_data(const nt_topo_t *t, const char *path, const int64_t *tiles,
                       const int64_t *bytes)
{
    FILE *f = bench_fopen_atomic(path);
    if (!f)
        return false;
    int D = nt_topo_ndomains(t), cols = grid_cols(D);
    int64_t total = 0;
    for (int d = 0; bytes && d < D; d++)
        total += bytes[d];
    fprintf(f, "# numatile topo --draw: one line per domain\n"
               "# domain node x y cpus memory_bytes tiles bytes share memory_allowed kind "
               "bandwidth_mibs\n");
    for (int d = 0; d < D; d++) {
        nt_domain_info_t info;
        nt_topo_domain(t, d, &info);
        char cpus[512];
        cpu_ranges(info.cpus, info.ncpus, cpus, sizeof cpus);
        nt_domain_memory_t dm;
        nt_topo_domain_memory(t, d, &dm);
        fprintf(f, "%d %d %d %d \"%s\" %llu %lld %lld %.6f %d %s %llu\n", d, info.node, d % cols,
                d / cols, cpus, (unsigned long long)info.memory_bytes,
                (long long)(tiles ? tiles[d] : 0), (long long)(bytes ? bytes[d] : 0),
                total > 0 ? (double)bytes[d] / (double)total : 0.0,
                nt_topo_node_memory_allowed(t, info.node), nt_mem_kind_name(dm.kind),
                (unsigned long long)dm.bandwidth_mibs);
    }
    return fclose(f) == 0;
}

// The script reads everything it draws from the data file (columns as written above).
static bool write_script(const nt_topo_t *t, const char *gp, const char *dat, const char *png,
                         const topo_map *m, const int64_t *bytes)
{
    // The shade runs up to the largest share, the byte unit fits the largest count.
    int64_t most = 0, total = 0;
    for (int d = 0; bytes && d < nt_topo_ndomains(t); d++) {
        most = bytes[d] > most ? bytes[d] : most;
        total += bytes[d];
    }
    double top = total > 0 ? (double)most / (double)total : 1;
    const char *unit = most >= (1 << 30) ? "GiB" : most >= (1 << 20) ? "MiB" : "KiB";
    int shift = most >= (1 << 30) ? 30 : most >= (1 << 20) ? 20 : 10;
    FILE *f = bench_fopen_atomic(gp);
    if (!f)
        return false;
    int D = nt_topo_ndomains(t), cols = grid_cols(D), rows = (D + cols - 1) / cols;
    char title[512];
    int n = snprintf(title, sizeof title, "%s topology, %d domain%s",
                     nt_topo_kind_name(nt_topo_get_kind(t)), D, D == 1 ? "" : "s");
    if (m->dist)
        snprintf(title + n, sizeof title - (size_t)n, "; map %lldx%lld@%s of %lld x %lld",
                 (long long)m->mb, (long long)m->nb, m->dist, (long long)m->m, (long long)m->n);
    int nleft;
    const int *left = nt_topo_cpus_left_out(t, &nleft);
    char lo[512];
    cpu_ranges(left, nleft, lo, sizeof lo);
    // gnuplot's single-quoted strings have no escapes: a quote in the title is dropped (the
    // paths were refused with one by the option parser).
    for (char *p = title; *p; p++)
        *p = *p == '\'' ? ' ' : *p;
    fprintf(f,
            "set terminal png noenhanced size %d,%d\n"
            "set output '%s'\n"
            "set title '%s'\n"
            "unset key\nunset border\nunset xtics\nunset ytics\nunset colorbox\n"
            "set xrange [-0.6:%d - 0.4]\nset yrange [%d - 0.3:-0.7]\n"
            "set palette defined (0 '#ffffff', 1 '#4477aa')\nset cbrange [0:%g]\n"
            "set style fill solid 1.0 border lc rgb '#333333'\n"
            "set object 1 rect from -0.54,-0.62 to %d - 0.46,%d - 0.46 fs empty "
            "border lc rgb '#333333'\n"
            "set label 2 'Machine: %d NUMA node%s (%s)' at -0.5,-0.56 left\n",
            220 * cols + 40 > 560 ? 220 * cols + 40 : 560, 170 * rows + 100, png, title, cols,
            rows, top, cols, rows, nt_topo_nphysical(t), nt_topo_nphysical(t) == 1 ? "" : "s",
            nt_topo_source_name(nt_topo_get_source(t)));
    if (nleft)
        fprintf(f, "set label 1 'cpus left out (not allowed to this process): %s' at screen "
                   "0.02, screen 0.03\n", lo);
    char extra[160] = "";
    if (m->dist)
        snprintf(extra, sizeof extra, ", \\\n  f using 3:($4 + 0.18):(sprintf('%%d tiles, "
                 "%%.2f %s', $7, $8 / 2.0**%d)) with labels", unit, shift);
    // Boxes shaded by the share of the map's bytes; memory the process may not use hatched.
    fprintf(f,
            "f = '%s'\n"
            "plot f using 3:4:(0.46):(0.44):9 with boxxyerror lc palette, \\\n"
            "  f using 3:($10 > 0 ? 1/0 : $4):(0.46):(0.44) with boxxyerror fs pattern 2 "
            "lc rgb '#aa3377', \\\n"
            "  f using 3:($4 - 0.28):(sprintf('domain %%d (node %%d)', $1, $2)) with labels, "
            "\\\n"
            "  f using 3:($4 - 0.12):(sprintf('cpus %%s', strcol(5))) with labels, \\\n"
            "  f using 3:($4 + 0.02):(sprintf('%%.1f GiB%%s', $6 / 2.0**30, $10 > 0 ? '' : "
            "' (not allowed)')) with labels, \\\n"
            "  f using 3:($4 + 0.34):(sprintf('%%s%%s', strcol(11), $12 > 0 ? "
            "sprintf(', %%.1f GB/s', $12 * 2.0**20 / 1e9) : '')) with labels%s\n",
            dat, extra);
    return fclose(f) == 0;
}

int topo_draw_check(const char *png)
{
    char why[PATH_MAX + 64];
    if (bench_out_check_file(png, why, sizeof why) != 0)
        return cli_usage("topo", "--draw: cannot write there: %s", why);
    return CLI_OK;
}

static int run_gnuplot(const char *gp)
{
    if (!bench_have_program("gnuplot")) {
        cli_eprintf("numatile topo: --draw needs gnuplot on PATH (the data and script are in "
                    "%s and beside it)\n", gp);
        return CLI_RUNTIME;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        execlp("gnuplot", "gnuplot", gp, (char *)NULL);
        _exit(127);
    }
    int ws;
    if (pid < 0 || waitpid(pid, &ws, 0) != pid || !WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
        cli_eprintf("numatile topo: gnuplot %s failed: no picture\n", gp);
        return CLI_RUNTIME;
    }
    return CLI_OK;
}

int topo_draw(const nt_topo_t *t, const char *png, const topo_map *m, const int64_t *tiles,
              const int64_t *bytes)
{
    size_t len = strlen(png);
    char *dat = malloc(len + 1), *gp = malloc(len + 1);
    if (!dat || !gp) {
        free(dat);
        free(gp);
        return CLI_RUNTIME;
    }
    // FILE.png -> FILE.dat, FILE.gp (the caller checked the extension).
    memcpy(dat, png, len - 4);
    memcpy(gp, png, len - 4);
    strcpy(dat + len - 4, ".dat");
    strcpy(gp + len - 4, ".gp");
    int rc = topo_draw_check(png);
    // Each file appears whole or not at all (bench_fopen_atomic); a failed write is exit 3.
    if (rc == CLI_OK && (!write_data(t, dat, tiles, bytes) ||
                         !write_script(t, gp, dat, png, m, bytes))) {
        cli_eprintf("numatile topo: --draw: cannot write %s or %s: %s\n", dat, gp,
                    strerror(errno));
        rc = CLI_RUNTIME;
    }
    if (rc == CLI_OK)
        rc = run_gnuplot(gp);
    free(dat);
    free(gp);
    return rc;
}
