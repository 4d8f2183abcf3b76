//===- Ops.h - The op kinds, one class each ---------------------*- C++ -*-===//
//
// Every kind of Ops.def as a class with exactly its own fields and the
// interface methods that apply to it. The type rules of the data-movement
// ops (what a slice or a collective turns its operand into) are static
// functions here, used by the planners to predict a step and by the verifier
// to check one, so the two can never disagree.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_IR_OPS_H
#define SHARDC_IR_OPS_H

#include "ir/OpInterfaces.h"
#include "ir/Operation.h"
#include "ir/Training.h"

namespace shardc {

/// The base of each concrete op: its isa<>/cast<> support, its clone, and
/// the op interfaces it implements (OpInterfaces.h; Ops.def lists them too).
template <typename Derived, OpKind K, typename Base = Op,
          typename... Interfaces>
class OpOf : public Base, public Interfaces... {
public:
  static constexpr OpKind Kind = K;
  /// Hides the interfaces' classof: isa<ContractionOp> asks for the kind.
  static bool classof(const Op *O) { return O->kind() == K; }
  std::unique_ptr<Op> cloneFields() const override {
    return std::make_unique<Derived>(static_cast<const Derived &>(*this));
  }

protected:
  OpOf() : Base(K) {}
};

/// A declared tensor (`tensor x : bf16[B_X, D];`): no operands. A serving
/// program's KV cache (`cache kc : fp8[B, S, K_T, H];`) is one too, marked:
/// resident in HBM like a param, read by attention, written by `append`.
class InputOp : public OpOf<InputOp, OpKind::Input> {
public:
  explicit InputOp(bool Cache = false) : Cache(Cache) {}
  bool isCache() const { return Cache; }
  std::string attrs(const TypeNames &N) const override;
  std::string verify(const TypeNames &N, bool Lowered) const override;

private:
  bool Cache;
};

/// A trainable weight (`param W : bf16[E, F_T];`) in its stored sharding;
/// optionally the sharding its optimizer state is kept in (`state [...]`).
/// Outside a training step it is exactly an input.
class ParamOp : public OpOf<ParamOp, OpKind::Param> {
public:
  explicit ParamOp(std::optional<ShardType> State = std::nullopt)
      : State(std::move(State)) {}
  const std::optional<ShardType> &stateType() const { return State; }
  void rebindSizes(const DimSizeMap &Sizes) override {
    if (State)
      State->rebind(Sizes);
  }
  std::string attrs(const TypeNames &N) const override;
  std::string verify(const TypeNames &N, bool Lowered) const override;

private:
  std::optional<ShardType> State;
};

/// How a contraction classifies each distinct dim (LANGUAGE.md §5).
enum class DimRole : uint8_t { Batch, Contracted, FreeLhs, FreeRhs };
llvm::StringRef dimRoleName(DimRole R);

struct ContractionDim {
  DimId Id = 0;
  int64_t Size = 1;
  DimRole Role = DimRole::Batch;
};

/// The roles of every distinct dim of `Out = L * R`, the left operand's
/// dims first (LANGUAGE.md §5); nullopt when a dim is in neither input or
/// in one input only and not the output.
std::optional<llvm::SmallVector<ContractionDim, 4>>
classifyContraction(const ShardType &L, const ShardType &R,
                    const ShardType &Out);

/// `out = p * q` as an einsum over Dims (every distinct dim once). A
/// weight-gradient contraction accumulates into its param's gradient buffer
/// (COST-MODEL.md §6.2): from the second microbatch on it also reads it.
class ContractionOp : public OpOf<ContractionOp, OpKind::Contraction, Op,
                                  Differentiable, Costed, Lowerable> {
public:
  /// \p Used: the share of its FLOPs that does useful work (an expert's
  /// contraction runs over capacity slots, of which 1 / capacity hold
  /// tokens; COST-MODEL.md §6.5 counts only those).
  explicit ContractionOp(llvm::ArrayRef<ContractionDim> D,
                         bool Accumulate = false, double Used = 1)
      : Dims(D.begin(), D.end()), Accumulate(Accumulate), Used(Used) {}
  llvm::ArrayRef<ContractionDim> dims() const { return Dims; }
  bool accumulates() const { return Accumulate; }
  double used() const { return Used; }
  /// A mixture of experts' slot count is bound per mesh (bind-mesh).
  void setUsed(double U) { Used = U; }
  void rebindSizes(const DimSizeMap &Sizes) override;

  /// Transformer Engine's fp8 GEMM (`train { fp8 = ...; }`): it runs at the
  /// fp8 peak on 1-byte copies of its operands, and pays Cast[I] of operand
  /// I's amax-and-cast kernel (read it, write its fp8 copy and that copy's
  /// transpose): 1 each run, 1/m for a weight cast once per step, 0 for an
  /// operand another GEMM cast.
  struct Fp8Gemm {
    std::array<double, 2> Cast{};
  };
  const std::optional<Fp8Gemm> &fp8() const { return Fp8; }
  void setFp8(Fp8Gemm F) { Fp8 = F; }
  /// A mixed-precision product's math dtype (docs/inference.md: `fp8`
  /// weights with `bf16` math): its peak prices the FLOPs, each operand's
  /// bytes stay at its own dtype. None: the left operand's dtype.
  const std::optional<DType> &mathDType() const { return Math; }
  void setMathDType(DType T) { Math = T; }
  /// A serving program's expert contraction (docs/inference.md, "MoE in
  /// decode"): it reads \p WeightShare of operand \p Weight (the experts
  /// its tokens touch) and executes \p FlopShare of its slots' FLOPs (the
  /// pairs routed, unrounded).
  void setExpertShares(unsigned Weight, double WeightShare, double FlopShare) {
    Experts = ExpertShares{Weight, WeightShare, FlopShare};
  }
  struct ExpertShares {
    unsigned Weight;
    double WeightShare, FlopShare;
  };
  const std::optional<ExpertShares> &expertShares() const { return Experts; }

  /// COST-MODEL.md §1 for a local product of \p L and \p R into \p Out:
  /// 2 x the product of the local extents of every distinct dim; with \p F,
  /// as the fp8 GEMM it describes.
  static OpWork workFor(const ShardType &L, const ShardType &R,
                        const ShardType &Out,
                        llvm::ArrayRef<ContractionDim> Dims, const MeshSpec &M,
                        const Fp8Gemm *F = nullptr,
                        std::optional<DType> Math = std::nullopt);

  std::string attrs(const TypeNames &N) const override;
  std::string verify(const TypeNames &N, bool Lowered) const override;
  std::optional<OpWork> work(const MeshSpec &M) const override;
  Lowering lowering() const override { return Lowering::Contraction; }
  void backward(GradientBuilder &G) const override;
  AxisSet gradientPartials(unsigned I) const override;
  bool savesInputs() const override { return true; }

private:
  Fp8Gemm fp8Gradient(GradientBuilder &G, unsigned I) const;

  llvm::SmallVector<ContractionDim, 4> Dims;
  bool Accumulate;
  double Used;
  std::optional<Fp8Gemm> Fp8;
  std::optional<DType> Math;
  std::optional<ExpertShares> Experts;
};

enum class ElementwiseFn : uint8_t {
#define ELEMENTWISE(Name, Flops, Arity, GradFlops, Reads, LastDim) Name,
#include "ir/Elementwise.def"
};
/// What an elementwise builtin's derivative reads besides the output
/// gradient (Elementwise.def).
enum class GradReads : uint8_t { In, Out, Other, Mask, None };
llvm::StringRef elementwiseName(ElementwiseFn F);
double elementwiseFlops(ElementwiseFn F);
unsigned elementwiseArity(ElementwiseFn F);
/// FLOPs per element of one input's gradient (Elementwise.def).
double elementwiseGradFlops(ElementwiseFn F);
/// Linear builtins (add, sub, neg): partial sums survive them, and their
/// gradient passes through with no op (GradFlops 0 in Elementwise.def).
inline bool elementwiseIsLinear(ElementwiseFn F) {
  return elementwiseGradFlops(F) == 0;
}
/// What the derivative reads: what the forward saves for it.
GradReads elementwiseGradReads(ElementwiseFn F);
/// softmax, layernorm, rmsnorm: they reduce over the last dim, which must be
/// whole on each chip (LANGUAGE.md §8).
bool elementwiseNormalises(ElementwiseFn F);
std::optional<ElementwiseFn> parseElementwise(llvm::StringRef Name);
/// Every elementwise builtin's name, in Elementwise.def order.
std::vector<std::string> elementwiseNames();

/// A builtin applied per element. A binary one broadcasts: one operand may
/// have a subset of the other's dims (`C[I, K] * bias[K]`), and is read
/// once per element of the result. It computes in the sharding of the
/// operand with the result's dims (its *full* operand); the other is
/// resharded to match it on the dims they share.
///
/// In a training step a builtin whose derivative reads a mask (dropout)
/// writes that mask, 1 byte per element, and keeps it for the backward.
class ElementwiseOp : public OpOf<ElementwiseOp, OpKind::Elementwise, Op,
                                  Differentiable, Costed, Lowerable, Fusable> {
public:
  explicit ElementwiseOp(ElementwiseFn F, bool Training = false)
      : Fn(F),
        KeepsMask(Training && elementwiseGradReads(F) == GradReads::Mask) {}
  ElementwiseFn fn() const { return Fn; }
  bool keepsMask() const { return KeepsMask; }
  /// The first operand with the result's dims; the verifier holds that
  /// there is one.
  unsigned fullOperand() const;

  std::string attrs(const TypeNames &N) const override;
  std::string verify(const TypeNames &N, bool Lowered) const override;
  std::optional<OpWork> work(const MeshSpec &M) const override;
  Lowering lowering() const override { return Lowering::Local; }
  /// The operand's dims with the full operand's axes on each, and its
  /// unreduced set.
  ShardType requiredOperandType(unsigned I) const override;
  ShardType naturalType() const override;
  void backward(GradientBuilder &G) const override;
  AxisSet gradientPartials(unsigned I) const override;
  double keptBytes(const MeshSpec &M) const override;

private:
  ElementwiseFn Fn;
  bool KeepsMask;
};

/// The derivative of an elementwise builtin w.r.t. one operand
/// (COST-MODEL.md §5, §8): reads the output gradient (operand 0) and the
/// saved forward value it needs (operand 1: the input, exp's and softmax's
/// output, or mul's and div's other operand), writes the input gradient, in
/// the saved value's sharding. FLOPs per element: unary 2 x the forward's,
/// mul 1, div 3. Dropout's reads the output gradient and the mask the
/// forward kept (1 byte per element): one operand.
class ElementwiseGradOp
    : public OpOf<ElementwiseGradOp, OpKind::ElementwiseGrad, Op, Costed,
                  Lowerable, Fusable> {
public:
  ElementwiseGradOp(ElementwiseFn F, unsigned Wrt) : Fn(F), Wrt(Wrt) {}
  ElementwiseFn fn() const { return Fn; }
  unsigned wrt() const { return Wrt; }
  double flopsPerElement() const;

  std::string attrs(const TypeNames &N) const override;
  std::string verify(const TypeNames &N, bool Lowered) const override;
  std::optional<OpWork> work(const MeshSpec &M) const override;
  Lowering lowering() const override { return Lowering::Local; }
  /// Each operand as it is.
  ShardType requiredOperandType(unsigned I) const override {
    return operand(I)->type();
  }
  ShardType naturalType() const override;

private:
  ElementwiseFn Fn;
  unsigned Wrt; ///< the forward operand whose gradient it computes
};

/// Sums its operand over the dims its result lacks. Derived only: the
/// gradient of a broadcast operand (`h + b[F]`: db sums dh over the other
/// dims; COST-MODEL.md §5). One add per operand element, memory-bound; the
/// axes that sharded a summed dim leave partial sums, which the gradient's
/// target sharding then reduces.
class ReduceOp : public OpOf<ReduceOp, OpKind::Reduce, Op, Costed, Lowerable> {
public:
  std::string attrs(const TypeNames &N) const override;
  std::string verify(const TypeNames &N, bool Lowered) const override;
  std::optional<OpWork> work(const MeshSpec &M) const override;
  Lowering lowering() const override { return Lowering::Local; }
  /// Each operand as it is.
  ShardType requiredOperandType(unsigned I) const override {
    return operand(I)->type();
  }
  ShardType naturalType() const override;
};

/// One param's optimizer step over its local optimizer shard
/// (COST-MODEL.md §6.4): operand 0 is the synced gradient, in the
/// optimizer-state sharding at the gradient dtype; the result is the
/// updated param shard. It reads and writes the moments and the master
/// weights it keeps.
class OptimizerOp : public OpOf<OptimizerOp, OpKind::Optimizer, Op, Costed> {
public:
  OptimizerOp(const TrainConfig &C, DType ParamElt)
      : Kind(C.Optimizer), Grad(C.Grad), Master(C.Master), State(C.State),
        ParamElt(ParamElt),
        SeparateCopy(C.FixedCosts && hasMaster(C, ParamElt)) {}
  /// Whether \p C keeps master weights apart from a param of \p ParamElt.
  static bool hasMaster(const TrainConfig &C, DType ParamElt) {
    return C.Master && *C.Master != ParamElt;
  }
  /// Bytes read and written per local element of the shard.
  double bytesPerElement() const;
  /// FLOPs per local element: adam 12, sgd 2.
  double flopsPerElement() const;
  /// Bytes of optimizer state per local element (moments and master
  /// weights) that \p C keeps for a param of dtype \p ParamElt.
  static double stateBytesPerElement(const TrainConfig &C, DType ParamElt);

  std::string attrs(const TypeNames &N) const override;
  std::string verify(const TypeNames &N, bool Lowered) const override;
  std::optional<OpWork> work(const MeshSpec &M) const override;

private:
  OptimizerKind Kind;
  DType Grad;
  std::optional<DType> Master;
  DType State, ParamElt;
  /// `fixed_costs = priced` with master weights: the update reads and
  /// writes only the master; a master_copy writes the param.
  bool SeparateCopy;
};

/// A training step's fixed cost (`fixed_costs = priced`, docs/cost-model.md
/// §6.4): one pass over one param's local gradient or updated shard. Its
/// operand is the synced gradient (the updated param for master_copy); its
/// result's type says what it writes. Each is memory-bound: its bytes at
/// the chip's memory rate, no FLOPs that matter.
class FixedCostOp : public Op, public Costed {
public:
  static bool classof(const Op *O) {
    return O->kind() == OpKind::GradNorm || O->kind() == OpKind::InfCheck ||
           O->kind() == OpKind::MasterCopy || O->kind() == OpKind::ZeroGrad;
  }
  std::string verify(const TypeNames &N, bool Lowered) const override;

protected:
  explicit FixedCostOp(OpKind K) : Op(K) {}
};

/// grad_norm: reads its local gradient once (2 FLOPs an element: square,
/// add); its result is the fp32 sum of squares. With no operand it is the
/// step's total, a partial sum over the axes its result names unreduced:
/// the reshard after it is the norm's one AllReduce.
class GradNormOp : public OpOf<GradNormOp, OpKind::GradNorm, FixedCostOp> {
public:
  std::string verify(const TypeNames &N, bool Lowered) const override;
  std::optional<OpWork> work(const MeshSpec &M) const override;
};

/// inf_check: fp16 gradients are unscaled in place and checked for inf and
/// NaN (PyTorch's _amp_foreach_non_finite_check_and_unscale_): reads and
/// writes the local gradient once.
class InfCheckOp : public OpOf<InfCheckOp, OpKind::InfCheck, FixedCostOp> {
public:
  std::optional<OpWork> work(const MeshSpec &M) const override;
};

/// master_copy: reads the updated master shard (in \p Master) and writes
/// the param's copy in its own dtype (the operand's).
class MasterCopyOp
    : public OpOf<MasterCopyOp, OpKind::MasterCopy, FixedCostOp> {
public:
  explicit MasterCopyOp(DType Master) : Master(Master) {}
  std::string attrs(const TypeNames &N) const override;
  std::optional<OpWork> work(const MeshSpec &M) const override;

private:
  DType Master;
};

/// zero_grad: writes the gradient buffer its result types (in the sharding
/// the buffer accumulates in) once.
class ZeroGradOp : public OpOf<ZeroGradOp, OpKind::ZeroGrad, FixedCostOp> {
public:
  std::optional<OpWork> work(const MeshSpec &M) const override;
};

/// A sharding change as written (`y[B, D] = x[B_X, D];`): its result's type
/// is the target, dtype included. insert-collectives replaces it with the
/// steps it needs (and a conversion when the dtype changes).
class ReshardOp : public OpOf<ReshardOp, OpKind::Reshard, Op, Differentiable,
                              Costed, Lowerable> {
public:
  std::string verify(const TypeNames &N, bool Lowered) const override;
  /// None unless the dtype changes; then the conversion's work in the
  /// operand's sharding, so that check-mesh holds the chip to a peak for
  /// the dtype it converts from (where the conversion runs, and so its size,
  /// is insert-collectives' choice).
  std::optional<OpWork> work(const MeshSpec &M) const override;
  Lowering lowering() const override { return Lowering::Reshard; }
  void backward(GradientBuilder &G) const override;
};

/// A reshard that needed no step: the result is the operand's data under a
/// new name, in the same dtype.
class ViewOp : public OpOf<ViewOp, OpKind::View> {
public:
  std::string verify(const TypeNames &N, bool Lowered) const override;
};

/// A dtype change in place (`bf16[D, F_Y] -> fp32[D, F_Y]`): a typed
/// reshard's conversion, wherever insert-collectives puts it among the
/// reshard's steps. Unlike a view it reads and writes HBM.
class ConvertOp : public OpOf<ConvertOp, OpKind::Convert, Op, Costed> {
public:
  /// COST-MODEL.md §1 as docs/cost-model.md chooses it for a conversion of
  /// \p In to \p Out (same sharding): 1 FLOP per element at the vector peak
  /// of In's dtype; reads In's local bytes, writes Out's.
  static OpWork workFor(const ShardType &In, const ShardType &Out,
                        const MeshSpec &M);
  std::string verify(const TypeNames &N, bool Lowered) const override;
  std::optional<OpWork> work(const MeshSpec &M) const override;
};

/// A slice or a collective: one operand, the mesh axes it works over, and a
/// type rule that gives its result.
class ReshardStepOp : public Op {
public:
  static bool classof(const Op *O) {
    return O->kind() == OpKind::Slice || isCollective(O->kind());
  }
  llvm::ArrayRef<AxisId> axes() const { return Axes; }
  /// The type this op turns \p In into.
  virtual ShardType apply(const ShardType &In) const = 0;
  std::string verify(const TypeNames &N, bool Lowered) const override;

protected:
  /// True when the dims this op names exist in a type of \p NumDims dims.
  virtual bool dimsIn(unsigned NumDims) const = 0;
  explicit ReshardStepOp(OpKind K) : Op(K) {}
  AxisList Axes;
};

/// Shards dim Dim further over Axes without moving data (free).
class SliceOp : public OpOf<SliceOp, OpKind::Slice, ReshardStepOp> {
public:
  SliceOp(llvm::ArrayRef<AxisId> A, unsigned D) : Dim(D) {
    Axes.assign(A.begin(), A.end());
  }
  unsigned dim() const { return Dim; }
  static ShardType rule(const ShardType &In, llvm::ArrayRef<AxisId> Axes,
                        unsigned Dim);
  ShardType apply(const ShardType &In) const override {
    return rule(In, Axes, Dim);
  }
  std::string attrs(const TypeNames &N) const override;

private:
  bool dimsIn(unsigned NumDims) const override { return Dim < NumDims; }
  unsigned Dim;
};

/// V (COST-MODEL.md's notation) of a collective of kind \p K turning \p In
/// into \p Out over \p Axes on \p M, as the kind's GroupVolume says: the
/// gathered result (AllGather), the unreduced array (ReduceScatter,
/// AllReduce), the group's total (AllToAll).
double collectiveGroupBytes(CollectiveKind K, const ShardType &In,
                            const ShardType &Out, llvm::ArrayRef<AxisId> Axes,
                            const MeshSpec &M);

/// A collective over a group of chips: the product of its axes.
class CollectiveOp : public ReshardStepOp {
public:
  static bool classof(const Op *O) { return isCollective(O->kind()); }
  CollectiveKind collectiveKind() const { return *collectiveKindOf(kind()); }
  /// V (COST-MODEL.md's notation) on \p M.
  double groupBytes(const MeshSpec &M) const;

protected:
  explicit CollectiveOp(OpKind K) : ReshardStepOp(K) {}
};

/// Gathers dim Dim over Axes: every member ends with the gathered array.
class AllGatherOp : public OpOf<AllGatherOp, OpKind::AllGather, CollectiveOp> {
public:
  AllGatherOp(llvm::ArrayRef<AxisId> A, unsigned D) : Dim(D) {
    Axes.assign(A.begin(), A.end());
  }
  unsigned dim() const { return Dim; }
  static ShardType rule(const ShardType &In, llvm::ArrayRef<AxisId> Axes,
                        unsigned Dim);
  ShardType apply(const ShardType &In) const override {
    return rule(In, Axes, Dim);
  }
  std::string attrs(const TypeNames &N) const override;

private:
  bool dimsIn(unsigned NumDims) const override { return Dim < NumDims; }
  unsigned Dim;
};

/// Sums the partial sums over Axes and scatters the result onto dim Dim.
class ReduceScatterOp
    : public OpOf<ReduceScatterOp, OpKind::ReduceScatter, CollectiveOp> {
public:
  ReduceScatterOp(llvm::ArrayRef<AxisId> A, unsigned D) : Dim(D) {
    Axes.assign(A.begin(), A.end());
  }
  unsigned dim() const { return Dim; }
  static ShardType rule(const ShardType &In, llvm::ArrayRef<AxisId> Axes,
                        unsigned Dim);
  ShardType apply(const ShardType &In) const override {
    return rule(In, Axes, Dim);
  }
  std::string attrs(const TypeNames &N) const override;

private:
  bool dimsIn(unsigned NumDims) const override { return Dim < NumDims; }
  unsigned Dim;
};

/// Sums the partial sums over Axes; every member ends with the sum.
class AllReduceOp : public OpOf<AllReduceOp, OpKind::AllReduce, CollectiveOp> {
public:
  explicit AllReduceOp(llvm::ArrayRef<AxisId> A) {
    Axes.assign(A.begin(), A.end());
  }
  static ShardType rule(const ShardType &In, llvm::ArrayRef<AxisId> Axes);
  ShardType apply(const ShardType &In) const override { return rule(In, Axes); }
  std::string attrs(const TypeNames &N) const override;

private:
  bool dimsIn(unsigned NumDims) const override { return true; }
};

/// Moves Axes from sharding dim SrcDim to sharding dim DstDim (the same dim:
/// reorders the axes inside it).
class AllToAllOp : public OpOf<AllToAllOp, OpKind::AllToAll, CollectiveOp> {
public:
  AllToAllOp(llvm::ArrayRef<AxisId> A, unsigned Src, unsigned Dst)
      : SrcDim(Src), DstDim(Dst) {
    Axes.assign(A.begin(), A.end());
  }
  unsigned srcDim() const { return SrcDim; }
  unsigned dstDim() const { return DstDim; }
  static ShardType rule(const ShardType &In, llvm::ArrayRef<AxisId> Axes,
                        unsigned SrcDim, unsigned DstDim);
  ShardType apply(const ShardType &In) const override {
    return rule(In, Axes, SrcDim, DstDim);
  }
  std::string attrs(const TypeNames &N) const override;

private:
  bool dimsIn(unsigned NumDims) const override {
    return SrcDim < NumDims && DstDim < NumDims;
  }
  unsigned SrcDim, DstDim;
};

/// A region run TripCount times; defines no value. Its carried values
/// chain the iterations (LANGUAGE.md §7): the body reads `Init` (a value
/// from outside the body), and in every iteration after the first that
/// read sees the `Next` the previous iteration defined; after the loop the
/// name means the last `Next`. Carried pairs are not operands: they are
/// kept by the builder and the clone, and their types are equal.
class RepeatOp : public OpOf<RepeatOp, OpKind::Repeat> {
public:
  struct Carried {
    Value *Init, *Next;
  };
  explicit RepeatOp(int64_t N, std::optional<AxisId> Pipeline = std::nullopt,
                    Loc CountAt = {}, Loc OverAt = {})
      : TripCount(N), Pipeline(Pipeline), CountAt(CountAt), OverAt(OverAt),
        Body(this) {}
  RepeatOp(const RepeatOp &O)
      : OpOf(O), TripCount(O.TripCount), Pipeline(O.Pipeline),
        CountAt(O.CountAt), OverAt(O.OverAt), Split(O.Split),
        SplitAt(O.SplitAt), Body(this) {}
  int64_t tripCount() const { return TripCount; }
  /// Where the count is written: a pipeline it does not split into the
  /// mesh's stages is reported there (bind-mesh).
  Loc countLoc() const { return CountAt; }
  /// Where the pipeline axis is named.
  Loc overLoc() const { return OverAt; }
  /// `repeat N over A`: the mesh axis whose coordinates are the pipeline's
  /// stages, each running N / |A| consecutive iterations (LANGUAGE.md §9).
  std::optional<AxisId> pipelineAxis() const { return Pipeline; }
  /// `repeat N over A [n0, n1, ...]`: the iterations of each virtual stage
  /// in the order they run (stage s of chunk c is entry c·|A| + s); empty
  /// for the even split. They sum to N; how many there must be depends on
  /// the mesh, which bind-mesh checks.
  llvm::ArrayRef<int64_t> stageSplit() const { return Split; }
  Loc splitLoc() const { return SplitAt; }
  void setStageSplit(std::vector<int64_t> Counts, Loc At) {
    Split = std::move(Counts);
    SplitAt = At;
  }
  /// Takes \p From's count, pipeline axis, stage split and where each is
  /// written: a pass that rebuilds a repeat (its backward, its updates, the
  /// lowered copy) keeps everything but the body and the carried pairs.
  void copyShape(const RepeatOp &From) {
    TripCount = From.TripCount;
    Pipeline = From.Pipeline;
    CountAt = From.CountAt;
    OverAt = From.OverAt;
    Split = From.Split;
    SplitAt = From.SplitAt;
  }
  llvm::ArrayRef<Carried> carried() const { return CarriedValues; }
  void addCarried(Value *Init, Value *Next) {
    CarriedValues.push_back({Init, Next});
  }
  /// The carried pair whose Init is \p V, if any.
  const Carried *carriedFrom(const Value *V) const;
  /// The carried pair whose Next is \p V, if any.
  const Carried *carriedTo(const Value *V) const;
  Block &body() { return Body; }
  const Block &body() const { return Body; }
  llvm::ArrayRef<Block *> regions() const override {
    return llvm::ArrayRef<Block *>(BodyPtr);
  }
  std::string attrs(const TypeNames &N) const override;
  std::string verify(const TypeNames &N, bool Lowered) const override;

private:
  int64_t TripCount;
  std::optional<AxisId> Pipeline;
  Loc CountAt, OverAt;
  std::vector<int64_t> Split;
  Loc SplitAt;
  Block Body;
  Block *BodyPtr = &Body;                      ///< what regions() points into
  llvm::SmallVector<Carried, 1> CarriedValues; ///< not copied by a clone
};

} // namespace shardc

// The model building blocks' op classes (LANGUAGE.md §8).
#include "ir/ModelOps.h"

#endif // SHARDC_IR_OPS_H
