// nt_mpi_layout_redist: several redistributions between matrices of any tile maps in one
// exchange. Each rank lists the pieces it sends (from its source tiles) and receives (into its
// target tiles), both sorted in one message order (peer, transfer, source tile, target tile),
// so a message is packed and unpacked piece after piece with no header. One point-to-point
// message per pair of ranks (in parts above 1 GiB); what stays on a rank is copied straight
// from source to target, its sent and received lists pairing one to one in that order. The
// targets are written only after an agreement, so a failure anywhere writes nothing.
#include <inttypes.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "nt_mpi_layout.h"

static const int64_t PART = (int64_t)1 << 30;

typedef struct side {
    nt_lay_pieces p;
    int64_t *off;   // byte offset of each piece in its buffer (-1: this rank's own)
    int64_t *bytes; // per peer
    int64_t *first; // per peer: offset of its message in the buffer
    int64_t *own;   // the pieces that stay on this rank, in message order
    int64_t nown;
    int64_t total;  // bytes to or from other ranks
    int64_t self;   // bytes that stay
    char *buf;
} side;

static int64_t piece_bytes(const nt_lay_piece *p)
{
    return p->rows * p->cols * (int64_t)p->es;
}

// Offsets of the pieces in message order; this rank's own pieces stay out of the buffer.
static nt_status lay_out(side *s, int me, int size)
{
    s->off = malloc((size_t)(s->p.n > 0 ? s->p.n : 1) * sizeof *s->off);
    s->own = malloc((size_t)(s->p.n > 0 ? s->p.n : 1) * sizeof *s->own);
    s->bytes = calloc(2 * (size_t)size, sizeof *s->bytes);
    if (!s->off || !s->own || !s->bytes)
        return nt_mpi_fail(NT_ENOMEM, "nt_mpi_layout_redist: out of memory (rank %d)", me);
    s->first = s->bytes + size;
    for (int64_t k = 0; k < s->p.n; k++) {
        const nt_lay_piece *p = &s->p.v[k];
        int64_t b = piece_bytes(p);
        if (p->peer == me) {
            s->off[k] = -1;
            s->own[s->nown++] = k;
            s->self += b;
            continue;
        }
        if (s->bytes[p->peer] == 0)
            s->first[p->peer] = s->total;
        s->off[k] = s->total;
        s->bytes[p->peer] += b;
        s->total += b;
    }
    return NT_OK;
}

static void side_free(side *s)
{
    nt_lay_pieces_free(&s->p);
    free(s->off);
    free(s->own);
    free(s->bytes);
}

// Columns of a piece between a tile (at, ld) and a packed buffer (dense, rows per column).
static void copy_piece(const nt_lay_piece *p, char *buf, bool pack)
{
    size_t col = (size_t)p->rows * p->es, step = (size_t)p->ld * p->es;
    for (int64_t c = 0; c < p->cols; c++) {
        char *t = p->at + (size_t)c * step, *b = buf + (size_t)c * col;
        if (pack)
            memcpy(b, t, col);
        else
            memcpy(t, b, col);
    }
}

static void move_all(const side *s, bool pack, int threads)
{
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads)
    for (int64_t k = 0; k < s->p.n; k++)
        if (s->off[k] >= 0)
            copy_piece(&s->p.v[k], s->buf + s->off[k], pack);
}

// The pieces that stay: the k-th own piece sent is the k-th own piece received (same order).
static void copy_own(const side *snd, const side *rcv, int threads)
{
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads)
    for (int64_t k = 0; k < snd->nown; k++) {
        const nt_lay_piece *a = &snd->p.v[snd->own[k]], *b = &rcv->p.v[rcv->own[k]];
        for (int64_t c = 0; c < a->cols; c++)
            memcpy(b->at + c * b->ld * (int64_t)b->es, a->at + c * a->ld * (int64_t)a->es,
                   (size_t)(a->rows * (int64_t)a->es));
    }
}

// Both lists, their offsets and buffers (the buffers are the library's, kept between calls).
static nt_status prepare(int count, const nt_mpi_transfer_t *x, int me, int size, side *snd,
                         side *rcv)
{
    nt_status st;
    if ((st = nt_lay_pieces_make(count, x, me, size, true, &snd->p)) ||
        (st = nt_lay_pieces_make(count, x, me, size, false, &rcv->p)) ||
        (st = lay_out(snd, me, size)) || (st = lay_out(rcv, me, size)))
        return st;
    if (snd->self != rcv->self || snd->nown != rcv->nown)
        return nt_mpi_fail(NT_EINVAL, "nt_mpi_layout_redist: rank %d sends itself %" PRId64
                           " bytes but receives %" PRId64 " (the ranks describe different "
                           "matrices)", me, snd->self, rcv->self);
    snd->buf = nt_mpi_buffer(0, (size_t)snd->total);
    rcv->buf = nt_mpi_buffer(1, (size_t)rcv->total);
    if ((snd->total > 0 && !snd->buf) || (rcv->total > 0 && !rcv->buf))
        return nt_mpi_fail(NT_ENOMEM, "nt_mpi_layout_redist: out of memory for %" PRId64
                           " + %" PRId64 " bytes of messages (rank %d)", snd->total, rcv->total,
                           me);
    return NT_OK;
}

// One message per peer each way, in parts of at most PART bytes (MPI counts are int).
static nt_status exchange(MPI_Comm c, int size, const side *snd, const side *rcv,
                          nt_mpi_stats_t *stats)
{
    int64_t nreq = 0;
    for (int r = 0; r < size; r++)
        nreq += (snd->bytes[r] + PART - 1) / PART + (rcv->bytes[r] + PART - 1) / PART;
    MPI_Request *req = malloc((size_t)(nreq > 0 ? nreq : 1) * sizeof *req);
    if (!req)
        return nt_mpi_fail(NT_ENOMEM, "nt_mpi_layout_redist: out of memory");
    int64_t q = 0;
    int rc = MPI_SUCCESS;
    for (int r = 0; r < size && rc == MPI_SUCCESS; r++)
        for (int64_t o = 0; o < rcv->bytes[r] && rc == MPI_SUCCESS; o += PART) {
            int n = (int)(rcv->bytes[r] - o < PART ? rcv->bytes[r] - o : PART);
            rc = MPI_Irecv(rcv->buf + rcv->first[r] + o, n, MPI_BYTE, r, (int)(o / PART), c,
                           &req[q++]);
        }
    for (int r = 0; r < size && rc == MPI_SUCCESS; r++)
        for (int64_t o = 0; o < snd->bytes[r] && rc == MPI_SUCCESS; o += PART) {
            int n = (int)(snd->bytes[r] - o < PART ? snd->bytes[r] - o : PART);
            rc = MPI_Isend(snd->buf + snd->first[r] + o, n, MPI_BYTE, r, (int)(o / PART), c,
                           &req[q++]);
            stats->messages_sent++;
        }
    if (rc == MPI_SUCCESS)
        rc = MPI_Waitall((int)q, req, MPI_STATUSES_IGNORE);
    free(req);
    return rc == MPI_SUCCESS ? NT_OK
                             : nt_mpi_fail(NT_ESYS, "nt_mpi_layout_redist: an MPI message failed "
                                           "(the ranks may describe different matrices)");
}

nt_status nt_mpi_layout_redist(MPI_Comm comm, int count, const nt_mpi_transfer_t *xfer,
                               const nt_mpi_opts_t *opts, nt_mpi_stats_t *stats)
{
    double t0 = MPI_Wtime();
    nt_mpi_stats_t s = {0};
    nt_mpi_ctx *ctx;
    if (comm == MPI_COMM_NULL)
        return nt_mpi_fail(NT_EINVAL, "nt_mpi_layout_redist: comm is MPI_COMM_NULL");
    nt_status st = nt_mpi_context(comm, &ctx);
    if (st)
        return st;
    int me, size;
    MPI_Comm_rank(ctx->comm, &me);
    MPI_Comm_size(ctx->comm, &size);
    int threads = opts && opts->threads > 0 ? opts->threads : nt_mpi_default_threads(ctx);
    side snd = {0}, rcv = {0};
    int64_t *own;
    st = nt_lay_check(count, xfer, me, size, true, &own);
    bool checked = st == NT_OK;
    if (!st)
        st = prepare(count, xfer, me, size, &snd, &rcv);
    if ((st = nt_lay_agree(ctx->comm, st, checked, count, xfer, own, me)) == NT_OK) {
        double t1 = MPI_Wtime();
        s.seconds_plan = t1 - t0;
        move_all(&snd, true, threads);
        st = exchange(ctx->comm, size, &snd, &rcv, &s);
        if (!st && nt_mpi_injected_rank() == me)
            st = nt_mpi_fail(NT_ESYS, "nt_mpi_layout_redist: injected failure (rank %d)", me);
        st = nt_mpi_agree(ctx->comm, st, me, NULL);
        double t2 = MPI_Wtime();
        s.seconds_exchange = t2 - t1;
        if (!st) {
            move_all(&rcv, false, threads);
            copy_own(&snd, &rcv, threads);
        }
        s.seconds_unpack = MPI_Wtime() - t2;
    }
    s.bytes_sent = snd.total;
    s.bytes_received = rcv.total;
    s.bytes_local = snd.self;
    s.pieces = snd.p.n;
    side_free(&snd);
    side_free(&rcv);
    s.seconds = MPI_Wtime() - t0;
    if (stats)
        *stats = s;
    return st;
}
