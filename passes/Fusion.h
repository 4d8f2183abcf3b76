//===- Fusion.h - Elementwise chains run as one kernel ----------*- C++ -*-===//
//
// docs/cost-model.md §1, "Fusion": with `fuse = elementwise`, estimate-costs
// first finds the elementwise statements that run as one kernel
// (Fusion.cpp) and prices each kernel as one op.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_FUSION_H
#define SHARDC_PASSES_FUSION_H

#include "passes/Analyses.h"

namespace shardc {

class MeshCompile;

/// The fused kernels of \p C's lowered module, with their bytes per chip.
FusionTable findFusedKernels(const MeshCompile &C);

/// The cost of kernel \p K from its members' op costs \p Members (each
/// op's own, unfused): FLOPs and T_math summed, the kernel's bytes at the
/// memory-bound kernels' rate.
OpCost fusedKernelCost(const FusedKernel &K,
                       llvm::ArrayRef<const OpCost *> Members,
                       const ChipSpec &Chip);

} // namespace shardc

#endif // SHARDC_PASSES_FUSION_H
