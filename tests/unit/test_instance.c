// Instance files for match / schedule: a valid file with comments and sizes, every documented
// error with its line, file reading, and the count matrix against a naive recount.
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "numatile/instance.h"

static nt_status parse(const char *text, nt_instance_t **out)
{
    return nt_instance_parse(text, strlen(text), out);
}

Test(instance, valid_with_comments_and_sizes)
{
    const char *text = "# an instance\n"
                       "\n"
                       "3 4   # P N\n"
                       "0 1\n"
                       "  2 2 5  # weighted\n"
                       "1\t0 1\r\n"
                       "2 1";
    nt_instance_t *in = NULL;
    cr_assert_eq(parse(text, &in), NT_OK, "%s", nt_last_error());
    cr_assert_eq(in->p, 3);
    cr_assert_eq(in->n, 4);
    cr_assert_eq(in->weighted, 1);
    cr_assert_eq(in->total, 8);
    const int d[4] = {0, 2, 1, 2}, pp[4] = {1, 2, 0, 1};
    const int64_t w[4] = {1, 5, 1, 1};
    for (int x = 0; x < 4; x++) {
        cr_assert_eq(in->domain[x], d[x]);
        cr_assert_eq(in->part[x], pp[x]);
        cr_assert_eq(in->size[x], w[x]);
    }
    int64_t items[9], weight[9], naive_i[9] = {0}, naive_w[9] = {0};
    cr_assert_eq(nt_instance_counts(in, items, weight), NT_OK);
    for (int x = 0; x < 4; x++) {
        naive_i[d[x] * 3 + pp[x]]++;
        naive_w[d[x] * 3 + pp[x]] += w[x];
    }
    cr_assert_arr_eq(items, naive_i, sizeof items);
    cr_assert_arr_eq(weight, naive_w, sizeof weight);
    nt_instance_destroy(in);
    nt_instance_destroy(NULL);

    cr_assert_eq(parse("2 0\n# nothing\n", &in), NT_OK);
    cr_assert_eq(in->n, 0);
    cr_assert_eq(in->total, 0);
    nt_instance_destroy(in);
}

static void expect_error(const char *text, nt_status code, const char *needle)
{
    nt_instance_t *in = (nt_instance_t *)0x1;
    cr_assert_eq(parse(text, &in), code, "text <%s>: got %s", text, nt_last_error());
    cr_assert(strstr(nt_last_error(), needle) != NULL, "text <%s>: message '%s' lacks '%s'",
              text, nt_last_error(), needle);
    cr_assert_eq(in, (nt_instance_t *)0x1, "out written on failure");
}

Test(instance, errors_name_line_and_problem)
{
    expect_error("", NT_EINVAL, "missing the 'P N' line");
    expect_error("# only a comment\n", NT_EINVAL, "missing");
    expect_error("3\n", NT_EINVAL, "line 1: expected 'P N'");
    expect_error("3 2 1\n0 0\n0 0\n", NT_EINVAL, "line 1: expected 'P N'");
    expect_error("0 2\n", NT_EINVAL, "line 1: P = 0");
    expect_error("2 -1\n", NT_EINVAL, "line 1: N = -1");
    expect_error("2 x\n", NT_EINVAL, "line 1: junk 'x'");
    expect_error("2 3\n0 0\n1 1\n", NT_EINVAL, "expected 3 item lines, found 2");
    expect_error("2 1\n0 0\n1 1\n", NT_EINVAL, "line 3: extra line");
    expect_error("2 2\n0 0\n# c\n2 1\n", NT_EINVAL, "line 4: domain 2 out of range 0..1");
    expect_error("2 1\n-1 0\n", NT_EINVAL, "line 2: domain -1 out of range");
    expect_error("2 1\n0 5\n", NT_EINVAL, "line 2: component 5 out of range 0..1");
    expect_error("2 1\n0 1 -4\n", NT_EINVAL, "line 2: size -4 must be a positive integer");
    expect_error("2 1\n0 1 0\n", NT_EINVAL, "line 2: size 0 must be a positive integer");
    expect_error("2 1\n0 1 2 3\n", NT_EINVAL, "line 2: expected 'd p [w]', found 4 fields");
    expect_error("2 1\n0\n", NT_EINVAL, "line 2: expected 'd p [w]', found 1 field");
    expect_error("2 1\n0 1x\n", NT_EINVAL, "line 2: junk '1x'");
    expect_error("2 1\n0 1 2.5\n", NT_EINVAL, "line 2: junk '2.5'");
    expect_error("2 1\n0 99999999999999999999\n", NT_ERANGE, "line 2: number");
    expect_error("2 2\n0 1 9223372036854775807\n1 1 1\n", NT_ERANGE, "line 3: the total size");
    // A NUL byte in the middle is junk, not an early end.
    const char nul[] = "2 1\n0\0 1\n";
    nt_instance_t *in = NULL;
    cr_assert_eq(nt_instance_parse(nul, sizeof nul - 1, &in), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "line 2") != NULL, "%s", nt_last_error());
    // A huge N with no lines must not allocate N entries first.
    expect_error("2 4000000000000000\n0 0\n", NT_EINVAL, "expected 4000000000000000 item lines");
}

Test(instance, read_file)
{
    char path[] = "/tmp/nt_instance_XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("2 3\n0 1\n1 0 4\n1 1\n", f);
    fclose(f);
    nt_instance_t *in = NULL;
    cr_assert_eq(nt_instance_read(path, &in), NT_OK, "%s", nt_last_error());
    cr_assert_eq(in->n, 3);
    cr_assert_eq(in->total, 6);
    nt_instance_destroy(in);
    f = fopen(path, "w");
    fputs("2 3\n0 1\n1 7\n", f);
    fclose(f);
    cr_assert_eq(nt_instance_read(path, &in), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), path) != NULL, "%s", nt_last_error());
    cr_assert(strstr(nt_last_error(), "line 3: component 7") != NULL, "%s", nt_last_error());
    unlink(path);
    cr_assert_eq(nt_instance_read(path, &in), NT_EIO);
    cr_assert(strstr(nt_last_error(), path) != NULL);
    cr_assert_eq(nt_instance_read(NULL, &in), NT_EINVAL);
}
