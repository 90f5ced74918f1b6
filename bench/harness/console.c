// What the harness writes on the terminal: the scenario's text (with its NAME.txt copy),
// notices, and the progress bar or progress lines (see harness.h).
#include "harness_int.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "numatile.h" // nt_escape

void bench_close_bar(bench_run *r)
{
    if (r->st->bar_open) {
        fputc('\n', stderr);
        r->st->bar_open = false;
    }
}

void bench_printf(bench_run *r, const char *fmt, ...)
{
    bench_close_bar(r);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(r->json ? stderr : stdout, fmt, ap);
    va_end(ap);
    if (r->st->txt) {
        va_start(ap, fmt);
        vfprintf(r->st->txt, fmt, ap);
        va_end(ap);
    }
}

void bench_eprintf(const char *fmt, ...)
{
    char raw[4608], esc[sizeof raw];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    for (char *line = raw, *nl; line; line = nl) {
        if ((nl = strchr(line, '\n')) != NULL)
            *nl++ = '\0';
        nt_escape(line, esc, sizeof esc);
        fputs(esc, stderr);
        if (nl)
            fputc('\n', stderr);
    }
}

void bench_notice(bench_run *r, const char *fmt, ...)
{
    char raw[1024], buf[sizeof raw];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    // Notices may name the output directory (--out): escaped on the terminal and in the JSON,
    // which would drop a string that is not valid UTF-8.
    nt_escape(raw, buf, sizeof buf);
    bench_close_bar(r);
    fflush(stdout); // keep the table and the notice in order on a shared terminal
    fprintf(stderr, "numatile bench %s: notice: %s\n", r->name, buf);
    json_array_append_new(r->st->notices, json_string(buf));
}

// On a terminal: one bar, redrawn when the permille changes.
static void draw_bar(bench_run *r, int64_t done, int64_t total, const char *what, double now)
{
    bench_state *st = r->st;
    int permille = (int)(1000.0 * (double)done / (double)total);
    if (permille == st->last_permille && done < total)
        return;
    st->last_permille = permille;
    int width = 40, fill = permille * width / 1000;
    fprintf(stderr, "\r[%.*s%*s] %5.1f%% %s (%.0f s)", fill,
            "########################################", width - fill, "", permille / 10.0,
            what, now - st->t0);
    st->bar_open = true;
    if (done >= total)
        bench_close_bar(r);
    fflush(stderr);
}

void bench_progress(bench_run *r, int64_t done, int64_t total, const char *what)
{
    bench_state *st = r->st;
    double now = bench_now();
    if (now - st->t0 < 2.0 || total <= 0)
        return;
    fflush(stdout);
    if (isatty(STDERR_FILENO)) {
        draw_bar(r, done, total, what, now);
    } else if (now - st->last_line >= 5.0 || done >= total) {
        st->last_line = now;
        fprintf(stderr, "numatile bench %s: %lld/%lld %s (%.0f s)\n", r->name, (long long)done,
                (long long)total, what, now - st->t0);
    }
}
