// The distributed executor: one packed message per pair of ranks, nonblocking point-to-point,
// an agreement before the target is written (see numatile/mpi.h).
#include <limits.h>
#include <omp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <numatile/sched.h>

#include "nt_mpi_int.h"

enum { TAG = 0x4e54 };
// Messages above this many bytes go in several parts (MPI counts are int).
static const int64_t CHUNK = (int64_t)1 << 30;

int64_t nt_mpi_numroc(int64_t n, int64_t nb, int iproc, int isrc, int nprocs)
{
    if (n < 0 || nb < 1 || nprocs < 1 || iproc < 0 || iproc >= nprocs || isrc < 0 ||
        isrc >= nprocs)
        return -1;
    int64_t blocks = n / nb, mydist = ((int64_t)iproc - isrc + nprocs) % nprocs;
    int64_t num = blocks / nprocs * nb, extra = blocks % nprocs;
    if (mydist < extra)
        num += nb;
    else if (mydist == extra)
        num += n % nb;
    return num;
}

// One side of a grid as this rank sees it.
typedef struct side {
    const nt_mpi_grid_t *g;
    int cell;       // this rank's cell, -1 outside the grid
    int prow, pcol; // its coordinates
    int64_t lrows;  // local rows here
    int *rank_cell; // rank -> cell, -1 (comm size entries)
} side;

static nt_status check_grid(const char *name, const nt_mpi_grid_t *g, int size, side *sd,
                            int me)
{
    if (!g)
        return nt_mpi_fail(NT_EINVAL, "%s: NULL grid", name);
    if (g->m < 0 || g->n < 0 || g->mb < 1 || g->nb < 1 || g->nprow < 1 || g->npcol < 1)
        return nt_mpi_fail(NT_EINVAL, "%s: sizes m = %lld, n = %lld, mb = %lld, nb = %lld, grid "
                           "%d x %d (need m, n >= 0, mb, nb, grid >= 1)", name, (long long)g->m,
                           (long long)g->n, (long long)g->mb, (long long)g->nb, g->nprow,
                           g->npcol);
    if ((int64_t)g->nprow * g->npcol > size)
        return nt_mpi_fail(NT_EINVAL, "%s: grid %d x %d larger than the %d ranks", name,
                           g->nprow, g->npcol, size);
    if (g->rsrc < 0 || g->rsrc >= g->nprow || g->csrc < 0 || g->csrc >= g->npcol)
        return nt_mpi_fail(NT_EINVAL, "%s: rsrc = %d, csrc = %d outside the %d x %d grid", name,
                           g->rsrc, g->csrc, g->nprow, g->npcol);
    sd->g = g;
    sd->cell = -1;
    for (int r = 0; r < size; r++)
        sd->rank_cell[r] = -1;
    int cells = g->nprow * g->npcol;
    for (int c = 0; c < cells; c++) {
        int r = g->ranks ? g->ranks[c] : c;
        if (r < 0 || r >= size || sd->rank_cell[r] >= 0)
            return nt_mpi_fail(NT_EINVAL, "%s: ranks[%d] = %d is not a distinct rank of the "
                               "communicator", name, c, r);
        sd->rank_cell[r] = c;
    }
    sd->cell = sd->rank_cell[me];
    sd->prow = sd->cell >= 0 ? sd->cell / g->npcol : -1;
    sd->pcol = sd->cell >= 0 ? sd->cell % g->npcol : -1;
    sd->lrows = sd->cell >= 0 ? nt_mpi_numroc(g->m, g->mb, sd->prow, g->rsrc, g->nprow) : 0;
    return NT_OK;
}

// trans: the side is A' = A^T, whose local columns are the rows of the caller's local array.
static nt_status check_local(const char *name, const side *sd, const void *p, int64_t ld,
                             bool nonempty, bool trans)
{
    if (sd->cell < 0 || !nonempty)
        return NT_OK;
    int64_t lcols = nt_mpi_numroc(sd->g->n, sd->g->nb, sd->pcol, sd->g->csrc, sd->g->npcol);
    int64_t lrows = trans ? lcols : sd->lrows;
    if (!p && sd->lrows > 0 && lcols > 0)
        return nt_mpi_fail(NT_EINVAL, "%s: NULL local array on a rank of its grid", name);
    if (ld < (lrows > 1 ? lrows : 1))
        return nt_mpi_fail(NT_EINVAL, "%s: leading dimension %lld < local rows %lld", name,
                           (long long)ld, (long long)lrows);
    return NT_OK;
}

static nt_status check_args(int64_t rows, int64_t cols, size_t es, int64_t ia, int64_t ja,
                            const side *a, int64_t ib, int64_t jb, const side *b)
{
    if (rows < 0 || cols < 0)
        return nt_mpi_fail(NT_EINVAL, "rows = %lld, cols = %lld must be >= 0", (long long)rows,
                           (long long)cols);
    if (es < 1 || es > (size_t)INT32_MAX)
        return nt_mpi_fail(NT_EINVAL, "elem_size = %zu out of range", es);
    if (rows == 0 || cols == 0)
        return NT_OK;
    if (ia < 0 || ja < 0 || ia > a->g->m - rows || ja > a->g->n - cols)
        return nt_mpi_fail(NT_EINVAL, "submatrix %lld x %lld at (ia, ja) = (%lld, %lld) outside "
                           "A (%lld x %lld)", (long long)rows, (long long)cols, (long long)ia,
                           (long long)ja, (long long)a->g->m, (long long)a->g->n);
    if (ib < 0 || jb < 0 || ib > b->g->m - rows || jb > b->g->n - cols)
        return nt_mpi_fail(NT_EINVAL, "submatrix %lld x %lld at (ib, jb) = (%lld, %lld) outside "
                           "B (%lld x %lld)", (long long)rows, (long long)cols, (long long)ib,
                           (long long)jb, (long long)b->g->m, (long long)b->g->n);
    return NT_OK;
}

// The pieces of one rank in both dimensions, toward (as source) or from (as target) every
// process row and column of the other grid.
typedef struct pairs {
    nt_mpi_pieces *rows, *cols; // [other grid's nprow], [other grid's npcol]
    int nr, nc;
} pairs;

static void free_pairs(pairs *p)
{
    for (int i = 0; p->rows && i < p->nr; i++)
        free(p->rows[i].v);
    for (int i = 0; p->cols && i < p->nc; i++)
        free(p->cols[i].v);
    free(p->rows);
    free(p->cols);
    *p = (pairs){0};
}

// as_source: this rank is (prow, pcol) of `mine`, the pieces go to every process of `other`;
// else the other way round. s/t dims are always source then target.
static nt_status make_pairs(int64_t rows, int64_t cols, const nt_mpi_dim ds[2],
                            const nt_mpi_dim dt[2], bool as_source, int prow, int pcol,
                            pairs *out)
{
    const nt_mpi_dim *other = as_source ? dt : ds;
    *out = (pairs){calloc((size_t)other[0].p, sizeof(nt_mpi_pieces)),
                   calloc((size_t)other[1].p, sizeof(nt_mpi_pieces)), other[0].p, other[1].p};
    if (!out->rows || !out->cols) {
        free_pairs(out);
        return nt_mpi_fail(NT_ENOMEM, "out of memory for the pieces");
    }
    nt_status st = NT_OK;
    for (int k = 0; k < out->nr && !st; k++)
        st = as_source ? nt_mpi_dim_pieces(rows, &ds[0], prow, &dt[0], k, &out->rows[k])
                       : nt_mpi_dim_pieces(rows, &ds[0], k, &dt[0], prow, &out->rows[k]);
    for (int k = 0; k < out->nc && !st; k++)
        st = as_source ? nt_mpi_dim_pieces(cols, &ds[1], pcol, &dt[1], k, &out->cols[k])
                       : nt_mpi_dim_pieces(cols, &ds[1], k, &dt[1], pcol, &out->cols[k]);
    if (st)
        free_pairs(out);
    return st;
}

int nt_mpi_injected_rank(void)
{
    const char *e = getenv("NT_MPI_FAIL_RANK");
    if (!e || !*e)
        return -1;
    char *end;
    long r = strtol(e, &end, 10);
    return *end || r < 0 || r > INT_MAX ? -1 : (int)r;
}

// One message: peer rank, bytes, offset in the send buffer (outgoing) or in the receive
// segment (incoming; for a direct outgoing message, in the receiver's segment), the pieces.
// direct: the peer shares memory with this rank, the sender packs into the receiver's window.
typedef struct msg {
    int rank, cell; // the peer and its cell in the other grid (B's for outgoing, A's incoming)
    int64_t bytes, off;
    bool direct;
    const nt_mpi_pieces *rp, *cp;
    // MPI_DATATYPE_NULL: packed (sent from the send buffer, received into the receive
    // segment); else the message's elements in A (outgoing) or in B (incoming), which MPI's
    // transport copies itself (nt_mpi_piece_type)
    MPI_Datatype type;
} msg;

typedef struct run {
    nt_mpi_ctx *ctx;
    MPI_Comm comm;
    int me, size, threads;
    size_t es;
    side a, b;
    pairs src, dst; // as source (to every target process), as target (from every source)
    msg *out, *in;
    int nout, nin;
    int64_t rbytes;   // bytes this rank receives
    char *sbuf, *rbase; // pack buffer of the point-to-point messages; receive segment
    int64_t *rowtot, *coltot; // elements from every source process row/column to every target
                              // one (pA x pB, qA x qB), for the offsets of direct messages
    MPI_Request *req;
    int nreq;
    char **ptab;                // where the message to B's cell (r, c) is packed, at [c*nprow+r]
    const char **utab;          // the message from A's cell (r, c), at [c*nprow+r] (NULL: none)
    nt_mpi_steps *usteps;       // the unpack of each process column of A, made before B is
                                // written (the unpack cannot fail)
    bool shm;              // this call packs into shared windows (ctx->shm, not steps)
    bool lines;            // writes through line writers (nt_mpi_lines_wanted)
    bool steps;            // one-port phases
    const nt_mpi_op *op;   // NULL: the copy; else what the unpack does (A given as A^T when
                           // op->trans)
    nt_mpi_clip clip;      // where B's local elements sit, for op->band
    bool a2a;              // one MPI_Alltoallv
    nt_schedule_t *sched;  // the phases (steps)
    int64_t lda, ldb;      // the call's leading dimensions (the datatypes over A and B)
    bool into_b;           // messages may arrive straight into B (the same on every rank)
    int types;             // messages through datatypes: 0 none, 1 with ranks of this node,
                           // 2 every peer (ctx->datatypes; 0 for steps, alltoallv, ops, topo)
} run;

static int64_t parts(int64_t bytes)
{
    return (bytes + CHUNK - 1) / CHUNK;
}

static int rank_of(const nt_mpi_grid_t *g, int cell)
{
    return g->ranks ? g->ranks[cell] : cell;
}

// Where the receiver (cell d of B, rank dest) expects this rank's message: after the messages
// of the source cells before this rank's, in cell order, its own excluded (it copies those).
static int64_t direct_offset(const run *r, int d, int dest)
{
    const nt_mpi_grid_t *ga = r->a.g, *gb = r->b.g;
    int64_t off = 0;
    for (int c = 0; c < r->a.cell; c++)
        if (rank_of(ga, c) != dest)
            off += r->rowtot[(c / ga->npcol) * gb->nprow + d / gb->npcol] *
                   r->coltot[(c % ga->npcol) * gb->npcol + d % gb->npcol] * (int64_t)r->es;
    return off;
}

static bool shares_memory(const run *r, int rank)
{
    return r->shm && r->ctx->node_rank[rank] >= 0;
}

// When a message goes typed. MPI's convertor copies message by message, run by run (an index
// list's runs slower than a vector's), where our walks read each column of A once and write each
// column of B once, whatever the messages: where B's rows come from several messages in short
// runs, typed receives write each of B's lines in parts, once per message. And only a message
// typed on both sides saves a copy (a typed send into a packed receive is copied into MPI's
// buffers, out into the receive segment, then unpacked: three copies, as packed). So the
// receiver takes a datatype when B's runs are long, the sender when A's runs are long too.
// Both see the same pieces, so each knows what the other does. One run each (load 3-5,
// docs/benchmarks.md): typed sends of 64-byte runs with B's 32- and 64-byte runs interleaved
// between two messages (nb 8 -> 12, 2x2 -> 4x1) 1.1-1.3x slower than packed; typed both ways,
// 64-byte runs in A and whole columns in B (nb 8) 1.2-1.6x faster; 8-byte runs in A packed
// into typed receives of whole columns (nb 1) 1.1-1.3x faster; 8-byte runs typed both ways
// (nb 1 -> 2, 2x2) 1.2x slower.
enum { TYPED_SEND_RUN = 64, TYPED_LIST_RUN = 256, TYPED_RECV_RUN = 256 };

static bool runs_long(const run *r, const nt_mpi_pieces *rp, bool src)
{
    bool regular;
    int64_t len = nt_mpi_run_bytes(rp, src, r->es, &regular);
    return len >= (!regular ? TYPED_LIST_RUN : src ? TYPED_SEND_RUN : TYPED_RECV_RUN);
}

// Whether a point-to-point message to (send) or from peer goes through a datatype over A or B:
// on one node without the window, MPI's shared-memory transport copies every byte into its
// buffers and out again, so those copies can be the pack and the unpack (docs/benchmarks.md,
// "point to point through datatypes"); between nodes the packed message travels by the
// network's own copy (RDMA) and is packed by this rank's threads rather than by MPI's one
// convertor (not measured: one machine here). Only below CHUNK, where a packed message is one
// send too (a packed send matches a typed receive of the same bytes).
static bool typed(const run *r, int peer, int64_t bytes, const nt_mpi_pieces *rp, bool send)
{
    if (!r->types || bytes > CHUNK ||
        !(r->types == 2 || (r->ctx->node_rank && r->ctx->node_rank[peer] >= 0)))
        return false;
    return runs_long(r, rp, false) && (!send || runs_long(r, rp, true));
}

// The messages and the buffers; every size checked for overflow.
static nt_status plan_messages(run *r)
{
    const nt_mpi_grid_t *ga = r->a.g, *gb = r->b.g;
    r->out = calloc((size_t)r->size, sizeof *r->out);
    r->in = calloc((size_t)r->size, sizeof *r->in);
    if (!r->out || !r->in)
        return nt_mpi_fail(NT_ENOMEM, "out of memory for the message table");
    int64_t sbytes = 0, rbytes = 0, nreq = 0;
    for (int c = 0; r->a.cell >= 0 && c < gb->nprow * gb->npcol; c++) {
        int dest = rank_of(gb, c);
        const nt_mpi_pieces *rp = &r->src.rows[c / gb->npcol], *cp = &r->src.cols[c % gb->npcol];
        int64_t bytes;
        if (__builtin_mul_overflow(rp->sum, cp->sum, &bytes) ||
            __builtin_mul_overflow(bytes, (int64_t)r->es, &bytes))
            return nt_mpi_fail(NT_ERANGE, "message to rank %d overflows", dest);
        if (bytes == 0 || dest == r->me)
            continue;
        bool direct = shares_memory(r, dest);
        MPI_Datatype t = MPI_DATATYPE_NULL;
        if (!direct && typed(r, dest, bytes, rp, true)) {
            nt_status s = nt_mpi_piece_type(rp, cp, true, r->lda, r->es, &t);
            if (s)
                return s;
        }
        r->out[r->nout++] = (msg){dest, c, bytes, direct ? direct_offset(r, c, dest) : sbytes,
                                  direct, rp, cp, t};
        if (t != MPI_DATATYPE_NULL)
            nreq++;
        else if (!direct) {
            sbytes += bytes;
            nreq += parts(bytes);
        }
    }
    for (int c = 0; r->b.cell >= 0 && c < ga->nprow * ga->npcol; c++) {
        int from = rank_of(ga, c);
        const nt_mpi_pieces *rp = &r->dst.rows[c / ga->npcol], *cp = &r->dst.cols[c % ga->npcol];
        int64_t bytes;
        if (__builtin_mul_overflow(rp->sum, cp->sum, &bytes) ||
            __builtin_mul_overflow(bytes, (int64_t)r->es, &bytes) ||
            __builtin_add_overflow(rbytes, bytes, &r->rbytes))
            return nt_mpi_fail(NT_ERANGE, "message from rank %d overflows", from);
        if (bytes == 0 || from == r->me)
            continue;
        bool direct = shares_memory(r, from);
        MPI_Datatype t = MPI_DATATYPE_NULL;
        if (!direct && typed(r, from, bytes, rp, false)) {
            nt_status s = nt_mpi_piece_type(rp, cp, false, r->ldb, r->es, &t);
            if (s)
                return s;
        }
        r->in[r->nin++] = (msg){from, c, bytes, rbytes, direct, rp, cp, t};
        if (t != MPI_DATATYPE_NULL) {
            nreq++;
            continue;
        }
        rbytes += bytes;
        nreq += direct ? 0 : parts(bytes);
    }
    r->rbytes = rbytes;
    r->sbuf = nt_mpi_buffer(0, (size_t)sbytes);
    // Without shared memory the receive segment is a private buffer; with it, the window
    // (grown, if needed, once every rank agrees).
    r->rbase = r->shm ? NULL : nt_mpi_buffer(1, (size_t)rbytes);
    r->req = malloc((size_t)(nreq ? nreq : 1) * sizeof *r->req);
    r->ptab = calloc((size_t)gb->nprow * (size_t)gb->npcol, sizeof *r->ptab);
    r->utab = calloc((size_t)ga->nprow * (size_t)ga->npcol, sizeof *r->utab);
    if (!r->ptab || !r->utab)
        return nt_mpi_fail(NT_ENOMEM, "out of memory for the message tables");
    if (!r->sbuf || (!r->shm && !r->rbase) || !r->req)
        return nt_mpi_fail(NT_ENOMEM, "out of memory for %lld bytes of send and %lld of receive "
                           "buffers", (long long)sbytes, (long long)rbytes);
    return NT_OK;
}

static nt_status post(run *r, const msg *m, char *base, bool send)
{
    for (int64_t off = 0; off < m->bytes; off += CHUNK) {
        int count = (int)(m->bytes - off < CHUNK ? m->bytes - off : CHUNK);
        int tag = TAG + (int)(off / CHUNK);
        int rc = send ? MPI_Isend(base + m->off + off, count, MPI_BYTE, m->rank, tag, r->comm,
                                  &r->req[r->nreq])
                      : MPI_Irecv(base + m->off + off, count, MPI_BYTE, m->rank, tag, r->comm,
                                  &r->req[r->nreq]);
        if (rc != MPI_SUCCESS)
            return nt_mpi_fail(NT_ESYS, "MPI_%s %s rank %d failed", send ? "Isend" : "Irecv",
                               send ? "to" : "from", m->rank);
        r->nreq++;
    }
    return NT_OK;
}

// Pack every outgoing message, the messages to one process column of B together
// (nt_mpi_pack_group: A's columns read once each), each into the receiver's window when it
// shares memory with this rank, else into the send buffer. With send, a group's point-to-point
// messages are posted as soon as they are packed (the transport overlaps the next group).
static nt_status pack_all(run *r, const void *a, int64_t lda, bool send, nt_mpi_stats_t *st)
{
    const nt_mpi_grid_t *gb = r->b.g;
    nt_status s = NT_OK;
    if (r->a.cell < 0) // outside A's grid: nothing to send
        return NT_OK;
    for (int i = 0; i < r->nout && !s; i++) {
        const msg *m = &r->out[i];
        if (m->type != MPI_DATATYPE_NULL)
            continue;
        char *base = m->direct ? nt_mpi_window_of(r->ctx, m->rank) : r->sbuf;
        if (!base)
            s = nt_mpi_fail(NT_ESYS, "MPI_Win_shared_query of rank %d failed", m->rank);
        else
            r->ptab[(m->cell % gb->npcol) * gb->nprow + m->cell / gb->npcol] = base + m->off;
    }
    for (int tc = 0; tc < gb->npcol && !s; tc++) {
        if (r->src.cols[tc].sum == 0)
            continue;
        nt_mpi_steps ps;
        s = nt_mpi_steps_make(r->src.rows, r->src.nr, false,
                              (const char *const *)(r->ptab + tc * gb->nprow), -1, r->es, &ps);
        if (s)
            break;
        // No steps: every message of the group is typed, MPI reads A itself.
        if (ps.n > 0 && r->op && r->op->trans)
            nt_mpi_pack_group_t(&ps, &r->src.cols[tc], a, lda, r->es, r->threads, r->lines);
        else if (ps.n > 0 && r->op && r->op->band)
            nt_mpi_pack_group_band(&ps, &r->src.cols[tc], a, lda, r->es, r->threads, &r->clip,
                                   tc, r->lines);
        else if (ps.n > 0) {
            nt_mpi_steps_group(&ps, r->es);
            nt_mpi_pack_group(&ps, &r->src.cols[tc], a, lda, r->es, r->threads, r->lines);
        }
        nt_mpi_steps_free(&ps);
        for (int i = 0; i < r->nout && !s; i++) {
            const msg *m = &r->out[i];
            if (m->cell % gb->npcol != tc)
                continue;
            if (send && !m->direct && m->type == MPI_DATATYPE_NULL)
                s = post(r, m, r->sbuf, true);
            if (send)
                st->messages_sent += m->direct ? 1 : parts(m->bytes);
            st->bytes_sent += m->bytes;
            st->pieces += m->rp->n * m->cp->sum;
        }
    }
    return s;
}

// Receives posted first, then the messages packed (pack_all) and sent; all completed here.
static nt_status exchange(run *r, const void *a, int64_t lda, void *b, nt_mpi_stats_t *st)
{
    nt_status s = NT_OK;
    for (int i = 0; i < r->nin && !s; i++) {
        const msg *m = &r->in[i];
        if (m->type != MPI_DATATYPE_NULL) {
            if (MPI_Irecv(b, 1, m->type, m->rank, TAG, r->comm, &r->req[r->nreq]) !=
                MPI_SUCCESS)
                s = nt_mpi_fail(NT_ESYS, "MPI_Irecv from rank %d into B failed", m->rank);
            else
                r->nreq++;
        } else if (!m->direct)
            s = post(r, m, r->rbase, false);
    }
    // The typed sends first: MPI copies them while this rank packs the others.
    for (int i = 0; i < r->nout && !s; i++) {
        const msg *m = &r->out[i];
        if (m->type == MPI_DATATYPE_NULL)
            continue;
        if (MPI_Isend(a, 1, m->type, m->rank, TAG, r->comm, &r->req[r->nreq]) != MPI_SUCCESS)
            s = nt_mpi_fail(NT_ESYS, "MPI_Isend from A to rank %d failed", m->rank);
        else
            r->nreq++;
    }
    if (!s)
        s = pack_all(r, a, lda, true, st);
    // Requests already posted complete even after a failure, so nothing is left in flight.
    if (r->nreq && MPI_Waitall(r->nreq, r->req, MPI_STATUSES_IGNORE) != MPI_SUCCESS && !s)
        s = nt_mpi_fail(NT_ESYS, "MPI_Waitall failed");
    // Our stores into other ranks' windows become visible to them after the agreement.
    if (r->ctx->win != MPI_WIN_NULL)
        MPI_Win_sync(r->ctx->win);
    for (int i = 0; i < r->nin; i++)
        st->bytes_received += r->in[i].bytes;
    return s;
}

// The one-port schedule of the byte matrix between all ranks (the same on every rank: every
// rank computes the whole matrix from the pair totals).
static nt_status build_schedule(run *r)
{
    const nt_mpi_grid_t *ga = r->a.g, *gb = r->b.g;
    int64_t *q = calloc((size_t)r->size * (size_t)r->size, sizeof *q);
    if (!q)
        return nt_mpi_fail(NT_ENOMEM, "out of memory for the %d x %d transfer matrix", r->size,
                           r->size);
    for (int ca = 0; ca < ga->nprow * ga->npcol; ca++)
        for (int cb = 0; cb < gb->nprow * gb->npcol; cb++) {
            int i = rank_of(ga, ca), k = rank_of(gb, cb);
            if (i != k)
                q[(size_t)i * r->size + k] =
                    r->rowtot[(ca / ga->npcol) * gb->nprow + cb / gb->npcol] *
                    r->coltot[(ca % ga->npcol) * gb->npcol + cb % gb->npcol] * (int64_t)r->es;
        }
    nt_status s = nt_sched_build(q, r->size, &r->sched);
    free(q);
    return s ? nt_mpi_fail(s, "nt_sched_build: %s", nt_last_error()) : NT_OK;
}

// One part of a message in one phase: bytes [off, off + bytes) of it.
static nt_status post_part(run *r, char *base, int64_t bytes, int peer, bool send,
                           MPI_Request **req, int *nreq)
{
    for (int64_t o = 0; o < bytes; o += CHUNK) {
        int count = (int)(bytes - o < CHUNK ? bytes - o : CHUNK);
        int rc = send ? MPI_Isend(base + o, count, MPI_BYTE, peer, TAG, r->comm, *req + *nreq)
                      : MPI_Irecv(base + o, count, MPI_BYTE, peer, TAG, r->comm, *req + *nreq);
        if (rc != MPI_SUCCESS)
            return nt_mpi_fail(NT_ESYS, "MPI_%s %s rank %d failed", send ? "Isend" : "Irecv",
                               send ? "to" : "from", peer);
        (*nreq)++;
    }
    return NT_OK;
}

// Every message packed first; then phase by phase each rank sends its share of at most one
// message and receives its share of at most one (numatile/sched.h), the phase completed
// before the next starts (messages between two ranks keep their order, so one tag serves).
static nt_status exchange_steps(run *r, const void *a, int64_t lda, nt_mpi_stats_t *st)
{
    int64_t *sent = calloc((size_t)r->size, sizeof *sent), *got = calloc((size_t)r->size,
                                                                          sizeof *got);
    int *oi = malloc((size_t)r->size * sizeof *oi), *ii = malloc((size_t)r->size * sizeof *ii);
    if (!sent || !got || !oi || !ii) {
        free(sent), free(got), free(oi), free(ii);
        return nt_mpi_fail(NT_ENOMEM, "out of memory for the phase bookkeeping");
    }
    for (int k = 0; k < r->size; k++)
        oi[k] = ii[k] = -1;
    nt_status s = pack_all(r, a, lda, false, st);
    for (int i = 0; i < r->nout; i++)
        oi[r->out[i].rank] = i;
    for (int i = 0; i < r->nin; i++)
        ii[r->in[i].rank] = i;
    const nt_schedule_t *sc = r->sched;
    for (int t = 0; t < sc->nphases && !s; t++) {
        int64_t c = sc->count[t];
        int nreq = 0;
        for (int64_t x = sc->first[t]; x < sc->first[t + 1] && !s; x++) {
            int from = sc->src[x], to = sc->dst[x];
            if (from == r->me && oi[to] >= 0) {
                const msg *m = &r->out[oi[to]];
                s = post_part(r, r->sbuf + m->off + sent[to], c, to, true, &r->req, &nreq);
                sent[to] += c;
                st->messages_sent += parts(c);
            } else if (to == r->me && ii[from] >= 0) {
                const msg *m = &r->in[ii[from]];
                s = post_part(r, r->rbase + m->off + got[from], c, from, false, &r->req, &nreq);
                got[from] += c;
            }
        }
        if (nreq && MPI_Waitall(nreq, r->req, MPI_STATUSES_IGNORE) != MPI_SUCCESS && !s)
            s = nt_mpi_fail(NT_ESYS, "MPI_Waitall of phase %d failed", t);
    }
    // The phases must have carried every message exactly.
    for (int i = 0; i < r->nout && !s; i++)
        if (sent[r->out[i].rank] != r->out[i].bytes)
            s = nt_mpi_fail(NT_ESYS, "the schedule sent %lld of %lld bytes to rank %d",
                            (long long)sent[r->out[i].rank], (long long)r->out[i].bytes,
                            r->out[i].rank);
    for (int i = 0; i < r->nin && !s; i++) {
        if (got[r->in[i].rank] != r->in[i].bytes)
            s = nt_mpi_fail(NT_ESYS, "the schedule received %lld of %lld bytes from rank %d",
                            (long long)got[r->in[i].rank], (long long)r->in[i].bytes,
                            r->in[i].rank);
        st->bytes_received += r->in[i].bytes;
    }
    free(sent), free(got), free(oi), free(ii);
    return s;
}

// Every message packed into the send buffer, then one MPI_Alltoallv (collective: every rank of
// the communicator takes part, with zero counts when it has nothing).
static nt_status exchange_alltoallv(run *r, const void *a, int64_t lda, nt_mpi_stats_t *st)
{
    int *v = calloc(4 * (size_t)r->size, sizeof *v);
    if (!v)
        return nt_mpi_fail(NT_ENOMEM, "out of memory for the MPI_Alltoallv counts");
    int *sc = v, *sd = v + r->size, *rc = v + 2 * r->size, *rd = v + 3 * r->size;
    nt_status s = NT_OK;
    for (int i = 0; i < r->nout; i++) {
        const msg *m = &r->out[i];
        if (m->off + m->bytes > INT_MAX)
            s = nt_mpi_fail(NT_ERANGE, "MPI_Alltoallv: %lld bytes to send, above MPI's int "
                            "counts", (long long)(m->off + m->bytes));
        sc[m->rank] = (int)m->bytes;
        sd[m->rank] = (int)m->off;
        st->messages_sent++;
    }
    if (!s)
        s = pack_all(r, a, lda, false, st);
    for (int i = 0; i < r->nin; i++) {
        const msg *m = &r->in[i];
        if (m->off + m->bytes > INT_MAX)
            s = nt_mpi_fail(NT_ERANGE, "MPI_Alltoallv: %lld bytes to receive, above MPI's int "
                            "counts", (long long)(m->off + m->bytes));
        rc[m->rank] = (int)m->bytes;
        rd[m->rank] = (int)m->off;
        st->bytes_received += m->bytes;
    }
    // A size failure on one rank must not leave the others inside the collective.
    int bad = s != NT_OK;
    if (MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, r->comm) != MPI_SUCCESS && !s)
        s = nt_mpi_fail(NT_ESYS, "MPI_Allreduce before MPI_Alltoallv failed");
    if (!s && bad)
        s = nt_mpi_fail(NT_ERANGE, "MPI_Alltoallv: another rank's buffer is above MPI's int "
                        "counts");
    if (!s && MPI_Alltoallv(r->sbuf, sc, sd, MPI_BYTE, r->rbase, rc, rd, MPI_BYTE, r->comm) !=
                  MPI_SUCCESS)
        s = nt_mpi_fail(NT_ESYS, "MPI_Alltoallv failed");
    free(v);
    return s;
}

static void cleanup(run *r)
{
    for (int i = 0; i < r->nout; i++)
        if (r->out[i].type != MPI_DATATYPE_NULL)
            MPI_Type_free(&r->out[i].type);
    for (int i = 0; i < r->nin; i++)
        if (r->in[i].type != MPI_DATATYPE_NULL)
            MPI_Type_free(&r->in[i].type);
    free_pairs(&r->src);
    free_pairs(&r->dst);
    free(r->out);
    free(r->in);
    free(r->req);
    free(r->ptab);
    free(r->utab);
    for (int i = 0; r->usteps && i < r->a.g->npcol; i++)
        nt_mpi_steps_free(&r->usteps[i]);
    free(r->usteps);
    free(r->rowtot);
    free(r->coltot);
    nt_sched_destroy(r->sched);
    free(r->a.rank_cell);
    free(r->b.rank_cell);
}

// Elements between every pair of process rows and of process columns (direct_offset()).
static nt_status totals(run *r, int64_t rows, int64_t cols, const nt_mpi_dim *ds,
                        const nt_mpi_dim *dt)
{
    r->rowtot = malloc((size_t)ds[0].p * (size_t)dt[0].p * sizeof *r->rowtot);
    r->coltot = malloc((size_t)ds[1].p * (size_t)dt[1].p * sizeof *r->coltot);
    if (!r->rowtot || !r->coltot)
        return nt_mpi_fail(NT_ENOMEM, "out of memory for the pair totals");
    nt_status s = NT_OK;
    for (int i = 0; i < ds[0].p && !s; i++)
        for (int j = 0; j < dt[0].p && !s; j++)
            s = nt_mpi_dim_count(rows, &ds[0], i, &dt[0], j, &r->rowtot[i * dt[0].p + j]);
    for (int i = 0; i < ds[1].p && !s; i++)
        for (int j = 0; j < dt[1].p && !s; j++)
            s = nt_mpi_dim_count(cols, &ds[1], i, &dt[1], j, &r->coltot[i * dt[1].p + j]);
    return s;
}

// The bytes of the call that go through this node's memory, taking the ranks as equal: what
// decides whether they can stay in its caches.
static int64_t node_bytes(const run *r, int64_t rows, int64_t cols)
{
    int here = 1;
    if (r->ctx->node != MPI_COMM_NULL)
        MPI_Comm_size(r->ctx->node, &here);
    double b = (double)(rows > 0 ? rows : 0) * (double)(cols > 0 ? cols : 0) * (double)r->es;
    b = b / r->size * here;
    return b < (double)INT64_MAX / 2 ? (int64_t)b : INT64_MAX / 2;
}

// Arguments, pieces and buffers of this rank; the status is agreed on by the caller.
static nt_status prepare(run *r, int64_t rows, int64_t cols, const void *a, int64_t lda,
                         int64_t ia, int64_t ja, const nt_mpi_grid_t *ga, void *b, int64_t ldb,
                         int64_t ib, int64_t jb, const nt_mpi_grid_t *gb)
{
    r->a.rank_cell = malloc((size_t)r->size * sizeof(int));
    r->b.rank_cell = malloc((size_t)r->size * sizeof(int));
    if (!r->a.rank_cell || !r->b.rank_cell)
        return nt_mpi_fail(NT_ENOMEM, "out of memory for the rank tables");
    nt_status s = check_grid("A", ga, r->size, &r->a, r->me);
    if (!s)
        s = check_grid("B", gb, r->size, &r->b, r->me);
    if (!s)
        s = check_args(rows, cols, r->es, ia, ja, &r->a, ib, jb, &r->b);
    bool nonempty = rows > 0 && cols > 0;
    if (!s)
        s = check_local("A", &r->a, a, lda, nonempty, r->op && r->op->trans);
    if (!s)
        s = check_local("B", &r->b, b, ldb, nonempty, false);
    if (s || !nonempty)
        return s;
    nt_mpi_dim ds[2] = {{ga->mb, ia, ga->nprow, ga->rsrc}, {ga->nb, ja, ga->npcol, ga->csrc}};
    nt_mpi_dim dt[2] = {{gb->mb, ib, gb->nprow, gb->rsrc}, {gb->nb, jb, gb->npcol, gb->csrc}};
    if (r->a.cell >= 0)
        s = make_pairs(rows, cols, ds, dt, true, r->a.prow, r->a.pcol, &r->src);
    if (!s && r->b.cell >= 0)
        s = make_pairs(rows, cols, ds, dt, false, r->b.prow, r->b.pcol, &r->dst);
    if (!s && ((r->a.cell >= 0 && r->shm) || r->steps))
        s = totals(r, rows, cols, ds, dt);
    if (!s && r->steps)
        s = build_schedule(r);
    return s ? s : plan_messages(r);
}

// Write B's local columns [d0, d1) from every received message and from this rank's own part
// of A, the columns of one process column of A together (nt_mpi_unpack_group: each column of
// B written once, in row order).
// Whether process column sc of A unpacks as the copy does (nt_mpi_unpack_group): without an
// op, or a plain transposition's group without this rank's own part of A (its messages are
// packed in B's order).
static bool unpacks_as_copy(const run *r, int sc)
{
    if (!r->op)
        return true;
    bool plain = r->op->trans && !r->op->scale && !r->op->conj && !r->op->band;
    return plain && !(r->a.cell >= 0 && r->a.pcol == sc);
}

static void unpack_cols(const run *r, const void *a, int64_t lda, void *b, int64_t ldb,
                        int64_t d0, int64_t d1, int threads)
{
    bool tr = r->op && r->op->trans;
    for (int sc = 0; sc < r->a.g->npcol; sc++) {
        if (r->dst.cols[sc].sum > 0 && !unpacks_as_copy(r, sc))
            nt_mpi_unpack_group_op(&r->usteps[sc], &r->dst.cols[sc], a, tr ? lda : 1,
                                   tr ? 1 : lda, b, ldb, r->es, d0, d1, threads, r->op,
                                   &r->clip, r->lines && ((uintptr_t)b & 7) == 0);
        else if (r->dst.cols[sc].sum > 0)
            nt_mpi_unpack_group(&r->usteps[sc], &r->dst.cols[sc], a, lda, b, ldb, r->es, d0, d1,
                                threads, r->lines && ((uintptr_t)b & 7) == 0);
    }
}

// The unpack's steps of every process column of A, from the received messages' places.
static nt_status unpack_steps(run *r)
{
    const nt_mpi_grid_t *ga = r->a.g;
    if (r->b.cell < 0)
        return NT_OK;
    for (int i = 0; i < r->nin; i++) {
        const msg *m = &r->in[i];
        if (m->type != MPI_DATATYPE_NULL)
            continue;
        r->utab[(m->cell % ga->npcol) * ga->nprow + m->cell / ga->npcol] = r->rbase + m->off;
    }
    r->usteps = calloc((size_t)ga->npcol, sizeof *r->usteps);
    if (!r->usteps)
        return nt_mpi_fail(NT_ENOMEM, "out of memory for the unpack tables");
    nt_status s = NT_OK;
    for (int sc = 0; sc < ga->npcol && !s; sc++) {
        int local = r->a.cell >= 0 && r->a.pcol == sc ? r->a.prow : -1;
        s = nt_mpi_steps_make(r->dst.rows, r->dst.nr, true, r->utab + sc * ga->nprow, local,
                              r->es, &r->usteps[sc]);
        if (!s && unpacks_as_copy(r, sc)) // the op walks read the steps one by one
            nt_mpi_steps_group(&r->usteps[sc], r->es);
    }
    return s;
}

typedef struct bound_arg {
    const run *r;
    const void *a;
    int64_t lda;
    void *b;
    int64_t ldb;
    const nt_mpi_topo_t *topo;
    const nt_mpi_grid_t *gb;
    int64_t lcols; // this rank's local columns of B
} bound_arg;

// Domain d (-1: all of them, unbound) writes its columns of every received message and of the
// local copy.
static nt_status unpack_domain(int d, int thread, void *arg)
{
    (void)thread;
    const bound_arg *x = arg;
    const run *r = x->r;
    int64_t d0 = 0, d1 = x->lcols;
    if (d >= 0 && nt_mpi_topo_columns(x->topo, x->lcols, d, &d0, &d1) != NT_OK)
        return NT_EINVAL;
    unpack_cols(r, x->a, x->lda, x->b, x->ldb, d0, d1, 1);
    return NT_OK;
}

// The arguments of one nt_mpi_redist call, for its phases.
typedef struct call {
    int64_t rows, cols;
    const void *a;
    int64_t lda, ia, ja;
    const nt_mpi_grid_t *ga;
    void *b;
    int64_t ldb, ib, jb;
    const nt_mpi_grid_t *gb;
    const nt_mpi_opts_t *opts;
    const nt_mpi_op *op;
} call;

static bool has_elements(const call *c)
{
    return c->rows > 0 && c->cols > 0;
}

// The transport (opts: one-port steps, one MPI_Alltoallv, else point to point with shared
// windows within a node), the plan (prepare), and room in the shared window, which grows on
// every rank of a node once one of them needs more. The outcome is the same on every rank.
static nt_status setup(run *r, const call *c)
{
    const nt_mpi_opts_t *opts = c->opts;
    r->comm = r->ctx->comm;
    r->steps = opts && opts->steps;
    r->a2a = opts && opts->alltoallv && !r->steps;
    r->shm = r->ctx->shm && !r->steps && !r->a2a;
    r->types = c->op || r->steps || r->a2a || (opts && opts->topo) ? 0 : r->ctx->datatypes;
    r->lda = c->lda;
    r->ldb = c->ldb;
    r->into_b = r->types == 2 || (r->types == 1 && !r->shm);
    MPI_Comm_rank(r->comm, &r->me);
    MPI_Comm_size(r->comm, &r->size);
    r->lines = nt_mpi_lines_wanted(node_bytes(r, c->rows, c->cols));
    nt_status s = prepare(r, c->rows, c->cols, c->a, c->lda, c->ia, c->ja, c->ga, c->b, c->ldb,
                          c->ib, c->jb, c->gb);
    // Received straight into B, the messages leave no moment after the exchange when B is
    // still untouched: an injected failure comes before it.
    if (!s && has_elements(c) && r->into_b && nt_mpi_injected_rank() == r->me)
        s = nt_mpi_fail(NT_ESYS, "injected failure (NT_MPI_FAIL_RANK=%d)", r->me);
    int grow = !s && has_elements(c) && r->shm && (size_t)r->rbytes > r->ctx->cap;
    s = nt_mpi_agree(r->comm, s, r->me, &grow);
    if (!s && grow) {
        // Collective over each node: every rank takes part once any rank needs more.
        s = nt_mpi_window_grow(r->ctx, (size_t)r->rbytes);
        s = nt_mpi_agree(r->comm, s, r->me, NULL);
    }
    if (!s && r->shm)
        r->rbase = r->ctx->base;
    if (!s && r->op) {
        // Where B's elements sit: this rank's (the unpack) and every receiver's (the pack).
        const nt_mpi_grid_t *gb = c->gb;
        int kr = r->b.cell >= 0 ? (r->b.prow - gb->rsrc + gb->nprow) % gb->nprow : 0;
        int kc = r->b.cell >= 0 ? (r->b.pcol - gb->csrc + gb->npcol) % gb->npcol : 0;
        r->clip = (nt_mpi_clip){gb->mb, gb->nb, c->ib, c->jb, r->op->lo, r->op->hi,
                                gb->nprow, gb->npcol, gb->rsrc, gb->csrc, kr, kc};
    }
    return s;
}

// Every message sent and received through the chosen transport, and the unpack's steps made;
// the outcome agreed over the ranks, as nothing of B is written before every rank has
// everything.
static nt_status exchange_all(run *r, const call *c, nt_mpi_stats_t *st)
{
    nt_status s;
    if (r->steps)
        s = exchange_steps(r, c->a, c->lda, st);
    else if (r->a2a)
        s = exchange_alltoallv(r, c->a, c->lda, st);
    else
        s = exchange(r, c->a, c->lda, c->b, st);
    if (!s)
        s = unpack_steps(r);
    if (!s && !r->into_b && nt_mpi_injected_rank() == r->me)
        s = nt_mpi_fail(NT_ESYS, "injected failure (NT_MPI_FAIL_RANK=%d)", r->me);
    s = nt_mpi_agree(r->comm, s, r->me, NULL);
    // The other ranks' stores into this rank's window are visible from here on.
    if (r->ctx->win != MPI_WIN_NULL)
        MPI_Win_sync(r->ctx->win);
    return s;
}

// Each local domain of opts->topo has its thread write its columns of B. Binding cannot fail
// the call any more (the agreement is over), so a refused binding leaves the copy to this
// thread.
static void unpack_bound(const run *r, const call *c)
{
    bound_arg ba = {r, c->a, c->lda, c->b, c->ldb, c->opts->topo, r->b.g, 0};
    ba.lcols = nt_mpi_numroc(r->b.g->n, r->b.g->nb, r->b.pcol, r->b.g->csrc, r->b.g->npcol);
    const nt_topo_t *lt = nt_mpi_topo_local(c->opts->topo);
    if (nt_team_run(lt, 1, unpack_domain, &ba) != NT_OK) {
        unpack_domain(-1, 0, &ba);
        return;
    }
    // nt_team_run gives no thread to a domain without cpus: its columns here.
    for (int d = 0; d < nt_topo_ndomains(lt); d++) {
        nt_domain_info_t info;
        if (nt_topo_domain(lt, d, &info) == NT_OK && info.ncpus == 0)
            unpack_domain(d, 0, &ba);
    }
}

// B's local part written (this rank holds a cell of B), then the statistics of what it
// copied from its own part of A without a message.
static void unpack_all(const run *r, const call *c, nt_mpi_stats_t *st)
{
    if (c->opts && c->opts->topo)
        unpack_bound(r, c);
    else
        unpack_cols(r, c->a, c->lda, c->b, c->ldb, 0, INT64_MAX, r->threads);
    if (r->a.cell < 0)
        return;
    const nt_mpi_pieces *rp = &r->src.rows[r->b.prow], *cp = &r->src.cols[r->b.pcol];
    if (rp->sum > 0 && cp->sum > 0) {
        st->bytes_local = rp->sum * cp->sum * (int64_t)r->es;
        st->pieces += rp->n * cp->sum;
    }
}

// Pack and unpack threads when the caller gives none: OpenMP's count, but no more than this
// rank's share of the cpus when ranks of one node share them. Oversubscribed ranks (mpirun
// --oversubscribe, more ranks than cores) otherwise each run a team whose idle threads spin
// (libgomp's default wait policy) through the other ranks' time slices: 4 ranks on 2 cores ran
// the pdgemr2d tests in 23 s instead of 0.6 s. With one thread there is no team to spin.
int nt_mpi_default_threads(const nt_mpi_ctx *ctx)
{
    int threads = omp_get_max_threads(), ranks = ctx->node_ranks;
    int share = omp_get_num_procs() / (ranks > 0 ? ranks : 1);
    share = share > 0 ? share : 1;
    return threads < share ? threads : share;
}

nt_status nt_mpi_redist(MPI_Comm comm, int64_t rows, int64_t cols, size_t elem_size,
                        const void *a, int64_t lda, int64_t ia, int64_t ja,
                        const nt_mpi_grid_t *ga, void *b, int64_t ldb, int64_t ib, int64_t jb,
                        const nt_mpi_grid_t *gb, const nt_mpi_opts_t *opts,
                        nt_mpi_stats_t *stats)
{
    return nt_mpi_redist_engine(comm, rows, cols, elem_size, a, lda, ia, ja, ga, b, ldb, ib, jb,
                                gb, opts, NULL, stats);
}

nt_status nt_mpi_redist_engine(MPI_Comm comm, int64_t rows, int64_t cols, size_t elem_size,
                               const void *a, int64_t lda, int64_t ia, int64_t ja,
                               const nt_mpi_grid_t *ga, void *b, int64_t ldb, int64_t ib,
                               int64_t jb, const nt_mpi_grid_t *gb, const nt_mpi_opts_t *opts,
                               const nt_mpi_op *op, nt_mpi_stats_t *stats)
{
    double t0 = MPI_Wtime();
    nt_mpi_stats_t st = {0};
    if (comm == MPI_COMM_NULL)
        return nt_mpi_fail(NT_EINVAL, "comm: MPI_COMM_NULL");
    const call c = {rows, cols, a, lda, ia, ja, ga, b, ldb, ib, jb, gb, opts, op};
    run r = {.comm = MPI_COMM_NULL, .es = elem_size, .op = op};
    // A private communicator: our tags never meet the caller's messages, and MPI errors
    // come back as codes instead of aborting.
    nt_status s = nt_mpi_context(comm, &r.ctx);
    if (s)
        return s;
    r.threads = opts && opts->threads > 0 ? opts->threads : nt_mpi_default_threads(r.ctx);
    s = setup(&r, &c);
    double t1 = MPI_Wtime();
    if (!s && has_elements(&c))
        s = exchange_all(&r, &c, &st);
    double t2 = MPI_Wtime();
    if (!s && has_elements(&c) && r.b.cell >= 0)
        unpack_all(&r, &c, &st);
    double t3 = MPI_Wtime();
    cleanup(&r);
    st.seconds_plan = t1 - t0;
    st.seconds_exchange = t2 - t1;
    st.seconds_unpack = t3 - t2;
    st.seconds = MPI_Wtime() - t0;
    if (stats)
        *stats = st;
    return s;
}
