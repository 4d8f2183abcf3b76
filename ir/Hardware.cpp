//===- Hardware.cpp - Resolved chips, clusters and meshes -----------------===//
#include "ir/Hardware.h"
#include "llvm/Support/ErrorHandling.h"
#include <algorithm>
#include <limits>

using namespace shardc;

llvm::StringRef shardc::dtypeName(DType T) {
  switch (T) {
#define DTYPE(Name, Bytes)                                                     \
  case DType::Name:                                                            \
    return #Name;
#include "ir/DTypes.def"
  }
  llvm_unreachable("every dtype is in DTypes.def");
}

double shardc::dtypeBytes(DType T) {
  switch (T) {
#define DTYPE(Name, Bytes)                                                     \
  case DType::Name:                                                            \
    return Bytes;
#include "ir/DTypes.def"
  }
  llvm_unreachable("every dtype is in DTypes.def");
}

std::optional<DType> shardc::parseDType(llvm::StringRef Name) {
#define DTYPE(N, Bytes)                                                        \
  if (Name == #N)                                                              \
    return DType::N;
#include "ir/DTypes.def"
  return std::nullopt;
}

double LevelSpec::uplink() const {
  double W = std::numeric_limits<double>::infinity();
  if (UplinkBw > 0)
    W = UplinkBw;
  if (Bw > 0 && Size > 0)
    W = std::min(W, Bw / double(Size));
  return W;
}

int64_t ClusterSpec::numChips() const {
  // The frontend rejects clusters whose product overflows, so this is exact.
  int64_t N = 1;
  for (const LevelSpec &L : Levels)
    N *= L.Size;
  return N;
}

int64_t MeshSpec::numChips() const {
  int64_t N = 1;
  for (const MeshAxis &A : Axes)
    N *= A.Size;
  return N;
}

std::optional<unsigned> MeshSpec::axisIndex(llvm::StringRef Name) const {
  for (unsigned I = 0, E = Axes.size(); I != E; ++I)
    if (Axes[I].Name == Name)
      return I;
  return std::nullopt;
}
