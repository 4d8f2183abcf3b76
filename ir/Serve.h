//===- Serve.h - What a serving program asks -------------------*- C++ -*-===//
//
// A file is a serving program when it has a `serve { }` block
// (docs/inference.md): its forward program is written once over phase dims
// (`dim B = batch, Q = new, S = context;`) and KV caches, and the serve
// engine (serve/) compiles it once per instance (prefill, decode) with
// those dims bound. The frontend checks the block and fills a ServeSpec:
// plain data, with where each thing was written.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_IR_SERVE_H
#define SHARDC_IR_SERVE_H

#include "diag/Location.h"
#include "ir/Hardware.h"
#include "ir/Types.h"
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

namespace shardc {

/// How requests share a replica (docs/inference.md, "Engine modes").
enum class ServeMode : uint8_t {
  Static,
  Interleaved,
  Continuous,
  Disaggregated
};

/// The three phase dims, in `dim B = batch, Q = new, S = context;` order.
enum class PhaseDim : uint8_t { Batch, New, Context };
constexpr unsigned NumPhaseDims = 3;

struct ServeSpec {
  int64_t Prompt = 0; ///< P, mean prompt tokens
  int64_t Output = 0; ///< G, tokens per request, the first from prefill
  /// The batches `batch` names, ascending, no duplicates (a range's powers
  /// of two and ends); `max` adds B_mem (BatchMax).
  std::vector<int64_t> Batches;
  bool BatchMax = false;
  /// `batch = N .. max`: the powers of two from N up to B_mem are named
  /// too; 0 otherwise.
  int64_t PowersFrom = 0;
  /// `batch` is a range: its entries are rounded up to multiples of the
  /// axes that shard the batch (a number or a list must be such multiples).
  bool BatchRange = false;
  ServeMode Mode = ServeMode::Static;
  int64_t Replicas = 1;
  /// `compute = bf16`: mixed-precision contractions' math dtype (set on
  /// each such op by the frontend; kept here for the report).
  std::optional<DType> Compute;
  double HbmUsable = 1.0;
  /// `kv_fraction`: instead of hbm_usable, the KV cache may take this share
  /// of the HBM the weights and workspace leave (TensorRT-LLM's and vLLM's
  /// convention).
  std::optional<double> KvFraction;
  /// `context = exact`: decode averaged over its steps' contexts, P + 1 to
  /// P + G - 1, rather than priced at their mean.
  bool ContextExact = false;
  std::optional<int64_t> MaxBatch;
  /// `chunk`: continuous batching's prefill tokens per step (none:
  /// unlimited, a whole prompt).
  std::optional<int64_t> Chunk;
  std::optional<double> Price; ///< currency per chip-hour
  /// Each phase dim's id, when declared.
  std::optional<DimId> Dims[NumPhaseDims];
  /// `speculate { tokens = g; accept = a; draft = d; }`.
  struct Speculation {
    int64_t Tokens = 1; ///< g, drafted per pass
    double Accept = 0;  ///< a, each drafted token's chance to be kept
    /// d: a draft token's time, or (DraftIsTime false) its share of T_dec.
    double Draft = 0;
    bool DraftIsTime = false;
    /// τ, the tokens a pass advances a sequence: (1 − a^(g+1)) / (1 − a).
    double tokensPerPass() const {
      return Accept >= 1
                 ? double(Tokens + 1)
                 : (1 - std::pow(Accept, double(Tokens + 1))) / (1 - Accept);
    }
  };
  std::optional<Speculation> Speculate;
  /// `mode = disaggregated`: the prefill pool's mesh (the program's own is
  /// the decode pool's) and the level the KV cache crosses, by index.
  std::optional<MeshSpec> PrefillMesh;
  Loc PrefillAt; ///< the `prefill` value
  unsigned LinkLevel = 0;
  Loc LinkAt;
  Loc At; ///< the `serve` keyword
  /// The declaration of the (decode pool's) mesh, or where `decode`
  /// names it.
  Loc MeshAt;
  Loc BatchAt; ///< the `batch` value, or the block when not written

  /// Decode's mean context S̄ = P + G/2, and the capacity S_cap = P + G
  /// (+ g speculating: the drafted tokens are written before they are
  /// verified).
  double meanContext() const { return double(Prompt) + double(Output) / 2; }
  int64_t capacity() const {
    return Prompt + Output + (Speculate ? Speculate->Tokens : 0);
  }
};

} // namespace shardc

#endif // SHARDC_IR_SERVE_H
