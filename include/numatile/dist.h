/**
 * \file numatile/dist.h
 * \brief Distributions and partitions: 2D tile maps and their generators, 1D item maps, the
 *        count matrix of two labellings, and the redistribution costs of a relabelling.
 *
 * Pure algorithms: nothing here touches NUMA memory, starts threads or prints.
 *
 * Vocabulary (see DESIGN.md and the DIGEST of the source papers):
 * - a *distribution* maps each item to a domain, a *partition* maps each item to a component;
 *   both are stored the same way (an array of labels), only the meaning of the label differs;
 * - the *count matrix* n[i][j] (row-major, n[i * p_tar + j]) is the total size of the items on
 *   initial domain i that belong to target component j (the number of items if unweighted);
 * - a *labelling* sigma places target component j on domain sigma[j]; the items of component
 *   j that are not already on sigma[j] move there.
 *
 * Domain spaces (shared with numatile/match.h): the source uses domains 0..p_ini-1 (the rows of
 * the count matrix), the machine has p_dom >= max(p_ini, p_tar) domains (rows p_ini..p_dom-1
 * are treated as empty), and sigma must be injective from 0..p_tar-1 into 0..p_dom-1. A domain
 * that receives no component keeps nothing: all of its initial items leave.
 *
 * Errors follow numatile/error.h: NT_OK or a negative code, out-parameters untouched on failure,
 * nt_last_error() names the bad argument.
 *
 * Threads: every function may be called from several threads at once on distinct outputs; a
 * tile map is read-only once built.
 */
#ifndef NUMATILE_DIST_H
#define NUMATILE_DIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "numatile/error.h"

/**
 * \brief Most tiles a tile map, and items a 1D map, may have: 2^28 (a 1 GiB owner table).
 *
 * A fixed cap rather than a check of the free memory: these maps are pure data built without a
 * topology (partition/ asks nothing of the machine), and a grid past the cap would take seconds
 * to fill and gigabytes before failing. Matrices and plans check the nodes' room themselves.
 */
#define NT_TILEMAP_MAX_TILES (1 << 28)

/**
 * \brief Most labels (domains or components) a tile map or 1D map may have: 2^24.
 *
 * Generators and their users keep tables indexed by label (a skewed map's derangement, count
 * matrices), so a spec such as "skewed:1x988888882:2:derange" would allocate gigabytes for a
 * few tiles; no machine (::NT_TOPO_MAX_DOMAINS) nor matching (::NT_MATCH_MAX_P) takes more.
 */
#define NT_TILEMAP_MAX_LABELS (1 << 24)

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------ */
/* 2D tile maps                                                                               */
/* ------------------------------------------------------------------------------------------ */

/**
 * \brief Owner of every tile of an mt x nt tile grid.
 *
 * Created and destroyed by the library; callers may read every field and may write owner[]
 * entries (keeping them in 0..ndomains-1).
 */
typedef struct nt_tilemap {
    int64_t mt;     /**< tile rows, >= 1 */
    int64_t nt;     /**< tile columns, >= 1 */
    int ndomains;   /**< number of domains (or components); every owner is in 0..ndomains-1 */
    int *owner;     /**< mt * nt entries, row-major: owner[i * nt + j] is the owner of tile (i,j) */
} nt_tilemap_t;

/**
 * \brief Caller's owner function for nt_tilemap_from_fn().
 * @param[in] i   tile row, 0..mt-1.
 * @param[in] j   tile column, 0..nt-1.
 * @param[in] arg the caller's pointer, passed through.
 * @return the domain of tile (i,j); a value outside 0..ndomains-1 makes the generator fail.
 */
typedef int (*nt_tilemap_fn)(int64_t i, int64_t j, void *arg);

/**
 * \brief Create a tile map with every tile on domain 0.
 * @param[in]  mt       tile rows, >= 1.
 * @param[in]  nt       tile columns, >= 1 (mt * nt * sizeof(int) must fit in size_t).
 * @param[in]  ndomains number of domains, >= 1.
 * @param[out] out      the new map, to free with nt_tilemap_destroy(); untouched on failure.
 * @retval NT_OK     success.
 * @retval NT_EINVAL out is NULL, or mt, nt or ndomains < 1.
 * @retval NT_ERANGE mt * nt is more than ::NT_TILEMAP_MAX_TILES, or ndomains more than
 *                   ::NT_TILEMAP_MAX_LABELS.
 * @retval NT_ENOMEM allocation failed.
 */
nt_status nt_tilemap_create(int64_t mt, int64_t nt, int ndomains, nt_tilemap_t **out);

/**
 * \brief Free a tile map and its owner array.
 * @param[in] map a map from the library, or NULL (then nothing happens).
 */
void nt_tilemap_destroy(nt_tilemap_t *map);

/**
 * \brief Build a tile map from a DIST spec of DESIGN.md's grammar.
 *
 * Accepted specs (all integers decimal; P, Q, SMB, SNB, W, D >= 1; SEED in 0..2^64-1):
 * - `bc2d:PxQ[:SMBxSNB]`: tile (i,j) -> ((i/SMB) mod P) * Q + ((j/SNB) mod Q);
 * - `bc1d:P`: the same as bc2d:1xP;
 * - `random:SEED`: an independent uniform domain per tile (needs ndomains);
 * - `balanced:SEED`: random, but every domain holds floor or ceil of tiles/D (needs ndomains);
 * - `skewed:PxQ:SEED[:domain|:grid][:derange]`: SkewedSet, nt_tilemap_skewed_ex() with
 *   `.mode` NT_SKEW_DOMAIN (`:domain`) or NT_SKEW_GRID (`:grid`, the default, as
 *   nt_tilemap_skewed()) and `.derange` with `:derange` (Herrmann 2016 Table 1's reading is
 *   `:grid:derange`, docs/fidelity.md);
 * - `chunk:D:SEED[:HxW]`: ChunkSet, nt_tilemap_chunk(), or with `:HxW`
 *   nt_tilemap_chunk_swath() with swath sides up to H x W (0 is not accepted; the paper's
 *   reading is sides up to ceil(side/3));
 * - `band:W:PxQ`: see nt_tilemap_band();
 * - `file:PATH`: see nt_tilemap_from_file() (PATH is the rest of the spec).
 *
 * @param[in]  spec     the spec, NUL-terminated.
 * @param[in]  mt       tile rows, >= 1.
 * @param[in]  nt       tile columns, >= 1.
 * @param[in]  ndomains the domain count D: required (>= 1) for random and balanced; for the
 *                      others 0 means "as the spec says" (P*Q for bc2d, skewed and band, D for
 *                      chunk, 1 + the largest id for file) and any other value must equal it
 *                      (for file: every id must be below it).
 * @param[out] out      the new map, to free with nt_tilemap_destroy(); untouched on failure.
 * @retval NT_OK     success.
 * @retval NT_EINVAL spec or out NULL, a malformed spec (the message gives the 0-based character
 *                   position and the reason, e.g. "DIST 'bc2d:4x' at 7: expected a positive
 *                   integer"), a domain count that disagrees with ndomains, bad mt/nt, or a
 *                   malformed file (the message gives the line).
 * @retval NT_EIO    the file of a file: spec cannot be read.
 * @retval NT_ERANGE a number overflows (P*Q beyond INT_MAX), or mt * nt is more than
 *                   ::NT_TILEMAP_MAX_TILES, or the domains more than ::NT_TILEMAP_MAX_LABELS.
 * @retval NT_ENOMEM allocation failed.
 */
nt_status nt_tilemap_from_spec(const char *spec, int64_t mt, int64_t nt, int ndomains,
                               nt_tilemap_t **out);

/**
 * \brief The DIST grammar nt_tilemap_from_spec() accepts, one alternative per distribution,
 *        for help texts: "bc2d:PxQ[:SMBxSNB] | bc1d:P | ... | file:PATH".
 *
 * Works like snprintf(): writes at most cap bytes, NUL included (nothing when cap is 0), and
 * returns the length of the whole text, so a call with cap = 0 sizes the buffer.
 * @param[out] buf the text, or NULL when cap is 0.
 * @param[in]  cap size of buf in bytes.
 * @return the length of the grammar text, without the NUL.
 */
size_t nt_tilemap_spec_grammar(char *buf, size_t cap);

/**
 * \brief 2D block-cyclic map with super-blocks (ScaLAPACK-style, row-major process grid).
 *
 * Tile (i,j) -> ((i/smb) mod p) * q + ((j/snb) mod q); ndomains = p * q.
 * @param[in]  mt,nt    tile grid, >= 1 each.
 * @param[in]  p,q      process grid, >= 1 each, p * q <= INT_MAX.
 * @param[in]  smb,snb  super-block size in tiles, >= 1 each (1 = plain block-cyclic).
 * @param[out] out      the new map; untouched on failure.
 * @retval NT_OK success. @retval NT_EINVAL a parameter < 1 or out NULL.
 * @retval NT_ERANGE p * q or mt * nt overflows. @retval NT_ENOMEM allocation failed.
 */
nt_status nt_tilemap_bc2d(int64_t mt, int64_t nt, int p, int q, int64_t smb, int64_t snb,
                          nt_tilemap_t **out);

/**
 * \brief Independent uniform domain per tile, tiles drawn in row-major order from the seed.
 * @param[in]  mt,nt    tile grid, >= 1 each.
 * @param[in]  ndomains domain count, >= 1.
 * @param[in]  seed     any value; the same seed gives the same map on every machine.
 * @param[out] out      the new map; untouched on failure.
 * @retval NT_OK success. @retval NT_EINVAL bad parameter. @retval NT_ERANGE size overflow.
 * @retval NT_ENOMEM allocation failed.
 */
nt_status nt_tilemap_random(int64_t mt, int64_t nt, int ndomains, uint64_t seed,
                            nt_tilemap_t **out);

/**
 * \brief Random balanced map: domain d holds floor(T/D) tiles plus one more when d < T mod D
 *        (T = mt * nt), at uniformly shuffled positions.
 * @param[in]  mt,nt    tile grid, >= 1 each.
 * @param[in]  ndomains domain count D, >= 1.
 * @param[in]  seed     any value; same seed, same map.
 * @param[out] out      the new map; untouched on failure.
 * @retval NT_OK success. @retval NT_EINVAL bad parameter. @retval NT_ERANGE size overflow.
 * @retval NT_ENOMEM allocation failed.
 */
nt_status nt_tilemap_balanced(int64_t mt, int64_t nt, int ndomains, uint64_t seed,
                              nt_tilemap_t **out);

/** \brief Which reading of SkewedSet's destination probabilities (Herrmann 2016 §6). */
typedef enum nt_skew_mode {
    /** Default: the destination's grid row r and grid column c are drawn independently, r
        with probability 2r/(p(p-1)) and c with 2c/(q(q-1)) (a side of length 1 always gives
        0); the destination is r * q + c. On 4x4 the busiest domain receives a quarter of the
        moved tiles, which is what the paper's step counts need (docs/fidelity.md). */
    NT_SKEW_GRID = 0,
    /** The destination domain k in 0..D-1, D = p * q, is drawn with probability 2k/(D(D-1))
        (the one-dimensional reading of the corrected formula; the busiest domain receives
        2/D of the moved tiles). Gives the same maps as NT_SKEW_GRID when p or q is 1. */
    NT_SKEW_DOMAIN = 1
} nt_skew_mode;

/** \brief Options of nt_tilemap_skewed_ex(). Zero-initialise for the defaults. */
typedef struct nt_skew_opts {
    nt_skew_mode mode; /**< destination probabilities (default NT_SKEW_GRID) */
    /** Relabel the whole map by a uniformly random derangement of the D domains (drawn from
        the seed, on a stream of its own: the moves are the same as without it), so that the
        reference block-cyclic map is "arbitrary" as in the paper: its canonical labelling
        keeps no component on its reference domain, and moves about N - N/(2D) tiles as the
        paper's canonical volumes do. No effect when D = 1. */
    bool derange;
} nt_skew_opts_t;

/**
 * \brief SkewedSet (Herrmann 2016 §6, typo corrected) with the default options: start from
 *        bc2d:pxq; then each tile, with probability 1/2, is given to a destination drawn as
 *        NT_SKEW_GRID says (the draw may return the tile's current domain). Domains in grid
 *        row 0 or grid column 0 never receive. With D = p * q = 1 every tile stays on 0.
 * @param[in]  mt,nt tile grid, >= 1 each.
 * @param[in]  p,q   process grid, >= 1 each.
 * @param[in]  seed  any value; same seed, same map.
 * @param[out] out   the new map (ndomains = p * q); untouched on failure.
 * @retval NT_OK success. @retval NT_EINVAL bad parameter. @retval NT_ERANGE size overflow.
 * @retval NT_ENOMEM allocation failed.
 */
nt_status nt_tilemap_skewed(int64_t mt, int64_t nt, int p, int q, uint64_t seed,
                            nt_tilemap_t **out);

/**
 * \brief SkewedSet with a choice of reading: nt_tilemap_skewed() with opts.
 *
 * The tiles are visited in row-major order; each draws from the seed's stream a coin, then
 * (when it moves) its destination: one index for NT_SKEW_DOMAIN, row then column for
 * NT_SKEW_GRID.
 * @param[in]  mt,nt tile grid, >= 1 each.
 * @param[in]  p,q   process grid, >= 1 each.
 * @param[in]  opts  options, or NULL for the defaults (NT_SKEW_GRID, no derangement).
 * @param[in]  seed  any value; same seed and options, same map.
 * @param[out] out   the new map (ndomains = p * q); untouched on failure.
 * @retval NT_OK success. @retval NT_EINVAL bad parameter or unknown mode.
 * @retval NT_ERANGE size overflow. @retval NT_ENOMEM allocation failed.
 */
nt_status nt_tilemap_skewed_ex(int64_t mt, int64_t nt, int p, int q, const nt_skew_opts_t *opts,
                               uint64_t seed, nt_tilemap_t **out);

/**
 * \brief ChunkSet (Herrmann 2016 §6) as the `chunk:` spec builds it: random rectangles of
 *        tiles stored round-robin on domains 0, 1, .., D-1, 0, ..; later rectangles overwrite
 *        earlier ones; rectangles are drawn until every tile is covered. Sides up to half the
 *        grid: nt_tilemap_chunk_swath() with hmax = max(1, mt/2), wmax = max(1, nt/2).
 *
 * These swaths load the busiest domain with about 3 times the mean and give step counts
 * about 35% above the paper's Table 1; nt_tilemap_chunk_swath() with hmax = wmax = 0 is the
 * calibrated reading (docs/fidelity.md).
 * @param[in]  mt,nt    tile grid, >= 1 each.
 * @param[in]  ndomains domain count D, >= 1.
 * @param[in]  seed     any value; same seed, same map.
 * @param[out] out      the new map; untouched on failure.
 * @retval NT_OK success. @retval NT_EINVAL bad parameter. @retval NT_ERANGE size overflow.
 * @retval NT_ENOMEM allocation failed.
 */
nt_status nt_tilemap_chunk(int64_t mt, int64_t nt, int ndomains, uint64_t seed,
                           nt_tilemap_t **out);

/**
 * \brief ChunkSet with a chosen swath size.
 *
 * Rectangle r (r = 0, 1, ..) goes to domain r mod D; it has h rows uniform in 1..hmax and w
 * columns uniform in 1..wmax; its top-left corner is uniform over the positions where it
 * meets the grid (row in -(h-1)..mt-1, column in -(w-1)..nt-1) and it is clipped to the grid,
 * so edge tiles are covered as readily as inner ones. Draws per rectangle, in order: h, w, the
 * corner's row, the corner's column.
 * @param[in]  mt,nt    tile grid, >= 1 each.
 * @param[in]  ndomains domain count D, >= 1.
 * @param[in]  hmax     largest swath height, >= 0; 0 = ceil(mt/3), the reading that matches
 *                      the paper's Table 1 (docs/fidelity.md); values above mt count as mt.
 * @param[in]  wmax     largest swath width, >= 0; 0 = ceil(nt/3); values above nt count as nt.
 * @param[in]  seed     any value; same seed and sizes, same map.
 * @param[out] out      the new map; untouched on failure.
 * @retval NT_OK success. @retval NT_EINVAL bad parameter (a negative side bound).
 * @retval NT_ERANGE size overflow. @retval NT_ENOMEM allocation failed.
 */
nt_status nt_tilemap_chunk_swath(int64_t mt, int64_t nt, int ndomains, int64_t hmax,
                                 int64_t wmax, uint64_t seed, nt_tilemap_t **out);

/**
 * \brief Band map: tiles with |i - j| < w go to domain i mod (p*q), the others as bc2d:pxq.
 * @param[in]  mt,nt tile grid, >= 1 each.
 * @param[in]  w     band half-width in tiles, >= 1 (w = 1: the diagonal only).
 * @param[in]  p,q   process grid, >= 1 each.
 * @param[out] out   the new map (ndomains = p * q); untouched on failure.
 * @retval NT_OK success. @retval NT_EINVAL bad parameter. @retval NT_ERANGE size overflow.
 * @retval NT_ENOMEM allocation failed.
 */
nt_status nt_tilemap_band(int64_t mt, int64_t nt, int64_t w, int p, int q, nt_tilemap_t **out);

/**
 * \brief Read a tile map from a text file: one line per tile row, nt whitespace-separated
 *        decimal domain ids per line. Blank lines and text after `#` are ignored.
 * @param[in]  path     file to read.
 * @param[in]  mt,nt    expected tile grid, >= 1 each; the file must have exactly mt rows of nt
 *                      ids.
 * @param[in]  ndomains 0 = 1 + the largest id; otherwise every id must be below it.
 * @param[out] out      the new map; untouched on failure.
 * @retval NT_OK     success.
 * @retval NT_EINVAL bad parameter, or a malformed file; the message names the file and the
 *                   line ("line 3: expected 8 domain ids, found 7", "line 2: junk 'x1'",
 *                   "line 4: domain 9 out of range 0..7", "6 rows, expected 8").
 *                   Also: path is not a regular file (a directory, device or FIFO: refused
 *                   at once, never read or waited on).
 * @retval NT_EIO    the file cannot be opened or read.
 * @retval NT_ERANGE size overflow, or the file is larger than mt x nt ids can take (12
 *                   bytes each, plus 1 MiB of comments and blank lines): refused before it is
 *                   read. @retval NT_ENOMEM allocation failed.
 */
nt_status nt_tilemap_read(const char *path, int64_t mt, int64_t nt, int ndomains,
                          nt_tilemap_t **out);

/** \brief Old name of nt_tilemap_read(), kept one release (NEWS.md): readers of files end in
 *         _read.
 * @param[in] path,mt,nt,ndomains as there. @param[out] out as there.
 * @retval NT_OK as there. @retval NT_EINVAL as there. */
NT_DEPRECATED("use nt_tilemap_read")
nt_status nt_tilemap_from_file(const char *path, int64_t mt, int64_t nt, int ndomains,
                               nt_tilemap_t **out);

/**
 * \brief Build a tile map from the caller's function, called once per tile in row-major order.
 * @param[in]  mt,nt    tile grid, >= 1 each.
 * @param[in]  ndomains domain count, >= 1.
 * @param[in]  fn       owner function (not NULL).
 * @param[in]  arg      passed to fn.
 * @param[out] out      the new map; untouched on failure.
 * @retval NT_OK     success.
 * @retval NT_EINVAL bad parameter, or fn returned a domain outside 0..ndomains-1 (the message
 *                   names the tile).
 * @retval NT_ERANGE size overflow. @retval NT_ENOMEM allocation failed.
 */
nt_status nt_tilemap_from_fn(int64_t mt, int64_t nt, int ndomains, nt_tilemap_fn fn, void *arg,
                             nt_tilemap_t **out);

/* ------------------------------------------------------------------------------------------ */
/* 1D item maps                                                                               */
/* ------------------------------------------------------------------------------------------ */

/**
 * \brief A distribution (owner = domain) or partition (owner = component) of n items.
 *        Created and destroyed by the library; callers may read and write the entries.
 */
typedef struct nt_dist1d {
    int64_t n;      /**< number of items, >= 1 */
    int ndomains;   /**< label count; every owner is in 0..ndomains-1 */
    int *owner;     /**< n entries: owner[x] is the label of item x */
} nt_dist1d_t;

/**
 * \brief Create a 1D map with every item on label 0.
 * @param[in]  n        items, 1..::NT_TILEMAP_MAX_TILES.
 * @param[in]  ndomains labels, >= 1.
 * @param[out] out      the new map, to free with nt_dist1d_destroy(); untouched on failure.
 * @retval NT_OK success. @retval NT_EINVAL bad parameter. @retval NT_ERANGE n or ndomains past
 *                   its cap (::NT_TILEMAP_MAX_TILES, ::NT_TILEMAP_MAX_LABELS).
 * @retval NT_ENOMEM allocation failed.
 */
nt_status nt_dist1d_create(int64_t n, int ndomains, nt_dist1d_t **out);

/**
 * \brief Free a 1D map and its owner array.
 * @param[in] d a map from the library, or NULL (then nothing happens).
 */
void nt_dist1d_destroy(nt_dist1d_t *d);

/**
 * \brief Canonical block map: item x -> floor(x * p / n) (blocks of floor or ceil n/p items,
 *        in order).
 * @param[in]  n   items, >= 1.
 * @param[in]  p   labels, >= 1.
 * @param[out] out the new map; untouched on failure.
 * @retval NT_OK success. @retval NT_EINVAL bad parameter. @retval NT_ERANGE size overflow.
 * @retval NT_ENOMEM allocation failed.
 */
nt_status nt_dist1d_block(int64_t n, int p, nt_dist1d_t **out);

/**
 * \brief Random balanced map: the multiset of the block map (each label floor or ceil of n/p
 *        items) shuffled uniformly (Fisher-Yates) with the seed.
 * @param[in]  n    items, >= 1.
 * @param[in]  p    labels, >= 1.
 * @param[in]  seed any value; same seed, same map.
 * @param[out] out  the new map; untouched on failure.
 * @retval NT_OK success. @retval NT_EINVAL bad parameter. @retval NT_ERANGE size overflow.
 * @retval NT_ENOMEM allocation failed.
 */
nt_status nt_dist1d_balanced(int64_t n, int p, uint64_t seed, nt_dist1d_t **out);

/**
 * \brief Herrmann's skewed initial distribution D_ini^alpha (2016, §4.3.2).
 *
 * n = p * d items; the target is the canonical block partition (component j = items
 * j*d..j*d+d-1). Let a = floor(alpha * d). For every component j, a items chosen uniformly at
 * random among its d items start on domain (j + 1) mod p; the other p * (d - a) items receive
 * a random balanced assignment in which every domain gets exactly d - a of them, so every
 * domain holds exactly d items in total (alpha = 0 is the random balanced distribution).
 * This is our reading of "randomly maps the other D - floor(alpha D) items to all P
 * processors" that keeps the balance the paper's formulas assume; with it the canonical
 * labelling moves d(p-1) + a items in expectation, as the paper states.
 * @param[in]  p     domains = components, >= 1.
 * @param[in]  d     items per component, >= 1.
 * @param[in]  alpha skew in [0, 1].
 * @param[in]  seed  any value; same seed, same map.
 * @param[out] out   the new map (n = p * d, ndomains = p); untouched on failure.
 * @retval NT_OK success. @retval NT_EINVAL bad parameter (alpha outside [0,1] or NaN).
 * @retval NT_ERANGE size overflow. @retval NT_ENOMEM allocation failed.
 */
nt_status nt_dist1d_skewed(int p, int64_t d, double alpha, uint64_t seed, nt_dist1d_t **out);

/**
 * \brief Build a 1D map from a DIST1D spec, the grammar of `numatile stencil --from`.
 *
 * Accepted specs (SEED: decimal digits only, 0..2^64-1; ALPHA: a decimal number in [0, 1]
 * that starts with a digit or '.', read with strtod()):
 * - `block`: the same as nt_dist1d_block(n, p);
 * - `balanced:SEED`: the same as nt_dist1d_balanced(n, p, SEED);
 * - `skewed:ALPHA:SEED`: the same as nt_dist1d_skewed(p, n / p, ALPHA, SEED); n must be a
 *   multiple of p.
 *
 * @param[in]  spec the spec, NUL-terminated.
 * @param[in]  n    items, >= 1.
 * @param[in]  p    domains, >= 1.
 * @param[out] out  the new map, to free with nt_dist1d_destroy(); untouched on failure.
 * @retval NT_OK     success.
 * @retval NT_EINVAL spec or out NULL; a malformed spec, the message naming the spec and what
 *                   was expected ("'blok': expected block, balanced:SEED or
 *                   skewed:ALPHA:SEED", "'balanced:x': expected balanced:SEED",
 *                   "'skewed:2:1': expected skewed:ALPHA:SEED, ALPHA in [0,1]"); skewed with
 *                   n not a multiple of p; n or p below 1.
 * @retval NT_ERANGE size overflow. @retval NT_ENOMEM allocation failed.
 */
nt_status nt_dist1d_parse(const char *spec, int64_t n, int p, nt_dist1d_t **out);

/**
 * \brief The DIST1D grammar nt_dist1d_parse() accepts, for help texts:
 *        "block | balanced:SEED | skewed:ALPHA:SEED".
 *
 * Works like snprintf(): writes at most cap bytes, NUL included (nothing when cap is 0), and
 * returns the length of the whole text, so a call with cap = 0 sizes the buffer.
 * @param[out] buf the text, or NULL when cap is 0.
 * @param[in]  cap size of buf in bytes.
 * @return the length of the grammar text, without the NUL.
 */
size_t nt_dist1d_spec_grammar(char *buf, size_t cap);

/* ------------------------------------------------------------------------------------------ */
/* Counting and costs                                                                         */
/* ------------------------------------------------------------------------------------------ */

/**
 * \brief Count matrix of a distribution against a partition, in O(n + p_ini * p_tar).
 *
 * items[i * p_tar + j] = number of items x with ini[x] = i and tar[x] = j;
 * weight[i * p_tar + j] = sum of size[x] over those items (size NULL = 1 per item).
 * @param[in]  n      items, >= 0.
 * @param[in]  ini    initial domain per item, n entries in 0..p_ini-1.
 * @param[in]  p_ini  source domains, >= 1.
 * @param[in]  tar    target component per item, n entries in 0..p_tar-1.
 * @param[in]  p_tar  target components, >= 1.
 * @param[in]  size   per-item sizes (>= 1 each), or NULL for unit sizes.
 * @param[out] items  p_ini * p_tar counts (caller's array), or NULL if not wanted.
 * @param[out] weight p_ini * p_tar weights (caller's array), or NULL if not wanted.
 *                    On failure neither output array is written.
 * @retval NT_OK     success.
 * @retval NT_EINVAL a label out of range, a size < 1 (the message names the item), NULL arrays.
 * @retval NT_ERANGE a weight sum overflows int64.
 * @retval NT_ENOMEM allocation of scratch failed.
 */
nt_status nt_counts_compute(int64_t n, const int *ini, int p_ini, const int *tar, int p_tar,
                            const int64_t *size, int64_t *items, int64_t *weight);

/**
 * \brief Count matrix of two tile maps of the same grid: rows = src's domains, columns =
 *        dst's labels (components). See nt_counts_compute().
 * @param[in]  src    initial distribution.
 * @param[in]  dst    target partition, same mt and nt as src.
 * @param[in]  size   per-tile sizes (row-major, mt*nt entries, >= 1) or NULL.
 * @param[out] items  src->ndomains * dst->ndomains counts, or NULL.
 * @param[out] weight same shape, weights, or NULL.
 * @retval NT_OK success. @retval NT_EINVAL NULL map, different grids, an owner out of range.
 * @retval NT_ERANGE overflow. @retval NT_ENOMEM allocation failed.
 */
nt_status nt_counts_tilemaps(const nt_tilemap_t *src, const nt_tilemap_t *dst,
                             const int64_t *size, int64_t *items, int64_t *weight);

/** \brief Costs of a redistribution (all in the units of the count or transfer matrix). */
typedef struct nt_cost {
    int64_t volume;      /**< RedistVol: what changes domain (sum of s_i) */
    int64_t local;       /**< what stays on its domain */
    int64_t steps;       /**< RedistSteps: max over domains of max(sent, received) */
    int64_t dist_volume; /**< sum over i != k of q[i][k] * dist[i][k]; 0 when no distances */
} nt_cost_t;

/**
 * \brief Transfer matrix of a labelling: q[i * p_dom + k] = what moves from domain i to
 *        domain k (k = i: what stays), i.e. the sum of n[i][j] over components j with
 *        sigma[j] = k.
 * @param[in]  counts p_ini x p_tar count matrix, entries >= 0.
 * @param[in]  p_ini  source domains, >= 1.
 * @param[in]  p_tar  components, >= 1.
 * @param[in]  p_dom  machine domains, >= max(p_ini, p_tar).
 * @param[in]  sigma  p_tar distinct domains in 0..p_dom-1.
 * @param[out] q      p_dom x p_dom caller's array (rows >= p_ini are zero); untouched on
 *                    failure.
 * @retval NT_OK success. @retval NT_EINVAL NULL array, bad sizes, sigma not injective or out of
 *         range, a negative count. @retval NT_ERANGE a sum overflows.
 */
nt_status nt_transfer_matrix(const int64_t *counts, int p_ini, int p_tar, int p_dom,
                             const int *sigma, int64_t *q);

/** \brief Old name of nt_transfer_matrix(), kept one release (NEWS.md).
 * @param[in] counts,p_ini,p_tar,p_dom,sigma as there. @param[out] q as there.
 * @retval NT_OK as there. @retval NT_EINVAL as there. */
NT_DEPRECATED("use nt_transfer_matrix")
nt_status nt_cost_transfer(const int64_t *counts, int p_ini, int p_tar, int p_dom,
                           const int *sigma, int64_t *q);

/**
 * \brief Costs of a transfer matrix: volume = off-diagonal sum, local = diagonal sum,
 *        steps = max_i max(s_i, r_i) with s_i, r_i the off-diagonal row and column sums, and
 *        dist_volume = sum_{i != k} q[i][k] * dist[i][k].
 * @param[in]  q    p x p transfer matrix, entries >= 0.
 * @param[in]  p    domains, >= 1.
 * @param[in]  dist p x p distances (>= 0), or NULL (dist_volume = 0).
 * @param[out] out  the costs; untouched on failure.
 * @retval NT_OK success. @retval NT_EINVAL NULL array, p < 1, a negative entry.
 * @retval NT_ERANGE a sum or product overflows int64.
 */
nt_status nt_transfer_cost(const int64_t *q, int p, const int64_t *dist, nt_cost_t *out);

/** \brief Old name of nt_transfer_cost(), kept one release (NEWS.md).
 * @param[in] q,p,dist as there. @param[out] out as there.
 * @retval NT_OK as there. @retval NT_EINVAL as there. */
NT_DEPRECATED("use nt_transfer_cost")
nt_status nt_cost_of_transfer(const int64_t *q, int p, const int64_t *dist, nt_cost_t *out);

/**
 * \brief Costs of placing component j on sigma[j] (nt_cost_transfer() then
 *        nt_cost_of_transfer(), in O(p_ini * p_tar + p_dom) time without the p_dom^2 matrix
 *        when dist is NULL).
 * @param[in]  counts p_ini x p_tar count matrix, entries >= 0.
 * @param[in]  p_ini  source domains, >= 1.
 * @param[in]  p_tar  components, >= 1.
 * @param[in]  p_dom  machine domains, >= max(p_ini, p_tar).
 * @param[in]  sigma  p_tar distinct domains in 0..p_dom-1.
 * @param[in]  dist   p_dom x p_dom distances (>= 0) or NULL.
 * @param[out] out    the costs; untouched on failure.
 * @retval NT_OK success. @retval NT_EINVAL bad argument (named in the message).
 * @retval NT_ERANGE overflow. @retval NT_ENOMEM scratch allocation failed.
 */
nt_status nt_cost_eval(const int64_t *counts, int p_ini, int p_tar, int p_dom, const int *sigma,
                       const int64_t *dist, nt_cost_t *out);

#ifdef __cplusplus
}
#endif
#endif
