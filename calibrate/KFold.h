//===- KFold.h - k-fold cross-validation of a calibration fit ---*- C++ -*-===//
//
// The one cross-validation every fit of `shardc calibrate` reports: the
// items (a level's collective points, a sweep's GEMMs, a kernel sweep's
// rates) are dealt to k folds in turn (item i to fold i mod k, in the
// order the caller gives them); each fold is held out once, the constants
// are fitted on the other folds, and each held-out item gets its error
// under that fit. Dealing in turn rather than at random keeps the printed
// errors the same from run to run.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_CALIBRATE_KFOLD_H
#define SHARDC_CALIBRATE_KFOLD_H

#include "llvm/ADT/ArrayRef.h"
#include <vector>

namespace shardc::calibrate {

/// Each item's held-out error under \p K-fold cross-validation. \p Fit is
/// given the other folds' items (an llvm::ArrayRef<T>) and returns the
/// error of a held-out item under its fit (callable as double(const T &)).
template <typename T, typename FitFn>
std::vector<double> kFoldErrors(llvm::ArrayRef<T> Items, unsigned K,
                                FitFn &&Fit) {
  std::vector<double> Errors(Items.size());
  for (unsigned Fold = 0; Fold < K; ++Fold) {
    std::vector<T> Train;
    for (size_t I = 0; I < Items.size(); ++I)
      if (I % K != Fold)
        Train.push_back(Items[I]);
    auto Error = Fit(llvm::ArrayRef<T>(Train));
    for (size_t I = Fold; I < Items.size(); I += K)
      Errors[I] = Error(Items[I]);
  }
  return Errors;
}

/// The mean of |E| over \p Errors.
double meanAbs(llvm::ArrayRef<double> Errors);

} // namespace shardc::calibrate

#endif // SHARDC_CALIBRATE_KFOLD_H
