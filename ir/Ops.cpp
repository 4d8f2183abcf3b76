//===- Ops.cpp - Each op kind's attributes, invariants and work -----------===//
#include "ir/Ops.h"
#include "ir/Backward.h"
#include "llvm/ADT/STLExtras.h"
#include <fmt/format.h>

using namespace shardc;

//===----------------------------------------------------------------------===//
// input
//===----------------------------------------------------------------------===//

std::string InputOp::attrs(const TypeNames &) const {
  return Cache ? " cache" : "";
}

std::string InputOp::verify(const TypeNames &, bool) const {
  return numOperands() == 0 ? "" : "takes no operands";
}

//===----------------------------------------------------------------------===//
// param
//===----------------------------------------------------------------------===//

std::string ParamOp::attrs(const TypeNames &N) const {
  return State ? " state " + typeStr(*State, N, /*WithDType=*/false) : "";
}

std::string ParamOp::verify(const TypeNames &, bool) const {
  if (numOperands() != 0)
    return "takes no operands";
  if (State && !State->sameDims(result()->type()))
    return "its state sharding must have the param's dims";
  return "";
}

//===----------------------------------------------------------------------===//
// contract
//===----------------------------------------------------------------------===//

llvm::StringRef shardc::dimRoleName(DimRole R) {
  switch (R) {
  case DimRole::Batch:
    return "batch";
  case DimRole::Contracted:
    return "contracted";
  case DimRole::FreeLhs:
    return "free_lhs";
  case DimRole::FreeRhs:
    return "free_rhs";
  }
  llvm_unreachable("every role is handled");
}

/// The per-chip extent of a contraction dim: the local size in whichever
/// operand holds it (after insertion shared dims are sharded alike).
static double localExtent(const ContractionDim &D, const ShardType &L,
                          const ShardType &R, const MeshSpec &M) {
  if (auto I = L.dimIndex(D.Id))
    return double(L.localSize(*I, M));
  if (auto I = R.dimIndex(D.Id))
    return double(R.localSize(*I, M));
  return double(D.Size);
}

std::optional<llvm::SmallVector<ContractionDim, 4>>
shardc::classifyContraction(const ShardType &L, const ShardType &R,
                            const ShardType &Out) {
  for (const TensorDim &D : Out.Dims)
    if (!L.dimIndex(D.Id) && !R.dimIndex(D.Id))
      return std::nullopt;
  llvm::SmallVector<ContractionDim, 4> Dims;
  for (const ShardType *Self : {&L, &R}) {
    const ShardType &Other = Self == &L ? R : L;
    for (const TensorDim &D : Self->Dims) {
      bool InOther = Other.dimIndex(D.Id).has_value();
      bool InOut = Out.dimIndex(D.Id).has_value();
      if (Self == &R && InOther)
        continue; // classified from the left operand
      if (!InOther && !InOut)
        return std::nullopt;
      DimRole Role = !InOther
                         ? (Self == &L ? DimRole::FreeLhs : DimRole::FreeRhs)
                     : InOut ? DimRole::Batch
                             : DimRole::Contracted;
      Dims.push_back({D.Id, D.Size, Role});
    }
  }
  return Dims;
}

/// An fp8 GEMM (Transformer Engine): it runs at the fp8 peak and reads
/// 1-byte copies of its operands; each cast it pays reads the operand and
/// writes the fp8 copy and its transpose (Hopper's fp8 GEMMs take both
/// operands K-major, so the backward reads the transposes), a memory-bound
/// kernel before the GEMM.
static void makeFp8(OpWork &W, const ShardType &L, const ShardType &R,
                    const ShardType &Out, const MeshSpec &M,
                    const ContractionOp::Fp8Gemm &F) {
  const double Fp8Bytes = dtypeBytes(DType::fp8);
  W.Elt = DType::fp8;
  W.HbmBytes = Out.localBytes(M);
  const ShardType *Operands[] = {&L, &R};
  for (unsigned I = 0; I < 2; ++I) {
    double Elems = Operands[I]->localElements(M);
    W.HbmBytes += Elems * Fp8Bytes;
    W.CastBytes +=
        F.Cast[I] * Elems * (dtypeBytes(Operands[I]->Elt) + 2 * Fp8Bytes);
  }
  W.HbmBytes += W.CastBytes;
  W.SerialBytes += W.CastBytes;
}

OpWork ContractionOp::workFor(const ShardType &L, const ShardType &R,
                              const ShardType &Out,
                              llvm::ArrayRef<ContractionDim> Dims,
                              const MeshSpec &M, const Fp8Gemm *F,
                              std::optional<DType> Math) {
  // FLOPs = 2 x product of all distinct dims, divided by the axes that shard
  // them: computed from local extents so padding is counted, and axes that
  // shard nothing repeat the work.
  OpWork W;
  double Local = 2, Global = 2;
  GemmShape &G = W.Gemm;
  G.M = G.N = G.K = G.Batch = 1;
  for (const ContractionDim &D : Dims) {
    double Extent = localExtent(D, L, R, M);
    Local *= Extent;
    Global *= double(D.Size);
    switch (D.Role) {
    case DimRole::FreeLhs:
      G.M *= Extent;
      break;
    case DimRole::FreeRhs:
      G.N *= Extent;
      break;
    case DimRole::Contracted:
      G.K *= Extent;
      break;
    case DimRole::Batch:
      G.Batch *= Extent;
      break;
    }
  }
  G.OutBytes = Out.localBytes(M);
  W.Flops = Local;
  W.UsefulFlops = Global;
  W.HbmBytes = L.localBytes(M) + R.localBytes(M) + Out.localBytes(M);
  W.Matmul = true;
  W.Elt = Math ? *Math : L.Elt;
  if (F)
    makeFp8(W, L, R, Out, M, *F);
  return W;
}

std::optional<OpWork> ContractionOp::work(const MeshSpec &M) const {
  OpWork W = workFor(operand(0)->type(), operand(1)->type(), result()->type(),
                     Dims, M, Fp8 ? &*Fp8 : nullptr, Math);
  W.UsefulFlops *= Used;
  if (Experts) {
    const ShardType &Wt = operand(Experts->Weight)->type();
    W.HbmBytes -= (1 - Experts->WeightShare) * Wt.localBytes(M);
    W.Flops *= Experts->FlopShare;
    W.Gemm.Batch *= Experts->FlopShare;
  }
  if (Accumulate) {
    W.AccumulateBytes = result()->type().localBytes(M);
    W.HbmBytes += W.AccumulateBytes;
  }
  return W;
}

void ContractionOp::rebindSizes(const DimSizeMap &Sizes) {
  for (ContractionDim &D : Dims)
    if (auto It = Sizes.find(D.Id); It != Sizes.end())
      D.Size = It->second;
}

void ContractionOp::backward(GradientBuilder &G) const {
  Value *DOut = G.grad(result());
  if (!DOut)
    return;
  // Megatron's order: the input (activation) gradient first, then the
  // weight gradient.
  auto IsParam = [](const Value *V) { return isa<ParamOp>(V->def()); };
  unsigned First = IsParam(operand(0)) && !IsParam(operand(1)) ? 1 : 0;
  for (unsigned I : {First, 1 - First}) {
    const Value *P = operand(I), *Q = operand(1 - I);
    if (!G.needsGrad(P))
      continue;
    ShardType T = G.gradType(P);
    Value *Other = G.saved(Q);
    // dp = dout * q and dq = p * dout: the same dims, so the same FLOPs.
    Value *L = I == 0 ? DOut : Other, *R = I == 0 ? Other : DOut;
    auto Roles = classifyContraction(L->type(), R->type(), T);
    assert(Roles && "a gradient has its operand's dims");
    Value *Grad = G.emit<ContractionOp>(*this, P, {L, R}, T, *Roles,
                                        G.accumulatesInPlace(P));
    if (Fp8)
      cast<ContractionOp>(Grad->def())->setFp8(fp8Gradient(G, I));
    G.contribute(P, Grad);
  }
}

/// An fp8 forward GEMM's gradient w.r.t. operand \p I is an fp8 GEMM too
/// (Transformer Engine's dgrad and wgrad). The output gradient (operand \p
/// I of the gradient GEMM) is cast once, by the dgrad, which runs first;
/// the wgrad reads that copy and the activation's, saved by the forward.
/// A wgrad with no dgrad beside it casts the output gradient itself.
ContractionOp::Fp8Gemm ContractionOp::fp8Gradient(GradientBuilder &G,
                                                  unsigned I) const {
  Fp8Gemm F;
  const Value *Other = operand(1 - I);
  bool Wgrad = isa<ParamOp>(operand(I)->def());
  if (!Wgrad || !G.needsGrad(Other))
    F.Cast[I] = 1;
  return F;
}

AxisSet ContractionOp::gradientPartials(unsigned I) const {
  // dP = dout * q contracts the dims of the output not in P; the axes
  // sharding one alike in dout and q give partial sums.
  AxisSet R;
  const ShardType &P = operand(I)->type(), &Q = operand(1 - I)->type();
  for (const TensorDim &D : result()->type().Dims) {
    std::optional<unsigned> J = Q.dimIndex(D.Id);
    if (P.dimIndex(D.Id) || !J)
      continue;
    const AxisList &Other = Q.Dims[*J].Axes;
    for (size_t K = 0; K < D.Axes.size() && K < Other.size(); ++K) {
      if (D.Axes[K] != Other[K])
        break;
      R.insert(D.Axes[K]);
    }
  }
  return R;
}

std::string ContractionOp::attrs(const TypeNames &N) const {
  std::string S = " {";
  for (size_t I = 0; I < Dims.size(); ++I)
    S += fmt::format("{}{} = {}", I ? ", " : "", N.Dims[Dims[I].Id],
                     dimRoleName(Dims[I].Role).str());
  S += "}";
  if (Used != 1)
    S += fmt::format(" used {:.4g}", Used);
  if (Fp8)
    S += fmt::format(" fp8 cast {:.4g}, {:.4g}", Fp8->Cast[0], Fp8->Cast[1]);
  return S;
}

std::string ContractionOp::verify(const TypeNames &N, bool Lowered) const {
  if (numOperands() != 2)
    return "takes two operands";
  const ShardType &L = operand(0)->type(), &R = operand(1)->type();
  const ShardType &Out = result()->type();
  for (const TensorDim &D : Out.Dims) {
    bool Known = llvm::any_of(Dims, [&](const ContractionDim &C) {
      return C.Id == D.Id && C.Role != DimRole::Contracted;
    });
    if (!Known)
      return "result dim '" + N.Dims[D.Id] + "' is not a batch or free dim";
  }
  if (!Lowered)
    return "";
  // After insertion the product is local: shared dims are sharded alike and
  // every result dim keeps its input's sharding.
  for (const TensorDim &D : L.Dims)
    if (auto J = R.dimIndex(D.Id); J && R.Dims[*J].Axes != D.Axes)
      return "dim '" + N.Dims[D.Id] +
             "' is sharded differently in the operands";
  for (const TensorDim &D : Out.Dims) {
    const ShardType &Src = L.dimIndex(D.Id) ? L : R;
    if (Src.Dims[*Src.dimIndex(D.Id)].Axes != D.Axes)
      return "result dim '" + N.Dims[D.Id] + "' changes sharding";
  }
  return "";
}

//===----------------------------------------------------------------------===//
// elementwise
//===----------------------------------------------------------------------===//

namespace {
struct FnInfo {
  const char *Name;
  double Flops;
  unsigned Arity;
  double GradFlops;
  GradReads Reads;
  bool LastDim;
};
constexpr FnInfo Fns[] = {
#define ELEMENTWISE(Name, Flops, Arity, GradFlops, Reads, LastDim)             \
  {#Name, Flops, Arity, GradFlops, GradReads::Reads, LastDim},
#include "ir/Elementwise.def"
};
} // namespace

llvm::StringRef shardc::elementwiseName(ElementwiseFn F) {
  return Fns[unsigned(F)].Name;
}
double shardc::elementwiseFlops(ElementwiseFn F) {
  return Fns[unsigned(F)].Flops;
}
unsigned shardc::elementwiseArity(ElementwiseFn F) {
  return Fns[unsigned(F)].Arity;
}
double shardc::elementwiseGradFlops(ElementwiseFn F) {
  return Fns[unsigned(F)].GradFlops;
}
GradReads shardc::elementwiseGradReads(ElementwiseFn F) {
  return Fns[unsigned(F)].Reads;
}
bool shardc::elementwiseNormalises(ElementwiseFn F) {
  return Fns[unsigned(F)].LastDim;
}
std::optional<ElementwiseFn> shardc::parseElementwise(llvm::StringRef Name) {
  for (unsigned I = 0; I < std::size(Fns); ++I)
    if (Name == Fns[I].Name && ElementwiseFn(I) != ElementwiseFn::scale)
      return ElementwiseFn(I);
  return std::nullopt;
}
std::vector<std::string> shardc::elementwiseNames() {
  std::vector<std::string> Out;
  for (const FnInfo &F : Fns)
    if (llvm::StringRef(F.Name) != "scale") // written `x * 2`, not called
      Out.push_back(F.Name);
  return Out;
}

std::string ElementwiseOp::attrs(const TypeNames &) const {
  return " \"" + elementwiseName(Fn).str() + "\"" + (KeepsMask ? " mask" : "");
}

double ElementwiseOp::keptBytes(const MeshSpec &M) const {
  return KeepsMask ? naturalType().localElements(M) : 0;
}

unsigned ElementwiseOp::fullOperand() const {
  for (unsigned I = 0; I < numOperands(); ++I)
    if (operand(I)->type().sameDims(result()->type()))
      return I;
  llvm_unreachable("the verifier holds that an operand has the result's dims");
}

/// True when every dim of \p In has the axes \p Out gives it.
static bool shardedAsIn(const ShardType &In, const ShardType &Out) {
  return llvm::all_of(In.Dims, [&](const TensorDim &D) {
    return Out.Dims[*Out.dimIndex(D.Id)].Axes == D.Axes;
  });
}

std::string ElementwiseOp::verify(const TypeNames &, bool Lowered) const {
  if (numOperands() != elementwiseArity(Fn))
    return "wrong number of operands";
  const ShardType &Out = result()->type();
  bool AnyFull = false;
  for (const Value *V : operands()) {
    AnyFull |= V->type().sameDims(Out);
    if (!V->type().dimsWithin(Out) || (Lowered && !shardedAsIn(V->type(), Out)))
      return "operands must have the result's dims, or some of them, sharded "
             "as the result";
    if (V->type().Elt != operand(0)->type().Elt)
      return "operands must have the same dtype";
  }
  return AnyFull ? "" : "no operand has the result's dims";
}

std::optional<OpWork> ElementwiseOp::work(const MeshSpec &M) const {
  // Each element of the result is computed once, whatever each operand
  // holds: a broadcast operand is read once, its elements used many times.
  OpWork W;
  W.Flops = result()->type().localElements(M) * elementwiseFlops(Fn);
  for (const Value *V : operands())
    W.HbmBytes += V->type().localBytes(M);
  W.HbmBytes += result()->type().localBytes(M) + keptBytes(M);
  W.Elt = operand(0)->type().Elt;
  return W;
}

ShardType ElementwiseOp::requiredOperandType(unsigned I) const {
  const ShardType &Full = operand(fullOperand())->type();
  ShardType T = operand(I)->type();
  for (TensorDim &D : T.Dims)
    D.Axes = Full.Dims[*Full.dimIndex(D.Id)].Axes;
  T.Unreduced = Full.Unreduced;
  return T;
}

ShardType ElementwiseOp::naturalType() const {
  ShardType T = operand(fullOperand())->type();
  T.Elt = result()->type().Elt;
  return T;
}

AxisSet ElementwiseOp::gradientPartials(unsigned I) const {
  // A broadcast operand's gradient is summed over the dims it lacks: the
  // axes sharding them give partial sums.
  AxisSet R;
  const ShardType &T = operand(I)->type();
  for (const TensorDim &D : operand(fullOperand())->type().Dims)
    if (!T.dimIndex(D.Id))
      for (AxisId A : D.Axes)
        R.insert(A);
  return R;
}

void ElementwiseOp::backward(GradientBuilder &G) const {
  Value *DOut = G.grad(result());
  if (!DOut)
    return;
  // Linear functions (add, sub, neg) pass the gradient through, negated
  // where they negate, which is free.
  bool Linear = elementwiseIsLinear(Fn);
  for (unsigned I = 0; I < numOperands(); ++I) {
    const Value *A = operand(I);
    if (!G.needsGrad(A))
      continue;
    ShardType T = G.gradType(A);
    // A broadcast operand's gradient sums the full-shape one over the dims
    // it lacks.
    bool Broadcast = A->type().Dims.size() < DOut->type().Dims.size();
    auto Deliver = [&](Value *Full) {
      if (Broadcast) {
        ShardType R = T;
        for (TensorDim &D : R.Dims)
          D.Axes = Full->type().Dims[*Full->type().dimIndex(D.Id)].Axes;
        R.Unreduced = Full->type().Unreduced;
        for (const TensorDim &D : Full->type().Dims)
          if (!R.dimIndex(D.Id))
            for (AxisId X : D.Axes)
              R.Unreduced.insert(X);
        Full = G.emit<ReduceOp>(*this, A, {Full}, R);
      }
      G.contribute(A, G.reshardTo(Full, T, *this, A));
    };
    if (Linear) {
      Deliver(DOut);
      continue;
    }
    // mul by a broadcast operand: the full operand's gradient is the
    // output's times it, a broadcast product like the forward.
    if (Fn == ElementwiseFn::mul && !Broadcast &&
        operand(1 - I)->type().Dims.size() < A->type().Dims.size()) {
      Value *S = G.saved(operand(1 - I));
      G.contribute(A, G.reshardTo(G.emit<ElementwiseOp>(
                                      *this, A, {DOut, S},
                                      withSharding(DOut->type(), DOut->type()),
                                      ElementwiseFn::mul),
                                  T, *this, A));
      continue;
    }
    // A mask the forward kept: the derivative reads it and the output
    // gradient, in the forward's sharding.
    GradReads What = elementwiseGradReads(Fn);
    if (What == GradReads::Mask) {
      G.keep(*this);
      Value *D = G.reshardTo(DOut, withSharding(DOut->type(), naturalType()),
                             *this, A);
      G.contribute(A, G.reshardTo(G.emit<ElementwiseGradOp>(
                                      *this, A, {D},
                                      withSharding(T, naturalType()), Fn, I),
                                  T, *this, A));
      continue;
    }
    // The saved value the derivative reads: mul's and div's other operand,
    // exp's and softmax's output, any other function's input.
    const Value *Reads = What == GradReads::Other ? operand(1 - I)
                         : What == GradReads::Out ? result()
                                                  : A;
    Value *S = G.saved(Reads);
    Value *D =
        G.reshardTo(DOut, withSharding(DOut->type(), S->type()), *this, A);
    if (!Broadcast) {
      G.contribute(A, G.emit<ElementwiseGradOp>(*this, A, {D, S}, T, Fn, I));
      continue;
    }
    // mul's broadcast operand: dout times the full operand, then summed.
    Deliver(G.emit<ElementwiseGradOp>(
        *this, A, {D, S}, withSharding(D->type(), S->type()), Fn, I));
  }
}

//===----------------------------------------------------------------------===//
// reshard, view
//===----------------------------------------------------------------------===//

std::string ReshardOp::verify(const TypeNames &, bool Lowered) const {
  if (Lowered)
    return "survived insert-collectives";
  if (numOperands() != 1 || !operand(0)->type().sameDims(result()->type()))
    return "must keep its operand's dims";
  return "";
}

std::optional<OpWork> ReshardOp::work(const MeshSpec &M) const {
  const ShardType &In = operand(0)->type();
  if (In.Elt == result()->type().Elt)
    return std::nullopt;
  ShardType Converted = In;
  Converted.Elt = result()->type().Elt;
  return ConvertOp::workFor(In, Converted, M);
}

void ReshardOp::backward(GradientBuilder &G) const {
  const Value *Src = operand(0);
  if (!G.needsGrad(Src))
    return;
  if (Value *DOut = G.grad(result()))
    G.contribute(Src, G.reshardTo(DOut, G.gradType(Src), *this, Src));
}

std::string ViewOp::verify(const TypeNames &, bool) const {
  if (numOperands() != 1)
    return "takes one operand";
  const ShardType &In = operand(0)->type(), &Out = result()->type();
  if (!In.sameSharding(Out) || In.Unreduced != Out.Unreduced)
    return "must keep its operand's dims and sharding";
  // A dtype change reads and writes memory: that is a convert.
  if (In.Elt != Out.Elt)
    return "changes the dtype";
  return "";
}

//===----------------------------------------------------------------------===//
// convert
//===----------------------------------------------------------------------===//

OpWork ConvertOp::workFor(const ShardType &In, const ShardType &Out,
                          const MeshSpec &M) {
  // One conversion instruction per element, counted as `relu` counts its
  // one; it runs on the vector units in the dtype it reads, as an
  // elementwise op does. Memory-bound on every preset chip.
  OpWork W;
  W.Flops = In.localElements(M);
  W.HbmBytes = In.localBytes(M) + Out.localBytes(M);
  W.Elt = In.Elt;
  return W;
}

std::optional<OpWork> ConvertOp::work(const MeshSpec &M) const {
  return workFor(operand(0)->type(), result()->type(), M);
}

std::string ConvertOp::verify(const TypeNames &, bool) const {
  if (numOperands() != 1)
    return "takes one operand";
  const ShardType &In = operand(0)->type(), &Out = result()->type();
  if (!In.sameSharding(Out) || In.Unreduced != Out.Unreduced)
    return "must keep its operand's dims and sharding";
  if (In.Elt == Out.Elt)
    return "must change the dtype";
  return "";
}

//===----------------------------------------------------------------------===//
// repeat
//===----------------------------------------------------------------------===//

const RepeatOp::Carried *RepeatOp::carriedFrom(const Value *V) const {
  for (const Carried &C : CarriedValues)
    if (C.Init == V)
      return &C;
  return nullptr;
}

const RepeatOp::Carried *RepeatOp::carriedTo(const Value *V) const {
  for (const Carried &C : CarriedValues)
    if (C.Next == V)
      return &C;
  return nullptr;
}

std::string RepeatOp::attrs(const TypeNames &N) const {
  if (!Pipeline)
    return "";
  std::string S = " over " + N.Axes[*Pipeline];
  for (size_t I = 0; I < Split.size(); ++I)
    S += (I ? ", " : " [") + std::to_string(Split[I]);
  return Split.empty() ? S : S + "]";
}

std::string RepeatOp::verify(const TypeNames &, bool) const {
  // The builder gives a repeat no operands and no result.
  if (TripCount < 1)
    return "needs a positive trip count";
  int64_t Sum = 0;
  for (int64_t K : Split)
    if (K < 1 || __builtin_add_overflow(Sum, K, &Sum))
      return "has a stage split entry below 1 or too large";
  if (!Split.empty() && Sum != TripCount)
    return "has a stage split that does not sum to its trip count";
  for (const Carried &C : CarriedValues)
    if (!(C.Init->type() == C.Next->type()))
      return "carried value '" + C.Init->name() + "' changes its type";
  return "";
}
GradientBuilder::~GradientBuilder() = default;
