// Cao et al. 2022, §8.3 and Fig. 3 (docs/fidelity.md): the nine categories of the paper's
// experiment (source tiles MBs x NBs, target tiles MBs (cid/3 + 1) x NBs (cid%3 + 1)) are the
// plan's categories one to one: every target tile of experiment cid has category cid and the
// segments the paper names for it (NW, N, NE, W, I, E, SW, S, SE), each a whole source tile.
// Which of them land strided in the column-major target tile (one memcpy per column instead of
// one per segment) is what separates the categories' copy rates here.
#include <criterion/criterion.h>
#include <stdlib.h>

#include "numatile/matrix.h"
#include "numatile/plan.h"

enum { TILE = 8, M = 6 * TILE * 2, D = 4 };

// Segment positions inside a target tile made of k pieces along one dimension (k = 1, 2, 3):
// one piece is the middle (W/I/E or N/I/S), two are the two ends, three all of them.
static unsigned positions(int k)
{
    return k == 1 ? 2u : k == 2 ? 5u : 7u;
}

static unsigned expected_parts(int cid)
{
    unsigned rows = positions(cid / 3 + 1), cols = positions(cid % 3 + 1), set = 0;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            if ((rows >> r & 1) && (cols >> c & 1))
                set |= 1u << (3 * r + c);
    return set;
}

static nt_plan_t *experiment(int cid, nt_matrix_t **S, nt_matrix_t **T)
{
    nt_matrix_shape_t ss = {M, M, TILE, TILE, sizeof(double)};
    nt_matrix_shape_t ts = {M, M, TILE * (cid / 3 + 1), TILE * (cid % 3 + 1), sizeof(double)};
    cr_assert_eq(nt_matrix_create_spec(NULL, &ss, "random:3", D, NT_LAYOUT_TILE,
                                       NT_MATRIX_NOALLOC, S), NT_OK, "%s", nt_last_error());
    cr_assert_eq(nt_matrix_create_spec(NULL, &ts, "bc2d:2x2", D, NT_LAYOUT_TILE,
                                       NT_MATRIX_NOALLOC, T), NT_OK, "%s", nt_last_error());
    nt_plan_t *p = NULL;
    cr_assert_eq(nt_plan_create(*S, *T, NULL, NULL, &p), NT_OK, "%s", nt_last_error());
    return p;
}

Test(fidelity_cao, categories_are_the_papers)
{
    for (int cid = 0; cid < 9; cid++) {
        nt_matrix_t *S = NULL, *T = NULL;
        nt_plan_t *p = experiment(cid, &S, &T);
        nt_plan_info_t info;
        cr_assert_eq(nt_plan_info(p, &info), NT_OK);
        int per_tile = (cid / 3 + 1) * (cid % 3 + 1);
        cr_assert_eq(info.category_tiles[cid], info.tiles, "cid %d", cid);
        cr_assert_eq(info.segments, info.tiles * per_tile);
        const nt_segment_t *g = nt_plan_segments(p);
        unsigned *parts = calloc((size_t)info.tiles, sizeof *parts);
        int *count = calloc((size_t)info.tiles, sizeof *count);
        for (int64_t x = 0; x < info.segments; x++) {
            cr_assert_eq(g[x].category, cid);
            // Every segment is a whole source tile, as in the paper's experiment.
            cr_assert(g[x].rows == TILE && g[x].cols == TILE && g[x].src_row == 0 &&
                      g[x].src_col == 0, "cid %d: segment %lld is not a whole source tile", cid,
                      (long long)x);
            // Strided in the target exactly when the target tile has more rows than it.
            bool contiguous = g[x].rows == T->mb;
            cr_assert_eq(contiguous, cid / 3 == 0);
            parts[g[x].dst_tile] |= 1u << g[x].part;
            count[g[x].dst_tile]++;
        }
        for (int64_t t = 0; t < info.tiles; t++) {
            cr_assert_eq(count[t], per_tile);
            // Bit k = nt_seg_part k (NW = 0 .. SE = 8).
            cr_assert_eq(parts[t], expected_parts(cid), "cid %d tile %lld: parts %#x, want "
                         "%#x", cid, (long long)t, parts[t], expected_parts(cid));
        }
        free(parts);
        free(count);
        nt_plan_destroy(p);
        nt_matrix_destroy(S);
        nt_matrix_destroy(T);
    }
}
