//===- JsonCheck.h - Is a report valid JSON with finite numbers -*- C++ -*-===//
//
// The fuzz targets' oracle for shardc's JSON and trace output. A small
// validating reader of its own: llvm/Support/JSON.h does not compile with
// clang 14 against libstdc++ 12 in C++20 (its Array holds a vector of the
// incomplete Value), and the fuzz targets are built with clang 14.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_TESTS_SUPPORT_JSONCHECK_H
#define SHARDC_TESTS_SUPPORT_JSONCHECK_H

#include "llvm/ADT/StringRef.h"
#include <string>

namespace shardc::testgen {

/// Why \p Text is not one JSON value (RFC 8259) whose numbers are all
/// finite doubles, with the byte offset; empty when it is.
std::string checkJsonText(llvm::StringRef Text);

} // namespace shardc::testgen

#endif // SHARDC_TESTS_SUPPORT_JSONCHECK_H
