/**
 * \file numatile/hetero.h
 * \brief Heterogeneous partitions for matrix products (Lambert 2017, ch. 1; DIGEST §4).
 *
 * m domains with relative speeds s_i (normalised to sum 1) share the N x N tiles of C = A B;
 * the owner of C_ij computes it, so per k-layer domain i loads one A tile per tile row and one
 * B tile per tile column its zone touches. PERI-SUM: cut the unit square into zones Z_i of
 * area s_i minimising sum p(Z_i), p = half-perimeter (length of the x projection plus length of
 * the y projection). Lower bound: sum p(Z_i) >= 2 sum sqrt(s_i).
 *
 * Continuous partitioners (zones as unions of at most NT_HETERO_MAX_RECTS rectangles):
 * ColumnBased (optimal among column partitions), RRP, SNRRP (sqrt(3/2)-approximation), NRRP
 * (2/sqrt(3)-approximation) and the exact optima for m <= 3. Discrete: SFCP (Hilbert curve,
 * N a power of two) and the discretisation of any continuous partition onto the tile grid
 * ("Precise": every domain gets its prefix-rounded tile count; or "Rounded": tile centres).
 *
 * Coordinates: x runs along tile columns (j), y along tile rows (i); tile (i, j) is the cell
 * [j, j+1] x [i, i+1] of the square scaled by N.
 *
 * Speeds: any non-negative finite values with a positive sum; zones are returned in the order
 * the speeds were given. A zero speed gets an empty zone and no tile (memory-only domains).
 *
 * Errors follow numatile/error.h: NT_OK or a negative code, out-parameters untouched on
 * failure, nt_last_error() names the bad argument.
 *
 * Threads: every function may be called from several threads at once on distinct results.
 */
#ifndef NUMATILE_HETERO_H
#define NUMATILE_HETERO_H

#include <stdint.h>

#include "numatile/dist.h"
#include "numatile/error.h"
#include "numatile/match.h"
#include "numatile/topo.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \brief The partitioning algorithms. */
typedef enum nt_hetero_algo {
    NT_HETERO_COLUMN = 0, /**< ColumnBased: optimal column partition (DP over sorted speeds) */
    NT_HETERO_RRP = 1,    /**< Rectangular Recursive Partitioning (Nagamochi-Abe) */
    NT_HETERO_SNRRP = 2,  /**< Simple Non-Rectangular RRP (Guillotine + Square) */
    NT_HETERO_NRRP = 3,   /**< NRRP (Tripartition, Superposition, Packing) */
    NT_HETERO_SFCP = 4,   /**< Space-Filling-Curve Partitioning (discrete only) */
    NT_HETERO_EXACT = 5   /**< exact optimum, m <= 3 positive speeds only */
} nt_hetero_algo;

/** \brief How a continuous partition becomes a tile map. */
typedef enum nt_hetero_round {
    NT_HETERO_PRECISE = 0,  /**< inner rectangles, then neighbour filling: exact counts */
    NT_HETERO_ROUNDED = 1,  /**< each tile to the zone holding its centre: counts drift */
    NT_HETERO_ACCURATE = 2, /**< Lambert §1.3.2: guillotine cuts walked column by column,
                                 then row by row, until each side holds its count: exact
                                 counts, near-rectangles (ColumnBased and RRP only) */
    NT_HETERO_ROUNDED_CORNER = 3 /**< each tile (i, j) to the zone holding its first corner
                                      (j, i): zone ends rounded up. The thesis's Rounded
                                      (Figure 1.7, Table 1.2; docs/fidelity.md) */
} nt_hetero_round;

/** \brief Most rectangles in one zone (an L-shape is 2, a square-corner complement 3). */
#define NT_HETERO_MAX_RECTS 3

/** \brief Axis-parallel rectangle [x0, x1] x [y0, y1] of the unit square. */
typedef struct nt_hetero_rect {
    double x0; /**< start of the x interval, in [0, 1] */
    double y0; /**< start of the y interval, in [0, 1] */
    double x1; /**< end of the x interval, x0 <= x1 <= 1 */
    double y1; /**< end of the y interval, y0 <= y1 <= 1 */
} nt_hetero_rect_t;

/** \brief A zone: the union of nrect interior-disjoint rectangles (nrect 0 = empty zone). */
typedef struct nt_hetero_zone {
    int nrect;                                  /**< rectangles used, 0..NT_HETERO_MAX_RECTS */
    nt_hetero_rect_t rect[NT_HETERO_MAX_RECTS]; /**< the first nrect entries are the zone */
} nt_hetero_zone_t;

/**
 * \brief Name of an algorithm ("column", "rrp", "snrrp", "nrrp", "sfcp", "exact").
 * @param[in] algo any value.
 * @return a static string; "unknown" outside the enum.
 */
const char *nt_hetero_algo_name(nt_hetero_algo algo);

/**
 * \brief Parse an algorithm name as nt_hetero_algo_name() prints it.
 * @param[in]  name the name (not NULL).
 * @param[out] out  the algorithm; untouched on failure.
 * @retval NT_OK success. @retval NT_EINVAL unknown name or NULL pointer.
 */
nt_status nt_hetero_algo_parse(const char *name, nt_hetero_algo *out);

/**
 * \brief Proven bound on cost / lower bound for an algorithm (continuous cost; for SFCP the
 *        discrete cost against 2 sum sqrt(tiles_i)).
 * @param[in] algo any value.
 * @return 7/4 (ColumnBased, Beaumont et al. 2002), 3/2 (RRP: not proven against the lower
 *         bound, the tight example of the thesis; kept as the observed ceiling), sqrt(3/2)
 *         (SNRRP), 2/sqrt(3) (NRRP), 3 sqrt(3)/sqrt(11) (SFCP), 1.5 (EXACT, m <= 3, since
 *         the two-strip case reaches 3/2 as s_1 -> 0); 0 for unknown values.
 */
double nt_hetero_guarantee(nt_hetero_algo algo);

/**
 * \brief Check speeds and normalise them to sum 1.
 * @param[in]  m      number of speeds, >= 1.
 * @param[in]  speeds m finite values >= 0, not all zero; only their ratios matter (speeds
 *                    whose sum overflows a double are scaled by the largest first).
 * @param[out] out    m normalised values (may alias speeds); untouched on failure.
 * @retval NT_OK success.
 * @retval NT_EINVAL NULL pointer, m < 1, a negative, NaN or infinite speed, or all zero (the
 *         message names the speed).
 */
nt_status nt_hetero_normalize(int m, const double *speeds, double *out);

/**
 * \brief The lower bound 2 sum sqrt(s_i) of the normalised speeds.
 * @param[in]  m      number of speeds, >= 1.
 * @param[in]  speeds as for nt_hetero_normalize().
 * @param[out] lb     the bound; untouched on failure.
 * @retval NT_OK success. @retval NT_EINVAL bad speeds (see nt_hetero_normalize()).
 */
nt_status nt_hetero_lower_bound(int m, const double *speeds, double *lb);

/**
 * \brief Continuous partition of the unit square: zones[i] has area s_i (normalised).
 * @param[in]  algo   any algorithm except NT_HETERO_SFCP; NT_HETERO_EXACT needs at most 3
 *                    positive speeds.
 * @param[in]  m      number of speeds, >= 1.
 * @param[in]  speeds as for nt_hetero_normalize().
 * @param[out] zones  m zones (caller's array); untouched on failure.
 * @retval NT_OK success.
 * @retval NT_EINVAL bad speeds, NULL zones or an unknown algorithm.
 * @retval NT_ENOTSUP SFCP (discrete only) or EXACT with more than 3 positive speeds.
 * @retval NT_ENOMEM scratch allocation failed (O(m^2) for ColumnBased, O(m) otherwise).
 */
nt_status nt_hetero_partition(nt_hetero_algo algo, int m, const double *speeds,
                              nt_hetero_zone_t *zones);

/**
 * \brief Optimal column structure (the ColumnBased dynamic programme, O(m^2)).
 *
 * Sorted increasingly, the speeds are cut into consecutive groups, one column per group; a
 * column of k zones with total area S costs 1 + k S. Sorting is without loss of generality: if
 * a column with more zones held a larger speed than a column with fewer, swapping the two
 * lowers k S.
 * @param[in]  m      number of speeds, >= 1.
 * @param[in]  speeds as for nt_hetero_normalize() (zero speeds take no part).
 * @param[out] column m entries or NULL: the column (0 = leftmost, the largest speeds, as
 *                    nt_hetero_partition() lays them out) of each speed, -1 for zero speeds.
 * @param[out] ncols  number of columns, or NULL.
 * @param[out] cost   the optimal column cost sum (1 + k_c S_c), or NULL.
 * @retval NT_OK success. @retval NT_EINVAL bad speeds. @retval NT_ENOMEM allocation failed.
 */
nt_status nt_hetero_column_dp(int m, const double *speeds, int *column, int *ncols,
                              double *cost);

/**
 * \brief Reflect zones left-right (x -> 1 - x), in place.
 *
 * nt_hetero_partition() lays ColumnBased's columns out from the largest speeds at the left,
 * the order under which Lambert's Table 1.2 follows (docs/fidelity.md); its mirror image,
 * smallest speeds at the left as the thesis's dynamic programme states its order, was
 * numatile's layout before (up to rounding in the last bit). Any partition stays a partition.
 * @param[in]     m     number of zones, >= 0.
 * @param[in,out] zones m zones (nothing happens when NULL).
 */
void nt_hetero_zones_mirror(int m, nt_hetero_zone_t *zones);

/**
 * \brief Area of a zone (sum of its rectangles).
 * @param[in] z the zone (not NULL).
 * @return the area, in [0, 1]; 0 for an empty zone.
 */
double nt_hetero_zone_area(const nt_hetero_zone_t *z);

/**
 * \brief Half-perimeter of a zone: measure of the union of its rectangles' x intervals plus
 *        that of their y intervals (the A rows and B columns it needs, per unit).
 * @param[in] z the zone (not NULL).
 * @return the half-perimeter; 0 for an empty zone.
 */
double nt_hetero_zone_halfperimeter(const nt_hetero_zone_t *z);

/**
 * \brief Continuous cost: the sum of the zones' half-perimeters.
 * @param[in] m     number of zones, >= 0.
 * @param[in] zones m zones (not NULL when m > 0).
 * @return the cost.
 */
double nt_hetero_continuous_cost(int m, const nt_hetero_zone_t *zones);

/**
 * \brief Tile counts by prefix rounding: n_k = Round(N^2 (s_1 + .. + s_k)) - (n_1 + .. +
 *        n_{k-1}), in the order given, Round(x) = floor(x + 1/2). Each n_k is floor or ceil
 *        of s_k N^2 and the counts add up to N^2.
 * @param[in]  m      number of speeds, >= 1.
 * @param[in]  speeds as for nt_hetero_normalize().
 * @param[in]  n      tile grid side N, 1..2^31-1 (N^2 must fit in int64).
 * @param[out] counts m counts; untouched on failure.
 * @retval NT_OK success. @retval NT_EINVAL bad speeds, n < 1 or NULL counts.
 */
nt_status nt_hetero_counts(int m, const double *speeds, int64_t n, int64_t *counts);

/**
 * \brief Map a continuous partition onto the N x N tile grid.
 *
 * PRECISE (Lambert, ch. 3): every tile of the inner integer rectangle of each zone rectangle
 * goes to its zone while the zone's count lasts; then, in row-major order, each remaining tile
 * goes to the domain with the fewest tiles still owed among those (owing any) that already own
 * one of its 8 neighbours, else to the domain owing the fewest positive number of tiles.
 * Every domain ends with exactly counts[i] tiles. ROUNDED: each tile goes to the zone holding
 * its centre (a centre on a boundary to the zone after it). ROUNDED_CORNER: tile (i, j) goes to
 * the zone holding the point (j, i) scaled by 1/n, its first corner (a zone [x0, x1) gets the
 * tile columns ceil(n x0) .. ceil(n x1) - 1, within 1e-9 of a tile); with ColumnBased's columns
 * laid out as nt_hetero_partition() does, this reproduces the thesis's Figure 1.7 and Table
 * 1.2 (both ignore counts, which may be NULL). ACCURATE (Lambert §1.3.2): the
 * zones, one rectangle each, are read as a guillotine tree and the tiles dealt out along it:
 * at a cut, the current tiles are walked column by column (vertical line) or row by row
 * (horizontal line) and the first ones, as many as the zones before the line owe, go to that
 * side. A column partition (ColumnBased) is cut at all its column boundaries first, then each
 * column row by row, as the thesis describes; any other partition is cut as RRP's Algorithm
 * 1.3 does (across the longer side of the current rectangle, along it if no line crosses that
 * way, at the first line with a third of the area before it, else at the last line). Every
 * domain ends with exactly counts[i] tiles, each zone a near-rectangle with strips of width one.
 * @param[in]  m      number of zones, >= 1.
 * @param[in]  zones  m zones partitioning the unit square.
 * @param[in]  counts m tile counts adding up to n^2 (PRECISE, ACCURATE), e.g. from
 *                    nt_hetero_counts().
 * @param[in]  n      grid side, >= 1, n^2 * sizeof(int) must fit in size_t.
 * @param[in]  mode   any ::nt_hetero_round.
 * @param[out] owner  n * n entries, row-major: owner[i * n + j] = domain of tile (i, j);
 *                    untouched on failure.
 * @retval NT_OK success.
 * @retval NT_EINVAL NULL pointer, bad sizes, negative counts or counts not adding to n^2, a
 *         tile centre in no zone (ROUNDED: zones do not cover the square), unknown mode.
 * @retval NT_ENOTSUP ACCURATE on a zone of several rectangles or a partition without a
 *         guillotine cut (SNRRP, NRRP, EXACT may give these).
 * @retval NT_ERANGE n^2 overflows. @retval NT_ENOMEM allocation failed.
 */
nt_status nt_hetero_discretize(int m, const nt_hetero_zone_t *zones, const int64_t *counts,
                               int64_t n, nt_hetero_round mode, int *owner);

/**
 * \brief SFCP: walk the Hilbert curve of the n x n grid and give each domain, in the order
 *        given, the next counts[i] tiles.
 * @param[in]  m      number of domains, >= 1.
 * @param[in]  counts m counts >= 0 adding up to n^2.
 * @param[in]  n      grid side, a power of two, 1..2^15.
 * @param[out] owner  n * n entries, row-major; untouched on failure.
 * @retval NT_OK success. @retval NT_EINVAL NULL pointer, n not a power of two, bad counts.
 * @retval NT_ENOMEM allocation failed.
 */
nt_status nt_hetero_sfcp(int m, const int64_t *counts, int64_t n, int *owner);

/**
 * \brief Discrete cost of a tile map: sum over domains of (tile rows touched + tile columns
 *        touched), the A and B tiles each domain loads per k-layer.
 * @param[in]  m      number of domains, >= 1.
 * @param[in]  n      grid side, >= 1.
 * @param[in]  owner  n * n entries in 0..m-1.
 * @param[out] cost   the total; untouched on failure.
 * @param[out] per    m entries (rows + columns per domain), or NULL.
 * @param[out] tiles  m entries (tiles per domain), or NULL.
 * @retval NT_OK success. @retval NT_EINVAL NULL pointer, bad sizes, an owner out of range.
 * @retval NT_ENOMEM allocation failed.
 */
nt_status nt_hetero_discrete_cost(int m, int64_t n, const int *owner, int64_t *cost,
                                  int64_t *per, int64_t *tiles);

/**
 * \brief Tile map of an algorithm: the continuous partition discretised with mode, or SFCP
 *        (mode ignored); tile counts from nt_hetero_counts() except for ROUNDED.
 * @param[in]  algo   any algorithm.
 * @param[in]  mode   discretisation of continuous partitions.
 * @param[in]  m      number of speeds, >= 1.
 * @param[in]  speeds as for nt_hetero_normalize().
 * @param[in]  n      grid side, >= 1 (a power of two for SFCP).
 * @param[out] out    the new map (mt = nt = n, ndomains = m), to free with
 *                    nt_tilemap_destroy(); untouched on failure.
 * @retval NT_OK success. @retval NT_EINVAL bad argument. @retval NT_ENOTSUP see
 *         nt_hetero_partition() and nt_hetero_discretize(). @retval NT_ERANGE size overflow.
 *         @retval NT_ENOMEM allocation.
 */
nt_status nt_hetero_tilemap(nt_hetero_algo algo, nt_hetero_round mode, int m,
                            const double *speeds, int64_t n, nt_tilemap_t **out);

/** \brief Quality of one partition (see nt_hetero_evaluate()). */
typedef struct nt_hetero_eval {
    double lower_bound;      /**< 2 sum sqrt(s_i) */
    double continuous_cost;  /**< sum of half-perimeters (SFCP: cost / n) */
    double continuous_ratio; /**< continuous_cost / lower_bound */
    int64_t cost;            /**< discrete: tile rows + tile columns touched, summed */
    double ratio;            /**< cost / (n * lower_bound) */
    double makespan_ratio;   /**< max_i tiles_i / (s_i n^2): 1 = perfect balance */
} nt_hetero_eval_t;

/**
 * \brief Partition, discretise and measure: the row of Lambert's Tables 1.2 (ROUNDED) and
 *        1.3 (PRECISE) for one algorithm and platform.
 * @param[in]  algo   any algorithm.
 * @param[in]  mode   discretisation of continuous partitions (ignored by SFCP).
 * @param[in]  m      number of speeds, >= 1.
 * @param[in]  speeds as for nt_hetero_normalize().
 * @param[in]  n      grid side, >= 1 (a power of two for SFCP).
 * @param[out] out    the measures; untouched on failure.
 * @retval as nt_hetero_tilemap().
 */
nt_status nt_hetero_evaluate(nt_hetero_algo algo, nt_hetero_round mode, int m,
                             const double *speeds, int64_t n, nt_hetero_eval_t *out);

/**
 * \brief Speeds of the thesis platforms: "homo-5" (5 x 1), "homo-20" (20 x 1), "hetero-1"
 *        (50, 1, 1, 1, 1), "hetero-4" (4 x 50, then 16 x 1). Case-insensitive.
 * @param[in]  name   platform name (not NULL).
 * @param[in]  cap    capacity of speeds, >= the platform's size (20 is always enough).
 * @param[out] m      number of speeds; untouched on failure.
 * @param[out] speeds the speeds (not normalised); untouched on failure.
 * @retval NT_OK success. @retval NT_EINVAL unknown name, NULL pointer or cap too small.
 */
nt_status nt_hetero_platform(const char *name, int cap, int *m, double *speeds);

/**
 * \brief Speeds proportional to the cores of each domain (0 for memory-only domains).
 * @param[in]  m      number of domains, >= 1.
 * @param[in]  ncpus  m values >= 0, not all zero.
 * @param[out] speeds m normalised speeds; untouched on failure.
 * @retval NT_OK success. @retval NT_EINVAL NULL pointer, m < 1, a negative count, all zero.
 * @retval NT_ENOMEM scratch allocation failed.
 */
nt_status nt_hetero_speeds_from_cpus(int m, const int *ncpus, double *speeds);

/**
 * \brief Speeds of a topology's domains from their core counts (nt_topo_domain().ncpus,
 *        normalised; 0 for memory-only domains). Inline so that partition/ does not depend
 *        on numa/.
 * @param[in]  topo   a loaded topology.
 * @param[in]  cap    capacity of speeds, >= nt_topo_ndomains(topo).
 * @param[out] m      number of domains; untouched on failure.
 * @param[out] speeds normalised speeds; on failure its first entries may have been written.
 * @retval NT_OK success. @retval NT_EINVAL NULL pointer, cap too small, no domain with cpus.
 */
static inline nt_status nt_hetero_speeds_from_topo(const nt_topo_t *topo, int cap, int *m,
                                                   double *speeds)
{
    if (!topo || !m || !speeds || nt_topo_ndomains(topo) > cap)
        return NT_EINVAL;
    int d = nt_topo_ndomains(topo);
    for (int k = 0; k < d; k++) {
        nt_domain_info_t info;
        nt_status st = nt_topo_domain(topo, k, &info);
        if (st)
            return st;
        speeds[k] = info.ncpus;
    }
    nt_status st = nt_hetero_normalize(d, speeds, speeds);
    if (st == NT_OK)
        *m = d;
    return st;
}

/**
 * \brief Forbidden-pair mask for placing a heterogeneous partition: component j, built for
 *        speed comp_speeds[j], may go to domain k only if dom_speeds[k] equals it (relative
 *        tolerance 1e-9), so relabelling never changes the work a domain gets.
 * @param[in]  p_dom       domains, >= 1.
 * @param[in]  dom_speeds  p_dom speeds (any common scale with comp_speeds).
 * @param[in]  p_tar       components, 1..p_dom.
 * @param[in]  comp_speeds p_tar speeds.
 * @param[out] allowed     p_dom * p_tar entries, allowed[k * p_tar + j] (the layout of
 *                         nt_match_problem_t::allowed); untouched on failure.
 * @retval NT_OK success. @retval NT_EINVAL NULL pointer or bad sizes.
 */
nt_status nt_hetero_allowed(int p_dom, const double *dom_speeds, int p_tar,
                            const double *comp_speeds, unsigned char *allowed);

/**
 * \brief Place a heterogeneous partition with the least movement from the current map.
 *
 * The partition's component j was built for speeds[j] (e.g. by nt_hetero_tilemap(), where
 * component j is meant for domain j); it may be placed on any domain of the same speed. The
 * count matrix of current against partition and the mask of nt_hetero_allowed() go to
 * nt_match_solve() with the objective.
 * @param[in]  current   the current distribution (ndomains <= partition->ndomains).
 * @param[in]  partition the target partition, same grid; its ndomains = the machine's domains.
 * @param[in]  speeds    partition->ndomains speeds: of domain k and of component k.
 * @param[in]  obj       any nt_match_objective except NT_MATCH_DISTANCE (needs distances).
 * @param[out] sigma     partition->ndomains entries: the domain of each component; untouched
 *                       on failure.
 * @param[out] cost      costs of sigma, or NULL.
 * @retval NT_OK success. @retval NT_EINVAL NULL pointer, different grids, bad sizes.
 * @retval NT_ERANGE overflow. @retval NT_ENOMEM allocation failed.
 */
nt_status nt_hetero_place(const nt_tilemap_t *current, const nt_tilemap_t *partition,
                          const double *speeds, nt_match_objective obj, int *sigma,
                          nt_cost_t *cost);

#ifdef __cplusplus
}
#endif
#endif
