//===- CollectiveOps.cpp - Slices and collectives: their type rules -------===//
//
// The data-movement ops of a reshard plan (Ops.h): what a slice and each
// collective turn their operand into (the static rules the planners use to
// predict a step and the verifier to check one), their printed attributes,
// invariants and bytes moved.
//
//===----------------------------------------------------------------------===//
#include "ir/Backward.h"
#include "ir/Ops.h"
#include "llvm/ADT/STLExtras.h"
#include <fmt/format.h>

using namespace shardc;

std::string ReshardStepOp::verify(const TypeNames &N, bool) const {
  if (numOperands() != 1 || Axes.empty())
    return "takes one operand and at least one axis";
  const ShardType &In = operand(0)->type(), &Out = result()->type();
  if (!dimsIn(In.Dims.size()))
    return "names no valid dim";
  // Collectives and slices move or split data; they never convert it.
  if (In.Elt != Out.Elt)
    return "changes the dtype";
  if (!(apply(In) == Out))
    return "result type " + typeStr(Out, N) +
           " does not follow from the operand " + typeStr(In, N);
  return "";
}

ShardType SliceOp::rule(const ShardType &In, llvm::ArrayRef<AxisId> Axes,
                        unsigned Dim) {
  ShardType T = In;
  T.Dims[Dim].Axes.append(Axes.begin(), Axes.end());
  return T;
}

std::string SliceOp::attrs(const TypeNames &N) const {
  return overAxes(Axes, N) + " dim " + dimName(N, operand(0)->type(), Dim);
}

ShardType AllGatherOp::rule(const ShardType &In, llvm::ArrayRef<AxisId> Axes,
                            unsigned Dim) {
  ShardType T = In;
  for (AxisId A : Axes)
    llvm::erase_value(T.Dims[Dim].Axes, A);
  return T;
}

std::string AllGatherOp::attrs(const TypeNames &N) const {
  return overAxes(Axes, N) + " dim " + dimName(N, operand(0)->type(), Dim);
}

ShardType ReduceScatterOp::rule(const ShardType &In,
                                llvm::ArrayRef<AxisId> Axes, unsigned Dim) {
  ShardType T = In;
  for (AxisId A : Axes) {
    T.Unreduced.erase(A);
    T.Dims[Dim].Axes.push_back(A);
  }
  return T;
}

std::string ReduceScatterOp::attrs(const TypeNames &N) const {
  return overAxes(Axes, N) + " dim " + dimName(N, operand(0)->type(), Dim);
}

ShardType AllReduceOp::rule(const ShardType &In, llvm::ArrayRef<AxisId> Axes) {
  ShardType T = In;
  for (AxisId A : Axes)
    T.Unreduced.erase(A);
  return T;
}

std::string AllReduceOp::attrs(const TypeNames &N) const {
  return overAxes(Axes, N);
}

ShardType AllToAllOp::rule(const ShardType &In, llvm::ArrayRef<AxisId> Axes,
                           unsigned SrcDim, unsigned DstDim) {
  ShardType T = In;
  for (AxisId A : Axes) {
    llvm::erase_value(T.Dims[SrcDim].Axes, A);
    T.Dims[DstDim].Axes.push_back(A);
  }
  return T;
}

std::string AllToAllOp::attrs(const TypeNames &N) const {
  const ShardType &In = operand(0)->type();
  return overAxes(Axes, N) + " dim " + dimName(N, In, SrcDim) + " -> " +
         dimName(N, In, DstDim);
}

double shardc::collectiveGroupBytes(CollectiveKind K, const ShardType &In,
                                    const ShardType &Out,
                                    llvm::ArrayRef<AxisId> Axes,
                                    const MeshSpec &M) {
  switch (collectiveTraits(K).Volume) {
  case GroupVolume::Result:
    return Out.localBytes(M); // the gathered result
  case GroupVolume::Operand:
    return In.localBytes(M); // the unreduced array
  case GroupVolume::OperandTimesGroup:
    return In.localBytes(M) * double(axesProduct(Axes, M)); // the group's
  }
  llvm_unreachable("every volume is handled");
}

double CollectiveOp::groupBytes(const MeshSpec &M) const {
  return collectiveGroupBytes(collectiveKind(), operand(0)->type(),
                              result()->type(), Axes, M);
}
