// Launchers of the kernel families (internal): api.cu validates arguments, dispatches and calls
// these. Each returns the launch's cudaError_t.
#pragma once

#include <cstdlib>

#include "kbit/gpu.h"
#include "kbit/tcv_sched.h"

namespace kbit::gpu::detail {

// An experiment knob's value (read once by each caller, into a static): the environment's variable of that name
// where it is set and not empty, else the build's.
inline int env_int(const char* name, int build) {
  const char* e = std::getenv(name);
  return e != nullptr && *e != '\0' ? std::atoi(e) : build;
}
inline bool env_knob(const char* name, bool build) { return env_int(name, build ? 1 : 0) != 0; }

cudaError_t launch_v0_linear(const LinearArgs& a);
cudaError_t launch_v0_moe(const MoeArgs& a);
cudaError_t launch_v0_dequant(const TiledView& w, void* out, OutType type, cudaStream_t stream);
cudaError_t launch_dequant(const TiledView& w, void* out, OutType type, cudaStream_t stream);
// The most 64-k tiles launch_dequant takes: its grid's y (at most 65535) holds groups of 8 tiles
// (K up to 33,553,920); dequantize() refuses more, and dispatch then never picks dequant_cublas.
inline constexpr int64_t kDequantMaxKTiles = int64_t{65535} * 8;
inline bool dequant_fits(const TiledView& w) { return k_tiles(w.K) <= kDequantMaxKTiles; }

// Scalar GEMV (M = 1..4), split-K through the workspace -- or, on grids of at most one CTA per SM
// with 2..8 K slices, through distributed shared memory in a thread-block cluster.
size_t gemv_workspace_bytes(int64_t M, const TiledView& w);
// gemv and grouped gemv index one matrix's (one expert's) blocks in 32 bits: its packed words must
// stay below 2^32 (16 GB, far above any model's matrix); dispatch and the API check this.
inline bool gemv_fits(const TiledView& w) { return w.expert_words() < (int64_t{1} << 32); }
cudaError_t launch_gemv(const LinearArgs& a);
// Whether the dense gemv decodes w by a pair table at this M (float2 codebook pairs, 32 KB of shared
// memory per CTA at k = 4, 16 KB at k = 3; the same products as the float codebook): k = 3 or 4 and
// at least kGemvPairsMinWeights weights (at M = 1 and k = 4 also a grid of at most one wave below 4,500 GB/s of
// peak DRAM bandwidth, gemv_pairs_multiwave: gemv.cu's launch_dense); k = 2 at
// M = 1, any size: a 128-byte table of adjacent element pairs (block_adjacent_pairs2; fp32 products
// as the float codebook, summed in another order), H100 against the float codebook in the same runs
// (bench/results/2026-11-26-h100-gemvadj) 1.041 geomean over the 27 catalogue shapes (1.00-1.12:
// Llama-3-70B gate_up 80.9 -> 74.9 us, down 47.5 -> 42.5); at M = 2..4 it measured 0.99 against
// the interleaved pair table those keep (kUsePairs, gemv_common.cuh). H100, against the
// float codebook in the same runs: k = 4 (bench/results/2026-11-26-h100-gemvpairs) 1.01-1.11x on the
// catalogue shapes from 8.4 M weights at M = 1..4 (Llama-3-70B down 54.4 -> 49.6 us at M = 1),
// 0.95-0.99x below 4.6 M, where staging the table is a visible part of a 4-8 us launch; k = 3
// (-gemvpairs3) 1.06-1.07x geomean from 8 M weights at M = 1..4, up to 1.18x (70B down 54.6 -> 46.2).
inline constexpr double kGemvPairsMinWeights = 8.0e6;
bool gemv_uses_pairs(const TiledView& w, int64_t M);
// Tests only: 1 makes gemv take the pair table at k = 3, 4 whatever the size (k = 2: at M = 1), 2
// never, 0 restores the rule. Applies to the whole process.
void gemv_force_pairs(int mode);
// Tests only: how many dense gemv launches of this process took a pair table.
int64_t gemv_pair_launches();
// Whether gemv's register-pipeline launches at M = 1, k = 2 look up activation-sum tables (KBIT_GEMV_LUT, gemv.cu;
// on unless the environment's KBIT_GEMV_LUT is 0 or a test forced it off); automatic's rule at M = 1, k = 2 follows.
// They do from kGemvLutMinWeights: below it (1.0-1.6 M weights, 1.8-3.5 us) they lost 0.1-1.9% against the codebook
// pairs, from 2.1 M they won 1.04-1.47x but on 2048 x 5120 under PDL (0.98x; bench/results/2026-11-28-h200-lutland).
inline constexpr double kGemvLutMinWeights = 2.0e6;
bool gemv_lut_enabled();
// Tests only: 1 makes the dense gemv's register-pipeline launches at M = 1, k = 2 look up activation-sum tables,
// 2 never, 0 the default (the environment's KBIT_GEMV_LUT, else the build's).
void gemv_force_lut(int mode);
// Tests only: how many dense gemv launches of this process took the activation-sum tables.
int64_t gemv_lut_launches();
// The balance (KBIT_GEMV_BALANCE, gemv.cu) pads only where at least this many CTAs per SM remain: grids of 1-2 per SM
// lost 0.88-0.98x padded (Qwen3 shared_expert.gate_up, 128 CTAs; GLM q_b_proj, 240), though Llama-3-8B k/v_proj (256)
// won 1.03-1.07x (bench/results/2026-11-28-h200-balance3).
inline constexpr int kGemvBalanceMinNeed = 3;
// Whether the balance is on (KBIT_GEMV_BALANCE, default on; gemv.cu): automatic's M = 1, k = 2 rule under PDL follows.
bool gemv_balance_enabled();
// Tests only: how many dense gemv launches of this process padded their dynamic shared memory for the balance
// (KBIT_GEMV_BALANCE: one-wave early PDL grids at M = 1 of >= kGemvBalanceMinNeed CTAs per SM).
int64_t gemv_balance_launches();
// Tests only: the CTAs per SM that the CUDA occupancy calculator gives gemv's early M = 1, k = 2 activation-sum kernel
// (f16) at the pad the balance asks for `need` CTAs per SM on this device; 0 where it asks for none (need outside
// kGemvBalanceMinNeed .. unpadded - 1, or the pad did not give `need`), -1 on a failed query, -2 with the balance off.
// `unpadded`: the CTAs per SM the launch path counts for that kernel's plans (unpadded).
int gemv_balance_resident(int need, int* unpadded);
// Diagnostics only (KBIT_GEMV_TIMELINE builds of gemv.cu; the stamps are gemv_common.cuh's gemv_tile's): the
// register pipeline's warps stamp each step into buf, a device buffer of gemv_timeline_words(ctas) words, for the
// first `ctas` CTAs of each launch (nullptr: off).
// Returns false in builds without the knob. Layout: [cta][warp 0..3][step 0..63][event 0..3] SM clocks, then
// [cta][6]: SM id, globaltimer at the tile's start and end (low 32 bits), steps run, SM clock at start and end.
bool gemv_timeline_set(uint32_t* buf, int ctas);
size_t gemv_timeline_words(int ctas);
inline constexpr int kGemvTlWarps = 4, kGemvTlSteps = 64, kGemvTlEvents = 4, kGemvTlCtaWords = 6;
// Tests only: 1 makes the dense gemv at M = 1 take its staged form wherever the plan allows it
// (gemv_staged_plan_ok) and the weights can be staged (N even, aligned arrays), 2 never, 0 restores
// the rule (gemv_use_staged). Applies to the whole process.
void gemv_force_staged(int mode);
// Tests only: how many dense gemv launches of this process took the staged form.
int64_t gemv_staged_launches();
// Tests only: what the staged launches covered since the last call, which resets it: bit d - 1 for a
// launch whose warps ran up to d k-tiles (d = 1..4), bit 4 (16) a PDL launch that let the next launch
// in at its wait, bit 5 (32) one that did after its main loop.
int gemv_staged_seen();
// Grouped scalar GEMV: any rows per expert (chunks of 4).
cudaError_t launch_grouped_gemv(const MoeArgs& a);

// Tensor-core GEMV (M = 1..16, register decode into mma fragments), split-K through the workspace.
size_t tcv_workspace_bytes(int64_t M, const TiledView& w, Act act);
cudaError_t launch_tcv(const LinearArgs& a);
// Grouped tensor-core GEMV: any rows per expert (work items of 8 or 16 rows).
cudaError_t launch_grouped_tcv(const MoeArgs& a);
// Whether tcv decodes w by a pair table (two roundings of W'; weight_roundings). The k = 4 table: a
// codebook of fp16-normal values (TiledView::half_cb) and, for the dense kernel, at least
// kTcvPairsMinWeights weights -- its 32 KB table (16 KB at k = 3), staged by every CTA, costs more
// than it saves on mid-size weights (H100: Llama-3-8B q_proj, 16.8 M weights, 11.9 -> 12.4 us at M
// = 1; Qwen3 dense.gate_up, 21 M, 13.6 -> 14.1; GLM shared_experts.gate_up, 42 M, 19.6 -> 18.1;
// bench/results/2026-11-25-h100-tcvpairs). The grouped kernel always uses it where half_cb allows.
inline constexpr double kTcvPairsMinWeights = 32.0e6;
// At k = 2 the dense tcv decodes by its 64-byte table of adjacent element pairs (tcv_decode.cuh;
// two roundings as well) where half_cb holds and M <= kTcvPairs2MaxM: H100, against the byte
// tables in the same runs (bench/results/2026-11-26-h100-tcvpairs2, 27 catalogue shapes) 1.125 /
// 1.114 / 1.074 geomean at M = 1 / 2 / 4 (Llama-3-70B gate_up M = 1 110.9 -> 87.1 us, down 67.1 ->
// 48.9), but 0.986 / 0.979 at M = 8 / 16 (0.90-1.12). The grouped kernel takes it by the same rule
// on its rows per expert. M: the dense call's rows; for the grouped kernel grouped_tcv_rows.
inline constexpr int64_t kTcvPairs2MaxM = 4;
// k = 3 decodes by a pair table (since 2026-11-27 the table of adjacent pairs, 64 rows:
// tcv_decode.cuh, stage_adj_table; measured below on block_nibbles' k = 4 table, its first 128 rows),
// with half_cb: the grouped kernel always, the dense one from kTcvPairsMinWeights at
// M <= kTcvPairs3MaxM. H100, against the byte tables in the same runs
// (bench/results/2026-11-26-h100-k3pairs): grouped 1.10-1.17x geomean at M = 1..16 tokens (Qwen3
// experts.gate_up M = 1 11.6 -> 9.6 us); dense on the 32 M+ shapes 1.04-1.13x at M = 1..4 (Llama-3-70B
// gate_up M = 4 127.7 -> 117.1), but 0.92-0.97x on 1-17 M shapes and 0.92-0.97x at M = 8 (geomean
// 0.947 / 0.915 at M = 8 / 16).
inline constexpr int64_t kTcvPairs3MaxM = 4;
// Since the forty-seventh session the dense k = 3 table starts at kTcvPairs3MinWeights, not kTcvPairsMinWeights.
// H200, tcv_pdl on the table (KBIT_TCV_PAIRS=1) against the rule before, in rotation, two reps
// (bench/results/2026-11-28-h200-s47p):
// - 8-32 M weights: 1.086x / 1.037x geomean at M = 2 / 4 (0.998-1.172x; Llama-3-8B q_proj 7.57 -> 6.68 us at M = 2,
//   GLM shared_experts.down 9.10 -> 7.77);
// - below 8 M: 0.997x / 1.002x (0.933-1.046x), so they keep the byte table;
// - M = 8, 16: no table at k = 3 (kTcvPairs3MaxM); equal within 0.7%.
// k = 4 keeps 32 M: its table lost on 8-32 M shapes (0.938-0.943x at M = 2, 4; 0.890x on Llama-3-70B k_proj) except
// Qwen3 dense.gate_up (1.06-1.09x). Dispatch's M = 2 rule for k = 3 (kernels/api.cu: pairs_m2) keeps the 32 M bound:
// below it gemv stayed ahead of tcv on its table at M = 2 (Llama-3-70B k_proj 4.72 against 5.46 us). KBIT_TCV_PAIRS3=32
// in the environment restores the 32 M bound, for A/B runs. Then old / new in one call (bench/results/2026-11-28-h200-
// s47l, M = 1..4): automatic_pdl 1.026x, automatic 1.031x over the 40 rows of 8-32 M weights (0.993-1.148x; M = 3
// 1.065x), the other rows 0.999x.
inline constexpr double kTcvPairs3MinWeights = 8.0e6;
// From kTcvPairsMinWeights the dense k = 3 table serves M <= kTcvPairs3MaxMBig. H200, tcv_pdl and automatic_pdl with the
// table to M = 8 (KBIT_TCV_PAIRS3_MAXM=8) against the rule before, in rotation, two reps (bench/results/2026-11-28-h200-
// s47k): from 32 M weights automatic_pdl 1.164x at M = 5 (1.070-1.273; Llama-3-70B down 74.96 -> 58.87 us), 1.104x at
// M = 6 (1.018-1.197), 1.004x at M = 8 (0.916-1.087: Llama-3-70B gate_up 125.5 -> 137.1); on 8-32 M tcv_pdl 1.006x /
// 0.983x / 0.940x at M = 5 / 6 / 8, so those keep kTcvPairs3MaxM. M = 7 was not measured.
inline constexpr int64_t kTcvPairs3MaxMBig = 6;
bool tcv_uses_pairs(const TiledView& w, bool grouped, int64_t M);
// The rows per expert grouped_tcv's decode is chosen by (tcv_uses_pairs' M: the k = 2 pair table to
// kTcvPairs2MaxM): the mean rows per active expert (moe_mean_rows; since the forty-fifth session, as its
// item sizing, grouped_tcv_two_tiles), or with KBIT_GTCV_NT_HINT=1 in the environment the caller's
// max_rows_per_expert_hint (moe_rows_hint), as before.
int64_t grouped_tcv_rows(int64_t E, int64_t total_rows, int max_rows_hint);
// tcv's plan at M rows on this GPU (lib/kbit/tcv_sched.h: tcv_plan_for and the queries on a plan:
// TcvPlan::short_k, its one pass where it would split K across more CTAs than SMs; tcv_latency, that
// pass or a cluster split-K grid of at most one CTA per SM; ...), which dispatch asks.
TcvPlan tcv_plan_of(int64_t M, const TiledView& w, Act act);
// Tests only: 1 makes the dense tcv take the k = 4 pair table (k = 3: at M <= kTcvPairs3MaxM)
// whatever the size (small shapes then exercise it; k = 2 follows its M rule either way), 0 restores
// the size rule. Applies to the whole process. At start it is 1 where KBIT_TCV_PAIRS=1 is in the environment.
void tcv_force_pairs(int mode);

// Tensor-core GEMM on wgmma (sm_90a builds on sm_90 devices only: launch only where
// tcw_available(), M <= kTcwMaxM); the workspace holds the permuted activations and the split-K partials.
bool tcw_available();
inline constexpr int64_t kTcwMaxM = 65535LL * 256;  // 256-token tiles on a grid of 65535 rows
size_t tcw_workspace_bytes(int64_t M, const TiledView& w);
// Whether tcw decodes w by the k = 4 pair table: k = 4 and a codebook of fp16-normal values
// (TiledView::half_cb), any size; weight_roundings reports it as two roundings.
bool tcw_uses_pairs(const TiledView& w);
// Whether tcw at M on w with activations `act` runs its plan's K slices as clusters (KBIT_TCW_CLUSTER in
// tcw_common.cuh: a per-tile plan of 2 slices with >= 4 MB of fp32 partials, every tile's cluster resident at
// once), launched with or without LinearArgs::pdl as `pdl` says; false where tcw cannot run. The launch decides
// the same way; choose_kernel reads it.
bool tcw_cluster_slices(int64_t M, const TiledView& w, Act act, bool pdl);
// Whether tcw launches k-bit weights under LinearArgs::pdl at M = 65..576 whatever its plan: every token
// tile's main kernels carry the PDL instructions (KBIT_TCW_PDL_MAXM, KBIT_TCW_PDL_BIG, KBIT_TCW_PDL64 and
// its bits in tcw_common.cuh, at their defaults); choose_kernel's PDL rules for M = 65..576 were measured so.
bool tcw_pdl_above64(int bits);
// Whether dispatch under live PDL gives k <= 3's short rows (K < 1024, N < 8192) tcw's bounds above M = 64
// (choose_kernel and this, api.cu); KBIT_TCW_SHORT_PDL=0 in the environment says no (A/B knob, read once).
bool tcw_short_rows_pdl();
// Whether dispatch under live PDL gives k <= 3's small narrow rows (N <= 1024, K >= 2048) tcw to M = 256 (K >= 4096:
// 320); KBIT_TCW_SMALL_PDL=0 in the environment says no (A/B knob, read once).
bool tcw_small_pdl();
// Whether plain launches (no live PDL) keep the tcw rules at M = 3..16 below 32 M weights that the forty-seventh
// session moved to tcv (choose_kernel): KBIT_TCW_MID_PLAIN=1 in the environment says yes (A/B knob, read once;
// default no).
bool tcw_mid_plain();
cudaError_t launch_tcw(const LinearArgs& a);
// Tests only: force tcw's work partition (0: by makespan, the default; 1: per tile; 2: stream-K,
// so that small shapes exercise the stream-K kernel and its fixup; 3: stream-K on at most 4 CTAs,
// so that each CTA's range runs many steps across tiles; 4: whole-tile runs on at most 4 CTAs, the
// stream-K kernel with no shared tile; 5: per tile, every split of 2..8 slices run as clusters, see
// KBIT_TCW_CLUSTER). Set it before the workspace query; it applies to the whole process.
void tcw_force_plan(int mode);
// Tests only: force tcw's token tile to mn (32, 64, 128, 160, 192, 224 or 256; the plan then has ceil(M / mn) token
// tiles, where that fits tcw_kernel's grid) instead of its choice; 0 chooses, a tile the build lacks
// (tcw_tile_built) is ignored. It combines with any tcw_force_plan mode and, like that, applies to the
// whole process and must be set before the workspace query. At start it is KBIT_TCW_MN in the environment (0 where
// unset: A/B runs of kbit-bench and kbit-verify force a tile so).
void tcw_force_tile(int mn);
// Diagnostics only (KBIT_TCW_TIMELINE builds, tcw_common.cuh): tcw_kernel's warps stamp each step into buf, a
// device buffer of tcw_timeline_words(ctas) words, for the first `ctas` CTAs of each launch (nullptr: off). Returns
// false in builds without the knob. Layout: [cta][warp 0..7][step 0..63][event 0..5] SM clocks, then [cta][6]:
// SM id, globaltimer at start and end (low 32 bits), steps run, SM clock at start and end.
bool tcw_timeline_set(uint32_t* buf, int ctas);
size_t tcw_timeline_words(int ctas);
// That layout's sizes: warps per CTA, steps and events stamped per warp, the CTA words after the stamps.
inline constexpr int kTcwTlWarps = 8, kTcwTlSteps = 64, kTcwTlEvents = 6, kTcwTlCtaWords = 6;
// Whether this build has tcw's kernels for token tile mn (160, 192, 224 only with KBIT_TCW_TILE160 / 192 / 224).
bool tcw_tile_built(int mn);
// Tests only: tcw's CTAs per SM at M on w: the plan's count (plan); the plan's kernel (tcw_kernel for
// a per-tile plan, the stream-K kernel for a stream-K one, f16) with the dynamic shared memory it is
// launched with (smem) with or without LinearArgs::pdl (resident; 0 where the query failed); and what
// the stream-K kernel holds at its unpadded size (streamk), which the plan counts unless its rule
// fell back to one CTA per SM (tcw_slots, lib/kbit/tcw_sched.h).
struct TcwOccupancy {
  int plan = 0, resident = 0, smem = 0, streamk = 0;
  bool stream_k = false;
  bool cluster = false;  // the plan's K slices run as clusters (TcwPlan::cluster, and they fit the GPU)
  int mn = 0;            // the plan's token tile
};
TcwOccupancy tcw_occupancy(int64_t M, const TiledView& w, bool pdl);
// Grouped tcw (MoE, sm_90a: tcw_available()): an 8-token-tile permute of all routed rows into the
// workspace (grouped_tcw_workspace_bytes), then one CTA per (work item of <= 32, 64, 128 or 256
// rows, 128 weight rows) over all K, on a 1D grid of grouped_tcw_ctas CTAs (at most
// kGroupedTcwMaxCtas). MoeArgs::pdl is ignored.
inline constexpr int64_t kGroupedTcwMaxCtas = 0x7fffffff;  // gridDim.x
int64_t grouped_tcw_ctas(int64_t total_rows, const TiledView& w);
// Whether grouped_tcw on w takes the 64-token tile rule of its two-CTA-per-SM kernels (k = 3, 5 and k = 4 on the pair
// table, with KBIT_GTCW_MN64 on): the MoE dispatch's moe_tcw_min_mean follows it.
bool grouped_tcw_mn64(const TiledView& w);
// Tests only: grouped_tcw's token tile for total_rows on w (grouped_tcw_mn: the mean rows per expert); a tile
// of 32, 64, 128 or 256 forced on every launch from now on (0 restores the rule; whole process); the CTAs per SM
// the kernel of that tile on w holds at its launch's dynamic shared memory (0 where the query failed).
int grouped_tcw_token_tile(int64_t total_rows, const TiledView& w);
void grouped_tcw_force_mn(int mn);
int grouped_tcw_resident(const TiledView& w, Act act, int mn);
size_t grouped_tcw_workspace_bytes(int64_t total_rows, const TiledView& w);
cudaError_t launch_grouped_tcw(const MoeArgs& a);

// Tensor-core GEMM, split-K through the workspace.
size_t mma_workspace_bytes(int64_t M, const TiledView& w);
cudaError_t launch_mma(const LinearArgs& a);
cudaError_t launch_grouped_mma(const MoeArgs& a);

int device_sm_count();
// The current device's peak DRAM bandwidth in GB/s from its memory clock and bus width (peak_dram_gbps,
// lib/kbit/gemv_sched.h); 0 where the attributes cannot be read.
double device_peak_dram_gbps();
// Whether the current device launches thread-block clusters (sm_90 and later): the cluster split-K
// paths of gemv and tcv run only there.
bool device_has_clusters();
// Whether launches with programmatic dependent launch are safe and useful here (LinearArgs::pdl): an
// sm_90 or later device running kernels compiled for sm_90 or later (not JIT-compiled from older PTX,
// where pdl_wait() is empty). linear() and moe_linear() clear the flag where it is false, so the
// launchers follow args.pdl as it is.
bool device_has_pdl();
// Tests only: true makes device_has_clusters() false, so gemv and tcv plan as on a GPU without
// clusters (cross-CTA splits through the workspace; tcv's one pass where that rule applies); false
// restores the device's answer. Whole process.
void force_no_clusters(bool off);

}  // namespace kbit::gpu::detail
