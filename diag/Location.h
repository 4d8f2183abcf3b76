//===- Location.h - Where something was written -----------------*- C++ -*-===//
//
// A source position every layer can hold without the frontend's buffers: the
// SourceMgr buffer it is in, and a 1-based line and column. The IR stores
// these on its ops; the diagnostic engine turns one back into a caret when a
// later phase reports at it.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_DIAG_LOCATION_H
#define SHARDC_DIAG_LOCATION_H

#include <cstdint>

namespace shardc {

struct Loc {
  uint32_t File = 0; ///< the SourceMgr buffer id; 0: unknown
  uint32_t Line = 0; ///< 1-based
  uint32_t Col = 0;  ///< 1-based, in bytes
  bool isValid() const { return File != 0 && Line != 0; }
  bool operator==(const Loc &O) const = default;
};

} // namespace shardc

#endif // SHARDC_DIAG_LOCATION_H
