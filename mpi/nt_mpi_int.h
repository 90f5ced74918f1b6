// Internals of libnumatile_mpi: its error message, the pieces of one dimension.
#ifndef NUMATILE_MPI_INT_H
#define NUMATILE_MPI_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <omp.h>

#include "numatile/mpi.h"

// Record a message for nt_mpi_last_error() and return code.
nt_status nt_mpi_fail(nt_status code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

// Set the message as is (the agreement copies another rank's message).
void nt_mpi_set_error(const char *msg);

// Collective on c: every rank gets the most negative status st of all ranks, with the message
// of the lowest failing rank (me = this rank), and, when flag is given, whether any rank set
// its *flag. NT_ESYS when the MPI calls themselves fail.
nt_status nt_mpi_agree(MPI_Comm c, nt_status st, int me, int *flag);

// What a caller's communicator keeps between calls (cache.c).
typedef struct nt_mpi_ctx {
    MPI_Comm comm;  // private duplicate: MPI errors returned, our tags apart from the caller's
    MPI_Comm node;  // the ranks that share memory with this one (MPI_COMM_NULL: no shm)
    int *node_rank; // comm rank -> rank in node, -1 on another node
    int node_ranks; // how many ranks of comm share this rank's node (its cpus), shm or not
    bool shm;       // same-node messages are packed straight into the receiver's window
    int datatypes;  // point-to-point messages through datatypes over A and B (NT_MPI_DATATYPES):
                    // 0 never, 1 to and from ranks of this node (default), 2 every peer
    MPI_Win win;    // the shared window (MPI_WIN_NULL until first needed), lock_all held
    char *base;     // this rank's segment of it
    size_t cap;     // its size
} nt_mpi_ctx;

// The context of comm, made at the first call on comm (collective) and cached as an
// attribute of comm (freed with it).
nt_status nt_mpi_context(MPI_Comm comm, nt_mpi_ctx **out);

// The rank NT_MPI_FAIL_RANK names (tests inject a failure there after the exchange), or -1.
int nt_mpi_injected_rank(void);

// Pack and unpack threads when the caller gives none (redist.c): OpenMP's count, at most this
// rank's share of the cpus of its node.
int nt_mpi_default_threads(const nt_mpi_ctx *ctx);

// Replace the window by one of at least bytes on this rank; collective over c->node.
nt_status nt_mpi_window_grow(nt_mpi_ctx *c, size_t bytes);

// The window segment of a rank of the same node (comm rank), or NULL.
char *nt_mpi_window_of(const nt_mpi_ctx *c, int rank);

// Buffer which (0 = send, 1 = receive) of at least bytes, kept between calls and freed at
// MPI_Finalize; NULL when it cannot be allocated.
char *nt_mpi_buffer(int which, size_t bytes);

// One contiguous piece of a dimension: len indices starting at local index s of the source and
// local index d of the target.
typedef struct nt_mpi_piece {
    int64_t s, d, len;
} nt_mpi_piece;

typedef struct nt_mpi_pieces {
    nt_mpi_piece *v;
    int64_t n;   // pieces
    int64_t sum; // indices in all pieces
} nt_mpi_pieces;

// One dimension of a block-cyclic matrix: block size b over p processes, the first block on
// process src, the submatrix starting at global index off.
typedef struct nt_mpi_dim {
    int64_t b, off;
    int p, src;
} nt_mpi_dim;

// The indices 0..count-1 of the submatrix held by process ks (of s) and process kt (of t), as
// pieces in increasing order, adjacent pieces merged. From the closed-form runs of
// nt_cyclic_intersect(); *out is empty (v NULL) when nothing crosses.
nt_status nt_mpi_dim_pieces(int64_t count, const nt_mpi_dim *s, int ks, const nt_mpi_dim *t,
                            int kt, nt_mpi_pieces *out);

// The elements of one message in a local array of leading dimension ld (elements of es bytes):
// the rows of rp and the columns of cp, at their source (src) or target offsets, in the
// message's order (columns of cp in order, in each the rows of rp in order), as one committed
// datatype for a count of 1 at the array's start. NT_ERANGE or NT_ENOMEM (message set) when
// MPI cannot describe it; *out is then MPI_DATATYPE_NULL.
nt_status nt_mpi_piece_type(const nt_mpi_pieces *rp, const nt_mpi_pieces *cp, bool src,
                            int64_t ld, size_t es, MPI_Datatype *out);

// The average length in bytes of the runs of p on its source (src) or target side, pieces
// adjacent on that side merged; 0 when p is empty (or out of memory). *regular: the runs are
// equal and equally spaced (nt_mpi_piece_type makes a vector of them, else an index list).
int64_t nt_mpi_run_bytes(const nt_mpi_pieces *p, bool src, size_t es, bool *regular);

// How many of the indices 0..count-1 process ks (of s) sends to process kt (of t).
nt_status nt_mpi_dim_count(int64_t count, const nt_mpi_dim *s, int ks, const nt_mpi_dim *t,
                           int kt, int64_t *total);

// The row pieces of the messages of one column group (the messages to every process row of
// one target process column, or from every source process row of one source process column)
// for one call, merged in the order of the source rows (a pack) or of the target rows (an
// unpack), so that each column is read or written once, in order. Piece e of the group's column
// c is at msg + c * stride of its packed message, or (msg NULL: this rank's own part) at rows
// s.. of A's column.
typedef struct nt_mpi_step {
    const char *msg;
    int64_t stride; // bytes
    int64_t s, d, len;
    int list; // its list (rows[list])
} nt_mpi_step;
// Steps of one list that are equally long and equally spaced on both sides, for copies without
// line writers (groups.c): step k of the group copies len elements between rows s + k * ss of
// A's column (or msg + k * mstep bytes of the message's column) and rows d + k * ds of B's.
typedef struct nt_mpi_group {
    const char *msg; // the first step's, NULL: A's own part
    int64_t stride;  // bytes between the message's columns
    int64_t mstep;   // bytes between the steps in the message
    int64_t s, ss, d, ds, len, count;
} nt_mpi_group;
typedef struct nt_mpi_steps {
    nt_mpi_step *v;
    int64_t n;
    int64_t elems;  // indices in all steps
    int nl;         // lists (nr)
    int64_t *first; // [nl]: the first step of each list, -1 when it has none
    bool contig;    // by_target: each step's target rows follow the previous step's
    nt_mpi_group *g; // the steps as groups (nt_mpi_steps_group), or NULL
    int64_t ng;
} nt_mpi_steps;

// Group the steps of st (nt_mpi_steps_make, elements of es bytes) for nt_mpi_pack_group and
// nt_mpi_unpack_group, which read the groups (the op walks read the steps alone, so their
// callers leave them ungrouped): per list, in st's order, runs of steps with equal lengths and
// equal spacing. Kept (st->g) only when the groups hold
// at least NT_MPI_GROUP_MIN steps on average: they pay for the short steps of small blocks,
// where a copy loop per step costs more than the copy; and, with several messages, only while
// a column's part (elems * es bytes) stays within NT_MPI_GROUP_COLUMN, as the groups read or
// write it once per message. No memory: st stays without groups.
// Groups are also preferred to line writers while the steps average fewer than
// NT_MPI_GROUP_RUN elements (measured on 4 ranks, 2x2 -> 4x1: 1.2-3x faster for blocks of
// 1-16 doubles, 1.1-1.2x at 32, 0.86-0.96x at 64).
enum { NT_MPI_GROUP_MIN = 4, NT_MPI_GROUP_RUN = 64, NT_MPI_GROUP_COLUMN = 256 << 10 };
void nt_mpi_steps_group(nt_mpi_steps *st, size_t es);

// Column c of st's groups: nt_mpi_groups_pack copies from A's column scol into the messages,
// nt_mpi_groups_unpack into B's column dcol from the messages (or scol, A's own part).
void nt_mpi_groups_pack(const nt_mpi_steps *st, const char *scol, int64_t c, size_t es);
void nt_mpi_groups_unpack(const nt_mpi_steps *st, char *dcol, const char *scol, int64_t c,
                          size_t es);

// The steps of rows[0..nr-1] (nt_mpi_dim_pieces lists, one per process row of the other grid),
// sorted by target rows when by_target: msg[k] is the packed message of list k (NULL: none,
// its pieces left out), list `local` (-1: none) is this rank's own part. NT_ENOMEM (message
// set) when out of memory. Free with nt_mpi_steps_free.
nt_status nt_mpi_steps_make(const nt_mpi_pieces *rows, int nr, bool by_target,
                            const char *const *msg, int local, size_t es, nt_mpi_steps *out);
void nt_mpi_steps_free(nt_mpi_steps *s);

// Pack a column group's messages (steps without a local part) from A with `threads` threads,
// column by column (cp: the group's column pieces): each column of A is read once, in order.
// lines: write the messages through line writers (see nt_mpi_lines_wanted); used only when
// es is 8 and the steps are long enough on average, else ordinary copies.
void nt_mpi_pack_group(const nt_mpi_steps *st, const nt_mpi_pieces *cp, const char *a,
                       int64_t lda, size_t es, int threads, bool lines);

// Unpack a column group's messages and local part into B's local columns [d0, d1): each column
// of B is written once, in row order. Cannot fail (the steps are made beforehand). lines: as
// for the pack (B must then be 8-byte aligned), and only when the steps are contiguous.
void nt_mpi_unpack_group(const nt_mpi_steps *st, const nt_mpi_pieces *cp, const char *a,
                         int64_t lda, char *b, int64_t ldb, size_t es, int64_t d0, int64_t d1,
                         int threads, bool lines);

// Whether a call moving `bytes` through this node's memory writes its messages and its target
// through line writers (streaming stores of whole 64-byte lines, nt_lines.h): when the bytes
// cannot stay in the caches (>= NT_MPI_LINES_MIN), or always (1) / never (0) as
// NT_MPI_LINES says (for tests and measurements).
#define NT_MPI_LINES_MIN ((int64_t)32 << 20)
bool nt_mpi_lines_wanted(int64_t bytes);

// What a call does to each element of the submatrix (nt_ptran, nt_ptrmr2d; op.c): B = beta*B +
// alpha*op(A), op(A) = A, A^T or conj(A)^T, restricted to a band of B's submatrix. A plain
// copy is no op at all (NULL): the copy's own walks run it.
typedef struct nt_mpi_op {
    bool trans;     // B's submatrix is A's transposed: A' = A^T feeds the engine
    bool conj;      // conjugate A's elements (complex types)
    char type;      // 0: raw bytes of elem_size (no arithmetic), 's', 'd', 'c' or 'z'
    bool scale;     // alpha and beta apply (typed only); else B = op(A)
    double alpha[2], beta[2]; // real, imaginary parts
    bool band;      // only elements (i, j) of B's submatrix with lo <= i - j <= hi
    int64_t lo, hi;
} nt_mpi_op;

// nt_mpi_redist with an operation (NULL: the copy). ia, ja are A's own corner; with op->trans
// A's submatrix is cols x rows. Validates op's type against elem_size.
nt_status nt_mpi_redist_op(MPI_Comm comm, int64_t rows, int64_t cols, size_t elem_size,
                           const void *a, int64_t lda, int64_t ia, int64_t ja,
                           const nt_mpi_grid_t *ga, void *b, int64_t ldb, int64_t ib,
                           int64_t jb, const nt_mpi_grid_t *gb, const nt_mpi_opts_t *opts,
                           const nt_mpi_op *op, nt_mpi_stats_t *stats);

// The executor (redist.c): nt_mpi_redist with op (NULL: the copy), ga being A' = A^T and
// (ia, ja) its corner when op->trans; op checked by nt_mpi_redist_op.
nt_status nt_mpi_redist_engine(MPI_Comm comm, int64_t rows, int64_t cols, size_t elem_size,
                               const void *a, int64_t lda, int64_t ia, int64_t ja,
                               const nt_mpi_grid_t *ga, void *b, int64_t ldb, int64_t ib,
                               int64_t jb, const nt_mpi_grid_t *gb, const nt_mpi_opts_t *opts,
                               const nt_mpi_op *op, nt_mpi_stats_t *stats);

// nt_pgemr2d with an operation (blacs.c): the descriptors turned into grids, then
// nt_mpi_redist_op.
nt_status nt_mpi_pgemr2d_op(size_t elem_size, int m, int n, const void *a, int ia, int ja,
                            const int *desca, void *b, int ib, int jb, const int *descb,
                            int ictxt, const nt_mpi_op *op, nt_mpi_stats_t *stats);

// Where B's local rows and columns sit in its submatrix, for an op's band (op_walk.c): this
// process's offset (its distance from the source process) in each dimension.
typedef struct nt_mpi_clip {
    int64_t mb, nb, ib, jb, lo, hi;
    int p, q, rsrc, csrc;
    int kr, kc; // this process's row and column distance from rsrc, csrc (as B)
} nt_mpi_clip;

// Pack a column group's messages from A' = A^T: element (r, c) of A' is A's local (c, r), at
// a + (c + r * lda) * es. Blocks of consecutive columns of A' (rows of A) are read together.
// lines: whole lines of the messages go out with streaming stores (see nt_mpi_lines_wanted).
void nt_mpi_pack_group_t(const nt_mpi_steps *st, const nt_mpi_pieces *cp, const char *a,
                         int64_t lda, size_t es, int threads, bool lines);

// Index in B's submatrix of local index l of a dimension: block b, p processes, this process
// kp away from the first block's, the submatrix from global index off.
static inline int64_t nt_mpi_sub_index(int64_t l, int64_t b, int p, int kp, int64_t off)
{
    return ((l / b) * p + kp) * b + l % b - off;
}

// Bands (op_band.c). The part [*k0, *k1) of a run of len rows d.. of B's column j (submatrix
// index) that the band keeps, the rows on the process kr rows away from B's rsrc.
void nt_mpi_band_part(const nt_mpi_clip *cl, int kr, int64_t d, int64_t len, int64_t j,
                      int64_t *k0, int64_t *k1);

// The submatrix row index of every step's first and last row (2 per step; pack: the steps'
// lists are B's process rows, else this rank's), or NULL without memory. Free with free().
int64_t *nt_mpi_band_index(const nt_mpi_steps *st, const nt_mpi_clip *cl, bool pack);

// The steps [*e0, *e1) of column j that the band touches (lim from nt_mpi_band_index).
void nt_mpi_band_steps(const int64_t *lim, int64_t n, int64_t j, const nt_mpi_clip *cl,
                       int64_t *e0, int64_t *e1);

// Pack a column group's messages to B's process column tc with op->band: only the elements
// the band keeps at each receiver are written (the others' places stay unwritten; the unpack
// skips them); lines: 8-byte elements through line writers, as nt_mpi_pack_group.
void nt_mpi_pack_group_band(const nt_mpi_steps *st, const nt_mpi_pieces *cp, const char *a,
                            int64_t lda, size_t es, int threads, const nt_mpi_clip *cl, int tc,
                            bool lines);

// Unpack a column group into B's local columns [d0, d1) applying op (clip: where B's elements
// sit, for op->band). The local part reads A' at a + (r * ars + c * acs) * es. lines: a plain
// band of 8-byte elements (B 8-byte aligned) writes whole lines with streaming stores, and so
// do a transposition's local part and message runs (8- and 16-byte elements, no scaling).
void nt_mpi_unpack_group_op(const nt_mpi_steps *st, const nt_mpi_pieces *cp, const char *a,
                            int64_t ars, int64_t acs, char *b, int64_t ldb, size_t es,
                            int64_t d0, int64_t d1, int threads, const nt_mpi_op *op,
                            const nt_mpi_clip *clip, bool lines);

// Columns of a column group by their flat index c (0..cp->sum-1, increasing): a cursor over the
// group's column pieces gives each one's local column on both sides (walk.c, op_walk.c).
typedef struct nt_mpi_cursor {
    const nt_mpi_pieces *cp;
    int64_t k, base; // the piece holding the current column, flat index of its first column
} nt_mpi_cursor;

// The calling OpenMP thread's share [*c0, *c1) of the group's columns, a cursor at its first.
static inline nt_mpi_cursor nt_mpi_thread_share(const nt_mpi_pieces *cp, int64_t *c0,
                                                int64_t *c1)
{
    int nth = omp_get_num_threads(), t = omp_get_thread_num();
    *c0 = cp->sum * t / nth;
    *c1 = cp->sum * (t + 1) / nth;
    nt_mpi_cursor u = {cp, 0, 0};
    while (u.k < cp->n && u.base + cp->v[u.k].len <= *c0)
        u.base += cp->v[u.k++].len;
    return u;
}

// Column c (at or after the cursor's): its local column on both sides.
static inline void nt_mpi_cursor_col(nt_mpi_cursor *u, int64_t c, int64_t *sj, int64_t *dj)
{
    if (c - u->base >= u->cp->v[u->k].len)
        u->base += u->cp->v[u->k++].len;
    *sj = u->cp->v[u->k].s + (c - u->base);
    *dj = u->cp->v[u->k].d + (c - u->base);
}

// Local index of global index g in a dimension of block size b over p processes.
static inline int64_t nt_mpi_local(int64_t g, int64_t b, int p)
{
    return (g / b / p) * b + g % b;
}

#endif
