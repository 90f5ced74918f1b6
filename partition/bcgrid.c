// Block-cyclic pattern detection on tile maps: is owner(i,j) = ((i/SMB) mod P)*Q + (j/SNB) mod Q
// for some grid P x Q and block sizes SMB, SNB? Matrices record the answer so that plans can
// use closed-form communication sets.
#include <stdlib.h>

#include "nt_partition.h"
#include "numatile/matrix.h"

// The run length of the first value of seq (with stride), then a check that the sequence is
// ((x / run) mod period) * mult for x = 0..len-1.
static bool fit_cyclic(const int *seq, int64_t len, int64_t stride, int mult, int *period,
                       int64_t *run)
{
    int64_t r = 1;
    while (r < len && seq[r * stride] == seq[0])
        r++;
    int maxv = 0;
    for (int64_t x = 0; x < len; x++) {
        int v = seq[x * stride];
        if (v < 0 || v % mult)
            return false;
        if (v / mult > maxv)
            maxv = v / mult;
    }
    int p = maxv + 1;
    for (int64_t x = 0; x < len; x++)
        if (seq[x * stride] != (int)((x / r) % p) * mult)
            return false;
    *period = p;
    *run = r;
    return true;
}

nt_bcgrid_t nt_bcgrid_detect(const int *owner, int64_t mt, int64_t nt, int ndomains)
{
    nt_bcgrid_t none = {0, 0, 0, 0};
    // Try every process-column count q; row 0 gives the column pattern, column 0 the rows.
    for (int q = 1; q <= ndomains; q++) {
        int pc;
        int64_t snb;
        // Column part: owner(0,j) mod q must be cyclic, and owner(0,j) - that = owner(0,0).
        int *col = malloc((size_t)nt * sizeof *col);
        if (!col)
            return none;
        bool ok = true;
        for (int64_t j = 0; j < nt && ok; j++) {
            int v = owner[j];
            col[j] = v % q;
            ok = v - v % q == owner[0] - owner[0] % q;
        }
        ok = ok && owner[0] % q == 0 && fit_cyclic(col, nt, 1, 1, &pc, &snb);
        free(col);
        // Fewer than q column values are fine when the row never wraps around.
        if (!ok || pc > q || (pc < q && nt > (int64_t)pc * snb))
            continue;
        int p;
        int64_t smb;
        if (!fit_cyclic(owner, mt, nt, q, &p, &smb))
            continue;
        if ((int64_t)p * q > ndomains)
            continue;
        // Row 0 against the column pattern, then every row against row 0 plus its grid row's
        // offset (no division per tile: element-cyclic maps have millions of tiles).
        bool all = true;
        for (int64_t j = 0; j < nt && all; j++)
            all = owner[j] == (int)((j / snb) % q);
        for (int64_t i = 1; i < mt && all; i++) {
            int row = (int)((i / smb) % p) * q, bad = 0;
            const int *o = owner + i * nt;
            for (int64_t j = 0; j < nt; j++)
                bad |= o[j] != row + owner[j];
            all = !bad;
        }
        if (all)
            return (nt_bcgrid_t){p, q, smb, snb};
    }
    return none;
}
