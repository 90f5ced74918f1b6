/**
 * \file numatile/match.h
 * \brief Optimal relabelling: place the components of a target partition on the domains so that
 *        a redistribution from a given initial distribution is as cheap as possible.
 *
 * Input: the count matrix n (numatile/dist.h; n[i * p_tar + j] = weight of the items on
 * initial domain i in target component j). Component sizes C_j (column sums) and domain loads
 * R_i (row sums) are derived from it, since every item has both a domain and a component.
 *
 * Domains and rectangular cases: the source uses domains 0..p_ini-1, the machine has
 * p_dom >= max(p_ini, p_tar) domains (p_dom = 0 in the problem means max(p_ini, p_tar)), and
 * rows p_ini..p_dom-1 are empty. A labelling sigma places component j on domain sigma[j],
 * injectively. With p_tar < p_dom some domains receive no component: their initial items all
 * leave and they receive nothing. With p_ini > p_tar the same holds for the source domains left
 * without a component; with p_ini < p_tar the components placed on domains >= p_ini receive all
 * of their items.
 *
 * Objectives (all exact; the solvers pad the problem to p_dom x p_dom with empty components,
 * which changes no cost):
 * - CANONICAL: sigma[j] = j, for comparison.
 * - VOLUME: minimum volume sum_j (C_j - n[sigma_j][j]) (Hungarian / shortest augmenting paths
 *   with potentials, O(p_dom^3), exact int64 arithmetic).
 * - STEPS: minimum RedistSteps = max over domains k of max(sent_k, received_k). For a domain k
 *   holding component j, max(sent, received) = max(R_k, C_j) - n[k][j] =: w(k,j); for a domain
 *   holding no component it is R_k = w(k, empty). Hence RedistSteps equals the bottleneck
 *   (largest edge weight) of the padded perfect matching, in square and rectangular cases
 *   alike, and the bottleneck matching is exactly step-optimal (binary search over the
 *   distinct weights with Hopcroft-Karp, O(p^2.5 log p)). Among step-optimal labellings an
 *   arbitrary one is returned.
 * - LEX: minimum steps first, then minimum volume among the step-optimal labellings (the
 *   min-cost matching restricted to the edges with w <= the optimum; beyond the papers).
 * - DISTANCE: minimum distance-weighted volume sum_j sum_{i != sigma_j} n[i][j] *
 *   dist[i][sigma_j] (a min-cost matching with edge cost c(k,j) = sum_{i != k} n[i][j] *
 *   dist[i][k], O(p_ini * p_tar * p_dom) to build).
 *
 * Forbidden pairs: an optional mask allowed[k * p_tar + j] (k = domain in 0..p_dom-1,
 * j = component) restricts where each component may go; every objective optimises over the
 * labellings that respect it, and a mask that admits no injective labelling gives NT_EINVAL.
 *
 * Errors follow numatile/error.h.
 *
 * Threads: every function may be called from several threads at once (inputs read-only,
 * results in the caller's memory).
 */
#ifndef NUMATILE_MATCH_H
#define NUMATILE_MATCH_H

#include <stdint.h>

#include "numatile/dist.h"
#include "numatile/error.h"

/**
 * \brief Most domains (p_dom) a matching takes: its scratch is p_dom^2 int64 (2 GiB at the cap)
 *        and its time p_dom^3, so larger problems are refused at once (::NT_ERANGE).
 */
#define NT_MATCH_MAX_P 16384

#ifdef __cplusplus
extern "C" {
#endif

/** \brief What a relabelling minimises. */
typedef enum nt_match_objective {
    NT_MATCH_CANONICAL = 0, /**< identity sigma[j] = j (no optimisation) */
    NT_MATCH_VOLUME = 1,    /**< RedistVol */
    NT_MATCH_STEPS = 2,     /**< RedistSteps (one-port bound) */
    NT_MATCH_LEX = 3,       /**< RedistSteps, then RedistVol among the step-optimal */
    NT_MATCH_DISTANCE = 4   /**< distance-weighted volume (needs dist) */
} nt_match_objective;

/** \brief A relabelling problem. Zero-initialise, then set the fields. Pointers are borrowed. */
typedef struct nt_match_problem {
    int p_ini;                    /**< source domains (rows of counts), >= 1 */
    int p_tar;                    /**< target components (columns of counts), >= 1 */
    int p_dom;                    /**< machine domains, 0 = max(p_ini, p_tar), else >= both */
    const int64_t *counts;        /**< p_ini x p_tar count matrix, entries >= 0 */
    const int64_t *dist;          /**< p_dom x p_dom distances (>= 0), or NULL; needed by
                                       NT_MATCH_DISTANCE, otherwise used only to report
                                       nt_cost_t::dist_volume */
    const unsigned char *allowed; /**< p_dom x p_tar mask (non-zero = component j may go to
                                       domain k, at allowed[k * p_tar + j]), or NULL = all */
} nt_match_problem_t;

/**
 * \brief Solve a relabelling problem.
 * @param[in]  prob  the problem (not NULL).
 * @param[in]  obj   the objective.
 * @param[out] sigma p_tar entries: the domain of each component, distinct, in 0..p_dom-1.
 *                   Untouched on failure.
 * @param[out] cost  costs of sigma (volume, local, steps, dist_volume; see nt_cost_t), or NULL.
 *                   Untouched on failure.
 * @retval NT_OK     success.
 * @retval NT_EINVAL NULL pointers, bad sizes, a negative count, DISTANCE without dist, an
 *                   unknown objective, CANONICAL with a mask forbidding the identity, or a mask
 *                   admitting no injective labelling ("no feasible labelling: ...").
 * @retval NT_ERANGE a cost overflows int64, or p_dom is more than ::NT_MATCH_MAX_P.
 * @retval NT_ENOMEM scratch allocation failed (O(p_dom^2) int64).
 */
nt_status nt_match_solve(const nt_match_problem_t *prob, nt_match_objective obj, int *sigma,
                         nt_cost_t *cost);

/**
 * \brief Name of an objective ("canonical", "volume", "steps", "lex", "distance").
 * @param[in] obj any value.
 * @return a static string; "unknown" for values outside the enum.
 */
const char *nt_match_objective_name(nt_match_objective obj);

/**
 * \brief Parse an objective name as nt_match_objective_name() prints it (also "none" for
 *        canonical).
 * @param[in]  name the name (not NULL).
 * @param[out] out  the objective; untouched on failure.
 * @retval NT_OK success. @retval NT_EINVAL unknown name or NULL pointer.
 */
nt_status nt_match_objective_parse(const char *name, nt_match_objective *out);

/**
 * \brief Minimum-cost perfect matching of a square cost matrix (the solver behind VOLUME,
 *        LEX and DISTANCE, public for other uses). Shortest augmenting paths with potentials,
 *        O(p^3) time, O(p) scratch beyond the matrix, exact int64 arithmetic.
 * @param[in]  cost  p x p row-major costs; row = domain, column = component; an entry equal to
 *                   INT64_MAX marks a forbidden pair. Finite entries must lie in
 *                   [-2^58 / p, 2^58 / p] so that no potential overflows.
 * @param[in]  p     size, >= 1.
 * @param[out] col_to_row p entries: the row matched to each column. Untouched on failure.
 * @param[out] total the cost of the matching, or NULL.
 * @retval NT_OK success.
 * @retval NT_EINVAL NULL pointers, p < 1, or no perfect matching avoids the forbidden pairs.
 * @retval NT_ERANGE a finite entry outside the range above.
 * @retval NT_ENOMEM scratch allocation failed.
 */
nt_status nt_match_assignment(const int64_t *cost, int p, int *col_to_row, int64_t *total);

/**
 * \brief Bottleneck perfect matching of a square weight matrix: minimise the largest weight
 *        used. Binary search over the distinct weights, Hopcroft-Karp feasibility test.
 * @param[in]  weight p x p row-major weights; INT64_MAX marks a forbidden pair.
 * @param[in]  p      size, >= 1.
 * @param[out] col_to_row p entries: the row matched to each column. Untouched on failure.
 * @param[out] bottleneck the largest weight used, or NULL.
 * @retval NT_OK success. @retval NT_EINVAL NULL pointers, p < 1, or no perfect matching avoids
 *         the forbidden pairs. @retval NT_ENOMEM scratch allocation failed.
 */
nt_status nt_match_bottleneck(const int64_t *weight, int p, int *col_to_row,
                              int64_t *bottleneck);

/* ------------------------------------------------------------------------------------------ */
/* Hierarchical relabelling: domains grouped into ranks (MPI processes, machines)             */
/* ------------------------------------------------------------------------------------------ */

/**
 * \brief A relabelling problem on a machine whose domains are grouped into ranks (for example
 *        R MPI ranks of D domains each, global domain g = rank * D + local). Zero-initialise,
 *        then set the fields. Pointers are borrowed.
 *
 * Sizes, counts and distances mean what they mean in ::nt_match_problem_t (rows p_ini..p_dom-1
 * of the counts are empty; components may be fewer than domains). Masks are not taken here.
 *
 * **Target rank-group.** Target component j belongs to group rank_of[j]: the rank that the
 * canonical labelling (sigma[j] = j) gives it. Target partitions are numbered for the machine
 * they were built for (a bc2d:PxQ grid over R x D rank-major domains puts the parts a rank
 * should hold side by side, sharing its memory, under that rank's ids), so the canonical
 * labelling says which parts belong together on one rank. The hierarchical relabelling moves
 * whole groups between ranks and then parts inside their rank: it never splits what the target
 * put together, the rank level is an exact R x R matching (R! labellings, 24 for 4 ranks), and
 * canonical at both levels is the identity. A caller whose component numbering does not say
 * which parts belong together renumbers the components first.
 */
typedef struct nt_match_hier_problem {
    int p_ini;             /**< source domains (rows of counts), >= 1 */
    int p_tar;             /**< target components (columns of counts), >= 1 */
    int p_dom;             /**< machine domains, 0 = max(p_ini, p_tar), else >= both */
    const int64_t *counts; /**< p_ini x p_tar count matrix, entries >= 0 */
    const int64_t *dist;   /**< p_dom x p_dom distances (>= 0, the inter-rank level included),
                                or NULL; needed by the DISTANCE domain objective, otherwise
                                used only for nt_cost_t::dist_volume */
    int nranks;            /**< ranks R, 1..p_dom */
    const int *rank_of;    /**< p_dom entries: the rank of each domain, in 0..R-1; every rank
                                has at least one domain (ranks may differ in size) */
    int split_groups;      /**< 0 (default): keep each target rank-group whole on one rank;
                                non-zero: place every component on any rank (rank objective
                                VOLUME or CANONICAL only), see nt_match_hier_solve() */
} nt_match_hier_problem_t;

/** \brief Costs of a labelling on ranked domains, in the units of the count matrix. */
typedef struct nt_match_hier_cost {
    int64_t inter_volume; /**< what moves between domains of different ranks */
    int64_t intra_volume; /**< what moves between two domains of the same rank */
    int64_t inter_steps;  /**< one-port bound at rank level: max over ranks of max(what the
                               rank sends to other ranks, what it receives from them) */
    nt_cost_t total;      /**< domain-level costs (volume = inter_volume + intra_volume,
                               local, steps, dist_volume) as nt_match_solve() reports them */
} nt_match_hier_cost_t;

/**
 * \brief Hierarchical relabelling: ranks first, then domains inside each rank.
 *
 * Rank level: the R x R matrix a[s][g] = weight on the domains of rank s of the components of
 * target rank-group g (see ::nt_match_hier_problem_t) is solved as an ordinary relabelling
 * problem (nt_match_solve()) under rank_obj, so group g goes to rank group_rank[g] with the
 * least inter-rank volume (VOLUME), the fewest rank-level one-port steps (STEPS), or the
 * fewest steps then the least inter-rank volume (LEX), exactly; a group may only go to a rank
 * with at least as many domains as it has components (all pairs when ranks are equal). Ties
 * are broken arbitrarily (not by the domain level). LEX minimises steps first: its inter-rank
 * volume can exceed the canonical labelling's when the canonical one is not step-optimal.
 *
 * With split_groups the rank level ignores the groups: each component goes to any rank, at
 * most as many per rank as it has domains, so that the inter-rank volume is the least over all
 * labellings (an exact min-cost assignment of components to the domains where the cost of
 * component j on a domain of rank s is the weight of j outside rank s, O(p_dom^3)). It is never
 * more than with whole groups, and much less when the source ignores the ranks (a deranged
 * SkewedSet, docs/guide.md); the price is that a rank no longer holds what one rank of the
 * target holds. Only VOLUME and CANONICAL (the identity) are taken at that level, since the
 * rank-level steps of a rank holding several components do not decompose into a matching.
 *
 * Domain level, inside each rank r holding group g: the components of g are placed on the
 * domains of r by an exact matching under domain_obj: VOLUME keeps the most weight on its
 * domain (least intra-rank volume); DISTANCE minimises the distance-weighted volume of
 * everything the components receive, from every source domain, other ranks included (the
 * inter-rank items still choose where they land); CANONICAL puts the k-th component of g (in
 * increasing order) on the k-th domain of r. The inter-rank volume depends only on the rank
 * level, so the domain level never changes it.
 *
 * Cost: O(p_ini * p_tar + R^3 + sum over ranks of D_r^3) with volume (O(p_dom^3) at rank
 * level with split_groups), plus O(p_ini * p_tar * D_r) per rank to build distance costs.
 * @param[in]  prob       the problem (not NULL).
 * @param[in]  rank_obj   NT_MATCH_CANONICAL, NT_MATCH_VOLUME, NT_MATCH_STEPS or NT_MATCH_LEX.
 * @param[in]  domain_obj NT_MATCH_CANONICAL, NT_MATCH_VOLUME or NT_MATCH_DISTANCE (needs dist).
 * @param[out] sigma      p_tar entries: the domain of each component, distinct. Untouched on
 *                        failure.
 * @param[out] group_rank R entries: the rank of each target rank-group, a permutation of
 *                        0..R-1 (every entry -1 with split_groups); or NULL. Untouched on
 *                        failure.
 * @param[out] cost       the costs of sigma, or NULL. Untouched on failure.
 * @retval NT_OK     success.
 * @retval NT_EINVAL NULL prob, sigma, counts or rank_of; bad sizes; nranks outside 1..p_dom;
 *                   a rank_of entry outside 0..R-1 or a rank without a domain; a negative count
 *                   or distance; an objective not listed above (STEPS and LEX with
 *                   split_groups included); DISTANCE without dist.
 * @retval NT_ERANGE a cost overflows int64, or p_dom is more than ::NT_MATCH_MAX_P.
 * @retval NT_ENOMEM scratch allocation failed (O(p_dom + R^2 + max D_r^2) int64, p_dom^2 with
 *                   split_groups).
 */
nt_status nt_match_hier_solve(const nt_match_hier_problem_t *prob, nt_match_objective rank_obj,
                              nt_match_objective domain_obj, int *sigma, int *group_rank,
                              nt_match_hier_cost_t *cost);

/**
 * \brief Costs of any labelling on ranked domains (for comparing with nt_match_hier_solve(),
 *        e.g. the canonical labelling or a flat nt_match_solve() result).
 * @param[in]  prob  the problem (not NULL), validated as by nt_match_hier_solve().
 * @param[in]  sigma p_tar distinct domains in 0..p_dom-1.
 * @param[out] cost  the costs; untouched on failure.
 * @retval NT_OK success.
 * @retval NT_EINVAL NULL pointer, a bad problem (as nt_match_hier_solve()), sigma not
 *                   injective or out of range.
 * @retval NT_ERANGE a sum overflows int64. @retval NT_ENOMEM scratch allocation failed.
 */
nt_status nt_match_hier_cost(const nt_match_hier_problem_t *prob, const int *sigma,
                             nt_match_hier_cost_t *cost);

/**
 * \brief Equal ranks of consecutive domains: rank_of[k] = k / (p_dom / nranks), the numbering
 *        global domain = rank * D + local.
 * @param[in]  p_dom   domains, >= 1.
 * @param[in]  nranks  ranks, >= 1, dividing p_dom.
 * @param[out] rank_of p_dom entries (caller's array); untouched on failure.
 * @retval NT_OK success.
 * @retval NT_EINVAL rank_of NULL, a size < 1, or nranks not dividing p_dom.
 */
nt_status nt_match_hier_ranks(int p_dom, int nranks, int *rank_of);

/* ------------------------------------------------------------------------------------------ */
/* Relabelling at scale: sparse count matrices                                                */
/* ------------------------------------------------------------------------------------------ */

/**
 * \brief Most entries a sparse count matrix built by nt_sparse_counts_bc() or
 *        nt_sparse_counts_tilemaps() may hold (12 bytes each: 768 MiB at the cap); larger
 *        ones are refused at once (::NT_ERANGE).
 */
#define NT_SPARSE_MAX_NNZ ((int64_t)1 << 26)

/**
 * \brief A count matrix in compressed rows: row i (source domain) holds the pairs
 *        (col[e], count[e]) for e in start[i]..start[i+1]-1, every other entry being 0.
 *        A column (component) appears at most once per row; counts are >= 0. Filled by the
 *        builders below (free it with nt_sparse_counts_free()) or by the caller (then the
 *        arrays are the caller's and only read).
 */
typedef struct nt_sparse_counts {
    int p_ini;      /**< rows: source domains, >= 1 */
    int p_tar;      /**< columns: target components, >= 1 */
    int64_t nnz;    /**< stored entries, = start[p_ini] */
    int64_t *start; /**< p_ini + 1 offsets, start[0] = 0, non-decreasing */
    int *col;       /**< nnz components, each in 0..p_tar-1 */
    int64_t *count; /**< nnz counts, >= 0 */
} nt_sparse_counts_t;

/**
 * \brief One dimension of a block-cyclic layout, ScaLAPACK's convention: index x of the
 *        submatrix (0-based) is global index x + offset, in global block (x + offset) / block,
 *        held by grid process ((x + offset) / block + src) mod nprocs.
 */
typedef struct nt_bc_dim {
    int64_t block;  /**< indices per block, >= 1 */
    int64_t offset; /**< global index of the submatrix's first index, >= 0 */
    int nprocs;     /**< processes of the grid in this dimension, >= 1 */
    int src;        /**< process holding global block 0, 0..nprocs-1 */
} nt_bc_dim_t;

/**
 * \brief A two-dimensional block-cyclic layout: grid cell (pr, pc) (pr of rows.nprocs, pc of
 *        cols.nprocs) is domain labels[pr * cols.nprocs + pc] (distinct), or pr * cols.nprocs +
 *        pc when labels is NULL, numatile's bc2d:PxQ numbering. The labels array is borrowed.
 */
typedef struct nt_bc_layout {
    nt_bc_dim_t rows; /**< the row dimension */
    nt_bc_dim_t cols; /**< the column dimension */
    const int *labels; /**< rows.nprocs * cols.nprocs distinct domains, or NULL */
} nt_bc_layout_t;

/**
 * \brief The count matrix of a rows x cols submatrix moved from one block-cyclic layout to
 *        another, in elements, without a p_ini x p_tar table: n[a][b] = (rows that src's grid
 *        row of a and dst's grid row of b share) x (the same for columns), so row a holds
 *        (row pairs of its grid row) x (column pairs of its grid column) entries.
 *
 * Each dimension is walked block boundary by block boundary over min(extent, L) indices, L
 * = lcm(block_s * nprocs_s, block_t * nprocs_t) the period of the pair of owners, the rest
 * counted by periodicity: O(min(extent, L) / min(block) + pairs log pairs) per dimension, then
 * O(nnz) for the product.
 * @param[in]  rows  submatrix rows, >= 0.
 * @param[in]  cols  submatrix columns, >= 0.
 * @param[in]  src   the source layout (not NULL); its labels lie in 0..p_ini-1.
 * @param[in]  p_ini source domains (rows of the result), >= 1.
 * @param[in]  dst   the target layout (not NULL); its labels lie in 0..p_tar-1.
 * @param[in]  p_tar target components (columns of the result), >= 1.
 * @param[out] out   the matrix (arrays allocated here: free with nt_sparse_counts_free());
 *                   untouched on failure. Rows of domains outside src's grid are empty.
 * @retval NT_OK     success.
 * @retval NT_EINVAL NULL pointer, a negative size, a bad dimension (block < 1, nprocs < 1, src
 *                   outside 0..nprocs-1, offset < 0), a grid of more cells than p_ini
 *                   (p_tar), or a label out of range or repeated (the message names it).
 * @retval NT_ERANGE more than ::NT_SPARSE_MAX_NNZ entries, a dimension walk of more than
 *                   2^24 pieces, or a count overflowing int64.
 * @retval NT_ENOMEM allocation failed.
 */
nt_status nt_sparse_counts_bc(int64_t rows, int64_t cols, const nt_bc_layout_t *src, int p_ini,
                              const nt_bc_layout_t *dst, int p_tar, nt_sparse_counts_t *out);

/**
 * \brief The count matrix of two tile maps of the same grid (nt_counts_tilemaps()' matrix,
 *        sparse), in O(tiles + p_ini + nnz log) time and memory, without a p_ini x p_tar
 *        table.
 * @param[in]  src  the initial distribution (not NULL): p_ini = src->ndomains.
 * @param[in]  dst  the target partition (not NULL), same grid: p_tar = dst->ndomains.
 * @param[in]  size mt*nt tile weights (>= 1), or NULL for 1 per tile.
 * @param[out] out  the matrix (free with nt_sparse_counts_free()); untouched on failure.
 * @retval NT_OK success. @retval NT_EINVAL NULL map or out, grids differ, a label out of range,
 *         a size < 1. @retval NT_ERANGE a weight overflows. @retval NT_ENOMEM allocation failed.
 */
nt_status nt_sparse_counts_tilemaps(const nt_tilemap_t *src, const nt_tilemap_t *dst,
                                    const int64_t *size, nt_sparse_counts_t *out);

/**
 * \brief Free the arrays a builder allocated and zero the structure (NULL or an already freed
 *        one accepted). Not for matrices whose arrays are the caller's.
 * @param[in,out] n the matrix.
 */
void nt_sparse_counts_free(nt_sparse_counts_t *n);

/**
 * \brief The dense p_ini x p_tar matrix of a sparse one (to compare with nt_match_solve()).
 * @param[in]  n      a valid sparse matrix (as nt_match_sparse_volume() checks it).
 * @param[out] counts p_ini * p_tar caller's entries; untouched on failure.
 * @retval NT_OK success. @retval NT_EINVAL NULL pointer or an invalid matrix (named).
 */
nt_status nt_sparse_counts_dense(const nt_sparse_counts_t *n, int64_t *counts);

/**
 * \brief Minimum-volume relabelling (::NT_MATCH_VOLUME of nt_match_solve(), exact) from a
 *        sparse count matrix, in O(p_dom + nnz) memory: the labelling keeps the most weight
 *        on its domain, a maximum-weight matching of the bipartite graph of the non-zero
 *        entries; components left unmatched go to the unused domains in increasing order
 *        (with weights >= 0, a maximum matching of the non-zero entries completed by zero
 *        pairs is a maximum perfect matching of the padded p_dom x p_dom matrix).
 *
 * Warm starts first: every domain at its largest count and a maximum matching of the entries
 * equal to it (ties, frequent in block-cyclic counts, are matched at once), the same on the
 * transposed matrix when that side matches far more, a bounded exact auction round. Then
 * successive shortest augmenting paths with potentials (Dijkstra on the sparse residual graph,
 * a heap, stopping at the first free component), one source domain at a time; a domain may
 * also stay without a component of its own at cost 0, so paths are short where most domains
 * keep their largest entry. Exact in int64. Time O(p_ini (nnz + p) log p) in the worst case,
 * near O(nnz log p) on most block-cyclic grid changes (docs/benchmarks.md). Scratch: about
 * 16 bytes per entry read by the searches, plus a transposed copy (12 bytes per entry) when the
 * transposed side is tried.
 * @param[in]  n     the count matrix (not NULL), checked: offsets, columns in range and not
 *                   repeated in a row, counts >= 0, total <= 2^60.
 * @param[in]  p_dom machine domains: 0 = max(p_ini, p_tar), else >= both.
 * @param[out] sigma p_tar entries: the domain of each component, distinct, in 0..p_dom-1.
 *                   Untouched on failure.
 * @param[out] cost  volume, local and steps of sigma (dist_volume 0), or NULL. Untouched on
 *                   failure.
 * @retval NT_OK success.
 * @retval NT_EINVAL NULL n or sigma, bad sizes, a bad offset, column or count, a column twice
 *                   in one row (each named in the message).
 * @retval NT_ERANGE the total exceeds 2^60.
 * @retval NT_ENOMEM scratch allocation failed.
 */
nt_status nt_match_sparse_volume(const nt_sparse_counts_t *n, int p_dom, int *sigma,
                                 nt_cost_t *cost);

/**
 * \brief Costs of any labelling on a sparse count matrix (nt_cost_eval()'s volume, local and
 *        steps; dist_volume 0), in O(p_dom + nnz).
 * @param[in]  n     the count matrix (not NULL), checked as by nt_match_sparse_volume().
 * @param[in]  p_dom machine domains: 0 = max(p_ini, p_tar), else >= both.
 * @param[in]  sigma p_tar distinct domains in 0..p_dom-1.
 * @param[out] cost  the costs; untouched on failure.
 * @retval NT_OK success. @retval NT_EINVAL a bad matrix or size, sigma NULL, not injective or
 *         out of range. @retval NT_ERANGE a sum overflows. @retval NT_ENOMEM scratch.
 */
nt_status nt_sparse_cost(const nt_sparse_counts_t *n, int p_dom, const int *sigma,
                         nt_cost_t *cost);

/**
 * \brief nt_match_sparse_volume() on the counts of a block-cyclic layout change
 *        (nt_sparse_counts_bc()'s matrix) without building them: the counts are a Kronecker
 *        product, (row pairs) x (column pairs), and the solver generates each domain's row from
 *        the two factors' rows when it reads it. Same labelling and costs as building the
 *        matrix and solving it; no O(nnz) count arrays (the solver's scratch for the rows its
 *        searches read remains).
 * @param[in]  rows, cols, src, p_ini, dst, p_tar  the change, as nt_sparse_counts_bc().
 * @param[in]  p_dom machine domains: 0 = max(p_ini, p_tar), else >= both.
 * @param[out] sigma p_tar entries: the domain of each component. Untouched on failure.
 * @param[out] cost  volume, local and steps of sigma, or NULL. Untouched on failure.
 * @param[out] nnz   the number of entries of the count matrix, or NULL.
 * @retval NT_OK success.
 * @retval NT_EINVAL NULL layout or sigma, bad sizes or dimensions, labels out of range or
 *                   repeated, bad p_dom (each named in the message).
 * @retval NT_ERANGE rows x cols above 2^60, or a dimension walk of more than 2^24 pieces.
 * @retval NT_ENOMEM scratch allocation failed.
 */
nt_status nt_match_bc_volume(int64_t rows, int64_t cols, const nt_bc_layout_t *src, int p_ini,
                             const nt_bc_layout_t *dst, int p_tar, int p_dom, int *sigma,
                             nt_cost_t *cost, int64_t *nnz);

/**
 * \brief nt_sparse_cost() of a labelling of a block-cyclic layout change, the counts read from
 *        the two factors (never stored), in O(p_dom + nnz) time.
 * @param[in]  rows, cols, src, p_ini, dst, p_tar  the change, as nt_sparse_counts_bc().
 * @param[in]  p_dom machine domains: 0 = max(p_ini, p_tar), else >= both.
 * @param[in]  sigma p_tar distinct domains in 0..p_dom-1.
 * @param[out] cost  the costs; untouched on failure.
 * @retval NT_OK success. @retval NT_EINVAL as nt_match_bc_volume(), or sigma NULL, not injective
 *         or out of range. @retval NT_ERANGE as nt_match_bc_volume(). @retval NT_ENOMEM scratch.
 */
nt_status nt_cost_bc(int64_t rows, int64_t cols, const nt_bc_layout_t *src, int p_ini,
                     const nt_bc_layout_t *dst, int p_tar, int p_dom, const int *sigma,
                     nt_cost_t *cost);

#ifdef __cplusplus
}
#endif
#endif
