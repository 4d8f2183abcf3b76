//===- KernelSweep.h - Kernel rates from kernel sweeps ---------*- C++ -*-===//
//
// The measured kernel rates of docs/cost-model.md §1 from the sweeps
// scripts/measure_kernels.py writes, as scripts/fit_kernels.py derives them:
//  - elementwise.csv (kernel, elements, bytes, time_s, ...): at the largest
//    size measured, `elementwise_efficiency` is the geometric mean of the
//    shares of hbm_bw the kernels of a training step reach (norms forward
//    and backward, activations, dropout, adds, softmax; the optimizer's
//    passes, fills and copies are not its kernels), and `hbm_efficiency`
//    the copy kernel's share (a measurement, not a fit);
//  - attention.csv (seq, head_dim, causal, backend, pass, time_s,
//    flops_executed, ...): `attention_efficiency` and
//    `attention_backward_efficiency`, the geometric means of the executed
//    FLOPs' shares of the bf16 peak, of the cudnn kernel (flash where the
//    sweep has no cudnn rows) at head dim 128, causal, sequences of 2048
//    and more.
// The geometric mean minimises the squared log time errors; its 5-fold
// error deals the kernels, sorted by name, to the folds in turn.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_CALIBRATE_KERNELSWEEP_H
#define SHARDC_CALIBRATE_KERNELSWEEP_H

#include "calibrate/Preset.h"
#include "ir/Hardware.h"
#include "llvm/Support/SMLoc.h"
#include <optional>
#include <string>
#include <vector>

namespace shardc {
class DiagnosticEngine;
} // namespace shardc

namespace shardc::calibrate {

/// One kernel's measured share of a peak, and where.
struct KernelRate {
  std::string Name;
  double Efficiency = 0;
  llvm::SMLoc Loc;
};

struct KernelSweep {
  enum Kind { Elementwise, Attention } Which = Elementwise;
  std::string File;
  llvm::SMLoc HeaderLoc;
  /// Elementwise: the step's kernels at the largest size; attention: the
  /// forward rows. Shares of hbm_bw or of the bf16 peak.
  std::vector<KernelRate> Rates;
  std::vector<KernelRate> Backward; ///< attention's backward rows
  std::optional<KernelRate> Copy;   ///< elementwise: the copy kernel
};

/// Parses buffer \p Buffer, an elementwise (\p Attention false) or an
/// attention sweep, and takes each row's share of \p Chip's figures;
/// nothing after reporting errors.
std::optional<KernelSweep> parseKernelSweep(unsigned Buffer, bool Attention,
                                            const ChipSpec &Chip,
                                            DiagnosticEngine &Diags);

/// Appends the rates' constants to \p B (and its comments); false after
/// reporting errors (too few kernels to cross-validate).
bool calibrateKernels(llvm::ArrayRef<KernelSweep> Sweeps, PresetBlock &B,
                      DiagnosticEngine &Diags);

} // namespace shardc::calibrate

#endif // SHARDC_CALIBRATE_KERNELSWEEP_H
