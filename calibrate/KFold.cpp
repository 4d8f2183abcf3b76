//===- KFold.cpp - k-fold cross-validation of a calibration fit -----------===//
#include "calibrate/KFold.h"
#include <cmath>

namespace shardc::calibrate {

double meanAbs(llvm::ArrayRef<double> Errors) {
  double S = 0;
  for (double E : Errors)
    S += std::fabs(E);
  return Errors.empty() ? 0 : S / Errors.size();
}

} // namespace shardc::calibrate
