//===- StepGenerator.h - Random training steps for tests and fuzzing -*- C++
//-*-===//
//
// Draws a whole training step of a transformer the way users write one
// (examples/llama3_8b_fp8_train.shard): optional embedding and loss head
// (embed, cross_entropy), a `repeat` of layers with a norm (rmsnorm or
// layernorm), attention (fused or not, causal or not, grouped-query heads),
// a gated or plain MLP or a MoE layer (expert tensor parallelism with either
// dispatch order), tensor and sequence parallelism, `fuse`,
// optionally pipelined over P (gpipe, 1f1b, interleaved), and a `train { }`
// block drawing from every setting (ZeRO, recompute, optimizer, overlap,
// fixed costs, fp8, syncs). Every choice comes from a Chooser, so the same
// generator serves the property tests (a seeded SplitMix64) and the
// structured fuzzer (the fuzzer's bytes). With WrongPercent > 0 a few
// choices are deliberately wrong (a dim that does not divide, an unknown
// setting's value, an int32 activation), so the error paths run too.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_TESTS_SUPPORT_STEPGENERATOR_H
#define SHARDC_TESTS_SUPPORT_STEPGENERATOR_H

#include "tests/support/ProgramGenerator.h"
#include <string>
#include <vector>

namespace shardc::testgen {

struct GenStep {
  std::string Cluster = "DGX_H100_Node";
  int64_t D = 8, P = 1, T = 1; ///< P = 1: no pipeline
  bool Seq = false;            ///< sequence parallelism (S_T), T > 1
  bool Head = false;           ///< embed and cross_entropy
  std::string Norm;            ///< "", "rmsnorm" or "layernorm"
  bool Attention = true, Fused = true, Causal = true;
  bool Gated = true, Moe = false;
  /// With Moe and Seq: the experts' F over T and moe's `dispatch` order
  /// (empty: the tokens are gathered first, as a user writes it by hand).
  std::string MoeDispatch;
  int64_t B = 8, S = 512, E = 1024, F = 4096, N = 8, K = 8, H = 128;
  int64_t V = 32768, X = 8, Top = 2;
  int64_t Layers = 1, Chunks = 1; ///< layers per stage and chunk
  /// `name = value` settings of the train block, in order.
  std::vector<std::pair<std::string, std::string>> Train;
  /// A deliberate mistake (WrongPercent): text replacing one line.
  std::string Wrong;

  std::string render() const;
};

/// Draws a step; \p WrongPercent of them carry one deliberate mistake.
GenStep generateStep(Chooser &C, unsigned WrongPercent = 0);

} // namespace shardc::testgen

#endif // SHARDC_TESTS_SUPPORT_STEPGENERATOR_H
