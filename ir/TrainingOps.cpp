//===- TrainingOps.cpp - The ops a training step adds ---------------------===//
//
// The kinds derive-backward creates and no user writes: an elementwise
// builtin's derivative and a param's optimizer update (COST-MODEL.md §5,
// §6.4). The backward rules of the forward kinds are with them, in Ops.cpp.
//
//===----------------------------------------------------------------------===//
#include "ir/Ops.h"
#include <fmt/format.h>

using namespace shardc;

//===----------------------------------------------------------------------===//
// elementwise_grad
//===----------------------------------------------------------------------===//

double ElementwiseGradOp::flopsPerElement() const {
  return elementwiseGradFlops(Fn);
}

std::string ElementwiseGradOp::attrs(const TypeNames &) const {
  return fmt::format(" \"{}\" wrt {}", elementwiseName(Fn).str(), Wrt);
}

std::string ElementwiseGradOp::verify(const TypeNames &, bool Lowered) const {
  bool Mask = elementwiseGradReads(Fn) == GradReads::Mask;
  if (Mask) {
    if (numOperands() != 1)
      return "takes the output gradient (the mask is the forward's)";
    if (!operand(0)->type().sameDims(result()->type()) ||
        (Lowered && !operand(0)->type().sameSharding(result()->type())))
      return "its result must have the output gradient's dims and sharding";
    return "";
  }
  if (numOperands() != 2)
    return "takes the output gradient and one saved value";
  const ShardType &D = operand(0)->type(), &S = operand(1)->type();
  if (!D.sameDims(S) || !D.sameDims(result()->type()))
    return "operands and result must have the same dims";
  if (!D.sameSharding(S))
    return "the output gradient must be sharded like the saved value";
  if (Lowered && !S.sameSharding(result()->type()))
    return "the result must have the saved value's sharding";
  return "";
}

std::optional<OpWork> ElementwiseGradOp::work(const MeshSpec &M) const {
  OpWork W;
  W.Flops = operand(0)->type().localElements(M) * flopsPerElement();
  for (const Value *V : operands())
    W.HbmBytes += V->type().localBytes(M);
  W.HbmBytes += result()->type().localBytes(M);
  // Dropout's mask: 1 byte per element.
  if (elementwiseGradReads(Fn) == GradReads::Mask)
    W.HbmBytes += operand(0)->type().localElements(M);
  W.Elt = operand(0)->type().Elt;
  return W;
}

ShardType ElementwiseGradOp::naturalType() const {
  return withSharding(result()->type(), operand(numOperands() - 1)->type());
}

//===----------------------------------------------------------------------===//
// reduce
//===----------------------------------------------------------------------===//

std::string ReduceOp::attrs(const TypeNames &N) const {
  std::string Dims;
  for (const TensorDim &D : operand(0)->type().Dims)
    if (!result()->type().dimIndex(D.Id))
      Dims += (Dims.empty() ? "" : ", ") + N.Dims[D.Id];
  return " over [" + Dims + "]";
}

std::string ReduceOp::verify(const TypeNames &, bool Lowered) const {
  if (numOperands() != 1)
    return "takes one operand";
  const ShardType &In = operand(0)->type(), &Out = result()->type();
  if (!Out.dimsWithin(In) || Out.Dims.size() >= In.Dims.size())
    return "its result must have some of its operand's dims";
  if (Lowered && !(Out == naturalType()))
    return "its result must be sharded as its operand, with partial sums "
           "over the axes of the dims it sums";
  return "";
}

ShardType ReduceOp::naturalType() const {
  const ShardType &In = operand(0)->type();
  ShardType T = result()->type();
  T.Unreduced = In.Unreduced;
  for (TensorDim &D : T.Dims)
    D.Axes = In.Dims[*In.dimIndex(D.Id)].Axes;
  for (const TensorDim &D : In.Dims)
    if (!T.dimIndex(D.Id))
      for (AxisId A : D.Axes)
        T.Unreduced.insert(A);
  return T;
}

std::optional<OpWork> ReduceOp::work(const MeshSpec &M) const {
  OpWork W;
  W.Flops = operand(0)->type().localElements(M);
  W.HbmBytes = operand(0)->type().localBytes(M) + naturalType().localBytes(M);
  W.Elt = operand(0)->type().Elt;
  return W;
}

//===----------------------------------------------------------------------===//
// optimizer
//===----------------------------------------------------------------------===//

double OptimizerOp::flopsPerElement() const {
  switch (Kind) {
  case OptimizerKind::Adam:
    return 12;
  case OptimizerKind::Sgd:
    return 2;
  case OptimizerKind::None:
    return 0;
  }
  llvm_unreachable("every optimizer is handled");
}

double OptimizerOp::stateBytesPerElement(const TrainConfig &C, DType ParamElt) {
  // Master weights cost nothing extra when there are none or they have the
  // param's dtype: the param is its own master.
  bool HasMaster = C.Master && *C.Master != ParamElt;
  double MasterBytes = HasMaster ? dtypeBytes(*C.Master) : 0;
  switch (C.Optimizer) {
  case OptimizerKind::Adam:
    return 2 * dtypeBytes(C.State) + MasterBytes;
  case OptimizerKind::Sgd:
    return MasterBytes;
  case OptimizerKind::None:
    return 0;
  }
  llvm_unreachable("every optimizer is handled");
}

double OptimizerOp::bytesPerElement() const {
  // Reads the gradient, the state and the param; writes the state and the
  // param (COST-MODEL.md §6.4).
  TrainConfig C;
  C.Optimizer = Kind;
  C.Master = Master;
  C.State = State;
  // With a master_copy of its own (`fixed_costs = priced`), the update
  // works on the master alone: the copy reads it again and writes the
  // param.
  return dtypeBytes(Grad) + 2 * stateBytesPerElement(C, ParamElt) +
         (SeparateCopy ? 0 : 2 * dtypeBytes(ParamElt));
}

std::string OptimizerOp::attrs(const TypeNames &) const {
  return " " + optimizerName(Kind).str();
}

std::string OptimizerOp::verify(const TypeNames &, bool) const {
  if (numOperands() != 1)
    return "takes the synced gradient";
  if (!operand(0)->type().sameSharding(result()->type()) ||
      !operand(0)->type().Unreduced.empty())
    return "updates the shard its reduced gradient has";
  return "";
}

std::optional<OpWork> OptimizerOp::work(const MeshSpec &M) const {
  OpWork W;
  double Elements = operand(0)->type().localElements(M);
  W.Flops = Elements * flopsPerElement();
  W.HbmBytes = Elements * bytesPerElement();
  // Adam's moments are in the state dtype; SGD keeps none, so its update
  // runs at the fp32 rate (the default state's) whatever `state` says.
  W.Elt = Kind == OptimizerKind::Adam ? State : DType::fp32;
  return W;
}

//===----------------------------------------------------------------------===//
// The fixed costs: grad_norm, inf_check, master_copy, zero_grad
//===----------------------------------------------------------------------===//

std::string FixedCostOp::verify(const TypeNames &, bool) const {
  if (numOperands() != 1)
    return "takes one param's gradient or updated shard";
  if (!operand(0)->type().sameDims(result()->type()))
    return "its result must have its operand's dims";
  return "";
}

std::string GradNormOp::verify(const TypeNames &N, bool Lowered) const {
  if (!result()->type().Dims.empty() || result()->type().Elt != DType::fp32)
    return "its result is an fp32 scalar";
  if (numOperands() > 1)
    return "reads at most one gradient";
  if (numOperands() == 1 && !result()->type().Unreduced.empty())
    return "one gradient's sum of squares is local";
  return "";
}

/// A memory-bound pass over \p Bytes per chip, at \p Elt's vector rate.
static OpWork memoryPass(double Elements, double Bytes, DType Elt) {
  OpWork W;
  W.Flops = Elements;
  W.HbmBytes = Bytes;
  W.Elt = Elt;
  return W;
}

std::optional<OpWork> GradNormOp::work(const MeshSpec &M) const {
  // The step's total reads nothing: its partial sums are the operands'
  // scalars, and its AllReduce is the reshard after it.
  if (numOperands() == 0)
    return std::nullopt;
  const ShardType &G = operand(0)->type();
  OpWork W = memoryPass(2 * G.localElements(M), G.localBytes(M), G.Elt);
  return W;
}

std::optional<OpWork> InfCheckOp::work(const MeshSpec &M) const {
  const ShardType &G = operand(0)->type();
  return memoryPass(2 * G.localElements(M), 2 * G.localBytes(M), G.Elt);
}

std::string MasterCopyOp::attrs(const TypeNames &) const {
  return " from " + dtypeName(Master).str();
}

std::optional<OpWork> MasterCopyOp::work(const MeshSpec &M) const {
  const ShardType &P = result()->type();
  double Elements = P.localElements(M);
  return memoryPass(Elements, Elements * dtypeBytes(Master) + P.localBytes(M),
                    Master);
}

std::optional<OpWork> ZeroGradOp::work(const MeshSpec &M) const {
  const ShardType &G = result()->type();
  return memoryPass(0, G.localBytes(M), G.Elt);
}
