/**
 * \file numatile/advise.h
 * \brief Redistribute or not, and to what: a time model calibrated by a machine profile
 *        (numatile/profile.h), and the advisor that ranks the candidates.
 *
 * Redistribution model (copy mode, as nt_plan_execute() runs it by default): target tiles of
 * at least a page whose domain and shape do not change are adopted (free); every other target
 * byte is first touched on its domain (fresh bytes / fault_gbs of that domain) and copied.
 * FREE schedule: every target domain j copies sum_i c_ij / copy_gbs[i][j] seconds, all at once,
 * and together they cannot beat the aggregate rate: copy time = max(max_j that sum, sum of all
 * c_ij / concurrent_gbs). STEPS schedule: the one-port phases of nt_sched_build() over the
 * off-diagonal copy bytes, each phase as long as its slowest pair, plus the local copies
 * (max_j c_jj / copy_gbs[j][j]) and one task overhead per phase. Both schedules add the
 * profile's fixed exec_seconds. Allocation and copy add.
 *
 * Kernel model (owner-computes, as nt_gemm() and nt_qr_factor() run it): every task runs on
 * the domain of the tile it writes; its time is its tile kernel's time on that domain
 * (tile_seconds scaled by the flops of edge tiles, rows x cols x inner / nb^3) plus, for each
 * tile it reads from another domain i, bytes x (1/read_gbs[i][d] - 1/read_gbs[d][d]) (at
 * least 0), plus task_seconds. The graph is the one the kernel submits, from its own graph
 * builder run dry (GEMM: one task per C tile with its whole k loop; QR: PLASMA's flat-tree
 * tile QR, GEQRT / UNMQR / TSQRT / TSMQR with their dependences and priorities); it is
 * list-scheduled as nt_task_graph_run() runs it: each domain has threads_per_domain threads,
 * and a free thread takes its domain's ready task of highest priority, then earliest
 * submitted. The prediction is the makespan of that schedule plus the
 * profile's fixed kernel_run_seconds. It is at least max(max_d busy_d / threads_per_domain,
 * critical path), both reported.
 *
 * Errors follow numatile/error.h: NT_OK or a negative code, out-parameters untouched on
 * failure, nt_last_error() names the bad argument.
 */
#ifndef NUMATILE_ADVISE_H
#define NUMATILE_ADVISE_H

#include <stdbool.h>
#include <stdint.h>

#include "numatile/dist.h"
#include "numatile/error.h"
#include "numatile/match.h"
#include "numatile/matrix.h"
#include "numatile/plan.h"
#include "numatile/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \brief The kernel an advice is for. */
typedef enum nt_advise_kernel {
    NT_ADVISE_GEMM = 0, /**< C = A B, A, B and C n x n placed alike (as `numatile gemm`) */
    NT_ADVISE_QR = 1    /**< tile QR of A (as `numatile qr`) */
} nt_advise_kernel;

/**
 * \brief Name of a kernel the advisor models, as the command line and the JSON reports
 *        spell it.
 * @param[in] kernel ::NT_ADVISE_GEMM or ::NT_ADVISE_QR.
 * @return "gemm", "qr", or "unknown" for another value (a static string).
 */
const char *nt_advise_kernel_name(nt_advise_kernel kernel);

/** \brief Predicted redistribution of one matrix. */
typedef struct nt_redist_pred {
    int64_t bytes_copied;  /**< bytes copied by tasks (adopted tiles excluded) */
    int64_t bytes_fresh;   /**< target bytes allocated and first touched */
    double alloc_seconds;  /**< first touch of the fresh bytes (the slowest domain) */
    double free_seconds;   /**< copies under the FREE schedule */
    double steps_seconds;  /**< copies under the one-port STEPS schedule */
    int64_t phases;        /**< one-port phases */
} nt_redist_pred_t;

/** \brief Predicted kernel run. */
typedef struct nt_kernel_pred {
    double seconds;        /**< simulated makespan + kernel_run_seconds */
    double work_seconds;   /**< max over domains of busy time / threads_per_domain */
    double path_seconds;   /**< critical path of the task graph */
    double remote_seconds; /**< sum over tasks of the remote-read surcharges */
    int64_t remote_reads;  /**< tile reads from another domain */
    int64_t tasks;         /**< tasks */
} nt_kernel_pred_t;

/**
 * \brief Predict a redistribution from its bytes (the arithmetic of the file comment).
 * @param[in]  prof        a profile (nt_profile_check() passes).
 * @param[in]  copy_bytes  D x D bytes copied, [i*D+j] from domain i to domain j, >= 0.
 * @param[in]  fresh_bytes D bytes allocated fresh on each domain, >= 0.
 * @param[out] out         the prediction; untouched on failure.
 * @retval NT_OK success. @retval NT_EINVAL NULL argument, bad profile, negative bytes.
 * @retval NT_ENOMEM allocation failed.
 */
nt_status nt_model_redist_bytes(const nt_profile_t *prof, const int64_t *copy_bytes,
                                const int64_t *fresh_bytes, nt_redist_pred_t *out);

/**
 * \brief Predict the execution of a plan (copy mode, tiles kept where they can be adopted).
 * @param[in]  prof a profile with the plan's domain count.
 * @param[in]  plan a plan from nt_plan_create() whose segments are stored (not periodic).
 * @param[in]  src  the plan's source matrix (only its descriptor is read).
 * @param[out] out  the prediction; untouched on failure.
 * @retval NT_OK success. @retval NT_EINVAL NULL argument, domain counts differ.
 * @retval NT_ENOTSUP a periodic plan. @retval NT_ENOMEM allocation failed.
 */
nt_status nt_model_redist(const nt_profile_t *prof, const nt_plan_t *plan,
                          const nt_matrix_t *src, nt_redist_pred_t *out);

/**
 * \brief Predict an owner-computes kernel on a placed matrix.
 * @param[in]  prof   a profile with A's domain count (A->ndomains <= prof->ndomains).
 * @param[in]  kernel GEMM (A square, B and C placed like A) or QR.
 * @param[in]  A      the matrix descriptor (memory not needed); mb = nb for QR.
 * @param[out] out    the prediction; untouched on failure.
 * @retval NT_OK success. @retval NT_EINVAL NULL argument, bad profile, GEMM on a non-square
 *         matrix, mb != nb, an unknown kernel. @retval NT_ENOMEM allocation failed.
 */
nt_status nt_model_kernel(const nt_profile_t *prof, nt_advise_kernel kernel,
                          const nt_matrix_t *A, nt_kernel_pred_t *out);

/** \brief Predicted run of the 1D stencil (nt_stencil_run()). */
typedef struct nt_stencil_pred {
    double seconds;      /**< iters x iter_seconds + kernel_run_seconds */
    double iter_seconds; /**< one iteration: the slowest domain */
    int64_t halo_items;  /**< items read from another domain per iteration (an item counts
                              once per domain that reads it) */
    int64_t max_items;   /**< items of the busiest domain */
} nt_stencil_pred_t;

/**
 * \brief Predict K iterations of the 3-point circular stencil on a 1D map: per iteration,
 *        domain d updates its items (stencil_item_seconds + work x stencil_round_seconds each,
 *        over threads_per_domain threads) and reads its halo (8 bytes per foreign neighbour,
 *        priced as a remote read, see the file comment), plus one task_seconds for the
 *        iteration's barrier; the slowest domain sets the iteration.
 * @param[in]  prof  a profile (map->ndomains <= prof->ndomains).
 * @param[in]  map   item -> domain.
 * @param[in]  work  extra rounds per update, >= 0 (nt_stencil_opts_t::work).
 * @param[in]  iters iterations, >= 0.
 * @param[out] out   the prediction; untouched on failure.
 * @retval NT_OK success. @retval NT_EINVAL NULL argument, bad profile, negative work or
 *         iters, more domains than the profile.
 */
nt_status nt_model_stencil(const nt_profile_t *prof, const nt_dist1d_t *map, int64_t work,
                           int64_t iters, nt_stencil_pred_t *out);

/** \brief Options of nt_advise(). Zero-initialise for the defaults. */
typedef struct nt_advise_opts {
    nt_advise_kernel kernel;   /**< the kernel to run afterwards */
    nt_exec_schedule schedule; /**< schedule of the redistributions (default FREE) */
    bool no_hetero;            /**< leave out the heterogeneous partitions */
} nt_advise_opts_t;

/** \brief One candidate: keep the current map, or redistribute to a target map. */
typedef struct nt_candidate {
    char name[48];           /**< "owner", "bc2d:PxQ/LABELLING", "hetero:ALGO/volume" */
    bool redistribute;       /**< false for "owner" */
    int *owner;              /**< mt x nt target map (row-major), owned by the advice */
    nt_redist_pred_t redist; /**< one operand's redistribution (zero for "owner") */
    double redist_seconds;   /**< every operand's redistribution: alloc + copy (GEMM: 3) */
    nt_kernel_pred_t kernel; /**< the kernel on the target map */
    double total_seconds;    /**< redist_seconds + kernel.seconds */
} nt_candidate_t;

/** \brief The ranked candidates (create with nt_advise(), free with nt_advice_destroy()). */
typedef struct nt_advice {
    int64_t mt;             /**< tile rows */
    int64_t nt;             /**< tile columns */
    int count;              /**< candidates */
    nt_candidate_t *cand;   /**< by predicted total time, fastest first: cand[0] is the
                                 choice; equal maps reached by several labellings appear once */
} nt_advice_t;

/**
 * \brief Rank "compute where the data are" against "redistribute, then compute" for every
 *        candidate target: bc2d:PxQ for every P x Q = D, each with the labellings canonical,
 *        volume, steps, lex and (with distances) distance; and, for square tile grids and
 *        unless opts->no_hetero, the heterogeneous partitions ColumnBased, NRRP and SNRRP
 *        built from the profile's speeds (nt_profile_speeds()), placed by nt_hetero_place()
 *        for the least volume.
 * @param[in]  prof    a profile of current's topology (same domain count).
 * @param[in]  current the placed matrix (descriptor; its topology gives the domains).
 * @param[in]  opts    options, or NULL for the defaults.
 * @param[out] out     the advice; untouched on failure.
 * @retval NT_OK success. @retval NT_EINVAL NULL argument, current without topology, domain
 *         counts differ, bad options. @retval NT_ENOMEM, NT_ERANGE as the calls it makes.
 */
nt_status nt_advise(const nt_profile_t *prof, const nt_matrix_t *current,
                    const nt_advise_opts_t *opts, nt_advice_t **out);

/**
 * \brief Free an advice and its candidates' maps.
 * @param[in] advice an advice, or NULL (then nothing happens).
 */
void nt_advice_destroy(nt_advice_t *advice);

#ifdef __cplusplus
}
#endif
#endif
