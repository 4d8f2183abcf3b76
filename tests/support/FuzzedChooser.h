//===- FuzzedChooser.h - Fuzzer bytes as generator choices ------*- C++ -*-===//
//
// Adapts libFuzzer's FuzzedDataProvider to ProgramGenerator's Chooser, so a
// fuzzer mutates the choices (which tensors, which shardings, which sizes)
// rather than the text. Once the bytes run out every choice is its lowest
// value, which ends every loop of the generator. Header-only: only clang
// builds (fuzz/) have <fuzzer/FuzzedDataProvider.h>.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_TESTS_SUPPORT_FUZZEDCHOOSER_H
#define SHARDC_TESTS_SUPPORT_FUZZEDCHOOSER_H

#include "tests/support/ProgramGenerator.h"
#include <fuzzer/FuzzedDataProvider.h>

namespace shardc::testgen {

class FuzzedChooser final : public Chooser {
public:
  explicit FuzzedChooser(FuzzedDataProvider &P) : P(P) {}
  uint64_t between(uint64_t Lo, uint64_t Hi) override {
    return P.ConsumeIntegralInRange<uint64_t>(Lo, Hi);
  }

private:
  FuzzedDataProvider &P;
};

} // namespace shardc::testgen

#endif // SHARDC_TESTS_SUPPORT_FUZZEDCHOOSER_H
