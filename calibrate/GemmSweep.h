//===- GemmSweep.h - A GEMM sweep and its chip ------------------*- C++ -*-===//
//
// Reads a GEMM sweep as scripts/measure_kernels.py writes it (a CSV whose
// header names at least m,n,k,batch,dtype,time_s; other columns, such as
// source, are kept or ignored; '#' lines are comments) and derives the
// chip's GEMM constants from it (docs/cost-model.md §1): the ceiling
// matmul_efficiency (the best GEMM measured, unless given), the tile
// classes and the wave overhead (calibrate/GemmFit.h), each with its
// 5-fold cross-validated error, the held-out GEMMs priced by
// passes/GemmModel's gemmTime on the fitted chip.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_CALIBRATE_GEMMSWEEP_H
#define SHARDC_CALIBRATE_GEMMSWEEP_H

#include "calibrate/GemmFit.h"
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

struct GemmRow {
  GemmPoint Point;
  std::string DType, Source;
  llvm::SMLoc Loc; ///< the row's first field
};

struct GemmSweep {
  std::string File;
  std::vector<GemmRow> Rows;
  llvm::SMLoc HeaderLoc;
};

/// Parses buffer \p Buffer; nothing after reporting errors.
std::optional<GemmSweep> parseGemmSweep(unsigned Buffer,
                                        DiagnosticEngine &Diags);

/// Which rows to fit, and the ceiling when it is not the best measured.
struct GemmSelection {
  std::string DType;                ///< empty: the sweeps' one dtype
  std::vector<std::string> Sources; ///< empty: every source
  double MinSeconds = 0;
  std::optional<double> Ceiling;
};

/// The chip derived from \p Base (its SMs and peaks) by the sweeps'
/// GEMMs; nothing after reporting errors. The block's Name is left to the
/// caller.
std::optional<PresetBlock> calibrateChip(llvm::ArrayRef<GemmSweep> Sweeps,
                                         const ChipSpec &Base,
                                         const GemmSelection &Sel,
                                         DiagnosticEngine &Diags);

} // namespace shardc::calibrate

#endif // SHARDC_CALIBRATE_GEMMSWEEP_H
