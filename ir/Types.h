//===- Types.h - Sharded tensor types ---------------------------*- C++ -*-===//
//
// The book's `bf16[B_X, D]{U_Y}` as data. A type names its dims by interned
// id and its mesh axes by position in the mesh, never by size: the same type
// is valid on every mesh with the same axis names, and what depends on the
// sizes (local extents, bytes, divisibility) takes the mesh as an argument.
// Axis sets are 64-bit masks and dims compare as integers, so the planners
// that build thousands of types per contraction never allocate or compare
// strings.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_IR_TYPES_H
#define SHARDC_IR_TYPES_H

#include "ir/Hardware.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MathExtras.h"
#include <optional>
#include <string>
#include <vector>

namespace shardc {

/// A mesh axis: its position in the mesh (major to minor).
using AxisId = uint8_t;

/// A set of mesh axes as a bit mask (bit i: axis i). Iterates in axis order.
class AxisSet {
public:
  AxisSet() = default;
  static AxisSet of(llvm::ArrayRef<AxisId> Axes);
  static AxisSet fromBits(uint64_t Bits) { return AxisSet(Bits); }

  bool contains(AxisId A) const { return Bits >> A & 1; }
  void insert(AxisId A) { Bits |= uint64_t(1) << A; }
  void erase(AxisId A) { Bits &= ~(uint64_t(1) << A); }
  bool empty() const { return Bits == 0; }
  unsigned size() const { return unsigned(llvm::countPopulation(Bits)); }
  uint64_t bits() const { return Bits; }
  AxisSet operator|(AxisSet O) const { return AxisSet(Bits | O.Bits); }
  AxisSet operator&(AxisSet O) const { return AxisSet(Bits & O.Bits); }
  AxisSet without(AxisSet O) const { return AxisSet(Bits & ~O.Bits); }
  bool operator==(const AxisSet &O) const = default;
  /// The axes in increasing order.
  llvm::SmallVector<AxisId, 4> list() const;

private:
  explicit AxisSet(uint64_t B) : Bits(B) {}
  uint64_t Bits = 0;
};

/// The axes sharding one dim, major to minor: `I_XY` is {X, Y}.
using AxisList = llvm::SmallVector<AxisId, 4>;

/// The product of the sizes of \p Axes on \p M.
int64_t axesProduct(llvm::ArrayRef<AxisId> Axes, const MeshSpec &M);
int64_t axesProduct(AxisSet Axes, const MeshSpec &M);

/// A declared dim, interned: its index in the module's dim table.
using DimId = uint32_t;

/// One dim of a tensor: which dim, its global size, the axes sharding it.
struct TensorDim {
  DimId Id = 0;
  int64_t Size = 1;
  AxisList Axes;
  bool operator==(const TensorDim &O) const = default;
};

/// New sizes for some dims, by id: what binding a layout changes (a MoE's
/// capacity slots on another mesh, a dim a layout rebinds).
using DimSizeMap = llvm::DenseMap<DimId, int64_t>;

/// The sharding type of a value: `bf16[B_X, D]{U_Y}`.
struct ShardType {
  DType Elt = DType::bf16;
  llvm::SmallVector<TensorDim, 4> Dims;
  AxisSet Unreduced; ///< the partial-sum axes

  bool operator==(const ShardType &O) const = default;
  /// Same dims (ids and sizes) in the same order, whatever the sharding.
  bool sameDims(const ShardType &O) const;
  /// Gives each dim named in \p Sizes its size there.
  void rebind(const DimSizeMap &Sizes);
  /// Same dims with the same axes (the unreduced set and dtype may differ).
  bool sameSharding(const ShardType &O) const;
  /// Every dim of this type is a dim of \p O (same id and size), in any
  /// order: the operand of a broadcast.
  bool dimsWithin(const ShardType &O) const;
  std::optional<unsigned> dimIndex(DimId Id) const;
  /// The dim that axis \p A shards, if any.
  std::optional<unsigned> dimOfAxis(AxisId A) const;
  /// Every axis the type uses, on a dim or in the unreduced set.
  AxisSet axesUsed() const;
  /// True when no axis appears twice (on two dims, or on a dim and in {U}).
  bool axesDistinct() const;
  /// Per-chip extent of dim \p I: ceil(size / product of its axes), exact
  /// unless padding was allowed.
  int64_t localSize(unsigned I, const MeshSpec &M) const;
  double localElements(const MeshSpec &M) const;
  double localBytes(const MeshSpec &M) const;
  double globalElements() const;
  /// True when every dim divides evenly by the product of its axes.
  bool isEven(const MeshSpec &M) const;
  /// The first dim that does not divide evenly on \p M, if any.
  std::optional<unsigned> firstUneven(const MeshSpec &M) const;
};

/// \p T with \p Like's sharding: \p Like's dims and axes, no partial sums,
/// \p T's dtype.
inline ShardType withSharding(ShardType T, const ShardType &Like) {
  T.Dims = Like.Dims;
  T.Unreduced = {};
  return T;
}

/// The names a type is printed with: the module's dims and mesh axes.
struct TypeNames {
  std::vector<std::string> Dims; ///< indexed by DimId
  std::vector<std::string> Axes; ///< indexed by AxisId
};

/// The book's notation: `bf16[B_X, F_{data,model}]{U_Y}`.
std::string typeStr(const ShardType &T, const TypeNames &N,
                    bool WithDType = true);
/// `[B, F]`: the dims alone.
std::string dimListStr(const ShardType &T, const TypeNames &N);
/// `X`, `XY`, or `{data,model}` when a name is longer than one letter.
std::string axisSubscript(llvm::ArrayRef<AxisId> Axes, const TypeNames &N);
/// `X, Y`: axis names joined by \p Sep.
std::string axisNames(llvm::ArrayRef<AxisId> Axes, const TypeNames &N,
                      llvm::StringRef Sep = ", ");
/// The name of \p T's dim \p I.
std::string dimName(const TypeNames &N, const ShardType &T, unsigned I);
/// ` over [X, Y]`, as an op's printed attributes say it.
std::string overAxes(llvm::ArrayRef<AxisId> Axes, const TypeNames &N);

} // namespace shardc

#endif // SHARDC_IR_TYPES_H
