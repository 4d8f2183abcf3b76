//===- Types.cpp - Sharded tensor types -----------------------------------===//
#include "ir/Types.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace shardc;

AxisSet AxisSet::of(llvm::ArrayRef<AxisId> Axes) {
  AxisSet S;
  for (AxisId A : Axes)
    S.insert(A);
  return S;
}

llvm::SmallVector<AxisId, 4> AxisSet::list() const {
  llvm::SmallVector<AxisId, 4> Out;
  for (uint64_t B = Bits; B; B &= B - 1)
    Out.push_back(AxisId(llvm::countTrailingZeros(B)));
  return Out;
}

int64_t shardc::axesProduct(llvm::ArrayRef<AxisId> Axes, const MeshSpec &M) {
  int64_t N = 1;
  for (AxisId A : Axes)
    N *= M.Axes[A].Size; // bounded by the mesh's chip count
  return N;
}

int64_t shardc::axesProduct(AxisSet Axes, const MeshSpec &M) {
  int64_t N = 1;
  for (uint64_t B = Axes.bits(); B; B &= B - 1)
    N *= M.Axes[llvm::countTrailingZeros(B)].Size;
  return N;
}

bool ShardType::sameDims(const ShardType &O) const {
  if (Dims.size() != O.Dims.size())
    return false;
  for (size_t I = 0; I < Dims.size(); ++I)
    if (Dims[I].Id != O.Dims[I].Id || Dims[I].Size != O.Dims[I].Size)
      return false;
  return true;
}

void ShardType::rebind(const DimSizeMap &Sizes) {
  for (TensorDim &D : Dims)
    if (auto It = Sizes.find(D.Id); It != Sizes.end())
      D.Size = It->second;
}

bool ShardType::sameSharding(const ShardType &O) const {
  return Dims == O.Dims;
}

bool ShardType::dimsWithin(const ShardType &O) const {
  return llvm::all_of(Dims, [&](const TensorDim &D) {
    std::optional<unsigned> I = O.dimIndex(D.Id);
    return I && O.Dims[*I].Size == D.Size;
  });
}

std::optional<unsigned> ShardType::dimIndex(DimId Id) const {
  for (unsigned I = 0; I < Dims.size(); ++I)
    if (Dims[I].Id == Id)
      return I;
  return std::nullopt;
}

std::optional<unsigned> ShardType::dimOfAxis(AxisId A) const {
  for (unsigned I = 0; I < Dims.size(); ++I)
    if (llvm::is_contained(Dims[I].Axes, A))
      return I;
  return std::nullopt;
}

AxisSet ShardType::axesUsed() const {
  AxisSet S = Unreduced;
  for (const TensorDim &D : Dims)
    for (AxisId A : D.Axes)
      S.insert(A);
  return S;
}

bool ShardType::axesDistinct() const {
  AxisSet S = Unreduced;
  for (const TensorDim &D : Dims)
    for (AxisId A : D.Axes) {
      if (S.contains(A))
        return false;
      S.insert(A);
    }
  return true;
}

int64_t ShardType::localSize(unsigned I, const MeshSpec &M) const {
  int64_t Shards = axesProduct(Dims[I].Axes, M);
  return (Dims[I].Size + Shards - 1) / Shards;
}

double ShardType::localElements(const MeshSpec &M) const {
  double N = 1;
  for (unsigned I = 0; I < Dims.size(); ++I)
    N *= double(localSize(I, M));
  return N;
}

double ShardType::localBytes(const MeshSpec &M) const {
  return localElements(M) * dtypeBytes(Elt);
}

double ShardType::globalElements() const {
  double N = 1;
  for (const TensorDim &D : Dims)
    N *= double(D.Size);
  return N;
}

std::optional<unsigned> ShardType::firstUneven(const MeshSpec &M) const {
  for (unsigned I = 0; I < Dims.size(); ++I)
    if (Dims[I].Size % axesProduct(Dims[I].Axes, M) != 0)
      return I;
  return std::nullopt;
}

bool ShardType::isEven(const MeshSpec &M) const {
  return !firstUneven(M).has_value();
}

std::string shardc::axisSubscript(llvm::ArrayRef<AxisId> Axes,
                                  const TypeNames &N) {
  bool Short =
      llvm::all_of(Axes, [&](AxisId A) { return N.Axes[A].size() == 1; });
  std::string S = Short ? "" : "{";
  for (size_t I = 0; I < Axes.size(); ++I)
    S += (Short || I == 0 ? "" : ",") + N.Axes[Axes[I]];
  return Short ? S : S + "}";
}

std::string shardc::axisNames(llvm::ArrayRef<AxisId> Axes, const TypeNames &N,
                              llvm::StringRef Sep) {
  std::string S;
  for (size_t I = 0; I < Axes.size(); ++I)
    S += (I ? Sep.str() : "") + N.Axes[Axes[I]];
  return S;
}

std::string shardc::dimName(const TypeNames &N, const ShardType &T,
                            unsigned I) {
  return N.Dims[T.Dims[I].Id];
}

std::string shardc::overAxes(llvm::ArrayRef<AxisId> Axes, const TypeNames &N) {
  return " over [" + axisNames(Axes, N) + "]";
}

std::string shardc::typeStr(const ShardType &T, const TypeNames &N,
                            bool WithDType) {
  std::string S = WithDType ? dtypeName(T.Elt).str() : "";
  S += "[";
  for (size_t I = 0; I < T.Dims.size(); ++I) {
    S += (I ? ", " : "") + N.Dims[T.Dims[I].Id];
    if (!T.Dims[I].Axes.empty())
      S += "_" + axisSubscript(T.Dims[I].Axes, N);
  }
  S += "]";
  if (!T.Unreduced.empty())
    S += "{U_" + axisSubscript(T.Unreduced.list(), N) + "}";
  return S;
}

std::string shardc::dimListStr(const ShardType &T, const TypeNames &N) {
  std::string S = "[";
  for (size_t I = 0; I < T.Dims.size(); ++I)
    S += (I ? ", " : "") + N.Dims[T.Dims[I].Id];
  return S + "]";
}
