//===- SemaStmts.cpp - Tensors, statements and repeat, lowered to IR ------===//
//
// Phase two of checking. Each statement becomes one high-level op whose
// result has the type the user wrote; insert-collectives later turns that
// into local ops and collectives. A tensor's symbol always points at its
// current value, which is what operands written with indices must match.
//
//===----------------------------------------------------------------------===//
#include "frontend/Sema.h"
#include "ir/ContractionPlans.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/SaveAndRestore.h"

using namespace shardc;

namespace {
constexpr int64_t MaxRepeat = int64_t(1) << 32;

/// A bare operand (`x`, written without indices) whose dims do not fit the
/// statement is reported at the operand with its dims, which the user never
/// wrote. Returns false when \p O was written with indices.
bool reportBareShape(DiagnosticEngine &Diags, const TypeNames &N,
                     const OperandAST &O, const ShardType &Has,
                     const ShardType &Needs) {
  if (O.Type)
    return false;
  Diags.report(O.Range, diag::BareOperandShape, O.Name.Name, dimListStr(Has, N),
               dimListStr(Needs, N));
  return true;
}
/// The operand an elementwise op computes in (its full operand, which a
/// broadcast operand is resharded to match): the one with the output's
/// dims, else, for the errors, the one with more dims (the first of equals).
unsigned fullOperand(llvm::ArrayRef<Value *> Args, const ShardType &Out) {
  if (Args.size() < 2 || Args[0]->type().sameDims(Out))
    return 0;
  if (Args[1]->type().sameDims(Out))
    return 1;
  return Args[1]->type().Dims.size() > Args[0]->type().Dims.size();
}
} // namespace

void Sema::programItem(const Decl &D) {
  if (auto *T = llvm::dyn_cast<TensorDecl>(&D))
    tensor(*T);
  else if (auto *Pd = llvm::dyn_cast<ParamDecl>(&D))
    param(*Pd);
  else if (auto *Cd = llvm::dyn_cast<CacheDecl>(&D))
    cache(*Cd);
  else if (auto *R = llvm::dyn_cast<RepeatDecl>(&D))
    repeat(*R);
  else if (auto *A = llvm::dyn_cast<AssignDecl>(&D))
    assign(*A);
}

unsigned Sema::addStatement(llvm::SMRange R, const std::string &Name,
                            OpKind K) {
  Statement S;
  S.Name = Name;
  S.Location = Diags.location(R.Start);
  S.Kind = K;
  S.Repeat = RepeatProduct;
  Info->Statements.push_back(std::move(S));
  return Info->Statements.size() - 1;
}

/// A statement's result names a new tensor or gives an existing one a new
/// value: the name means it from here on. For a tensor from outside the
/// enclosing repeat body that is the carried value (LANGUAGE.md §7), which
/// the name keeps after the body; checkCarried has checked its type. The
/// symbol keeps its first range, for "first declared here" notes.
void Sema::bindTensor(const Ident &Name, Value *V) {
  if (V)
    Bound.push_back({Name, V});
  Symbol *Old = lookup(Name.Name);
  if (Old && Old->Kind != SymKind::Tensor) {
    Diags.report(Name.Range, diag::Redeclaration, Name.Name);
    Diags.report(Old->Range, diag::PreviousDeclaration, Name.Name);
    return;
  }
  Symbol S{SymKind::Tensor, Old ? Old->Range : Name.Range, V == nullptr};
  S.Tensor = V;
  if (Old)
    logCarried(Name.Name, Old);
  if (Old)
    *Old = S;
  else
    Scopes.back().try_emplace(Name.Name, S);
}

/// Records \p Old, a tensor about to get a new value, as carried by every
/// enclosing repeat whose body it was declared outside of, with the value
/// it entered that loop with (the first one logged).
void Sema::logCarried(llvm::StringRef Name, Symbol *Old) {
  size_t Declared = Scopes.size();
  while (Declared-- > 0)
    if (Scopes[Declared].count(Name))
      break;
  for (CarriedLog &L : Repeats)
    if (L.Scope > Declared &&
        llvm::none_of(L.Entries, [&](auto &E) { return E.first == Old; }))
      L.Entries.push_back({Old, Old->Tensor});
}

/// LANGUAGE.md §7: inside a repeat body, assigning a tensor declared outside
/// it carries the value to the next iteration, which reads it as the type
/// it entered with; so the type must stay that one.
bool Sema::checkCarried(const AssignDecl &D, const ShardType &T) {
  if (Scopes.size() == 1 || Scopes.back().count(D.Out.Name))
    return true; // not in a body, or the body's own name
  Symbol *S = lookup(D.Out.Name);
  if (!S || S->Kind != SymKind::Tensor || !S->Tensor || S->Tensor->type() == T)
    return true;
  Diags.report(llvm::SMRange(D.Out.Range.Start, D.OutType.Range.End),
               diag::CarriedTypeChange, D.Out.Name, typeStr(S->Tensor->type()),
               typeStr(T));
  Diags.report(S->Range, diag::PreviousDeclaration, D.Out.Name);
  return false;
}

void Sema::tensor(const TensorDecl &D) {
  if (!chooseMesh(D.Range))
    return;
  Declaring = D.Name.Name;
  std::optional<ShardType> T = resolveType(D.Type, /*NeedDType=*/true);
  Declaring = {};
  Value *V = nullptr;
  if (T) {
    unsigned St = addStatement(D.Range, D.Name.Name, OpKind::Input);
    V = Builder
            ->create<InputOp>(Diags.location(D.Range.Start), St, {},
                              D.Name.Name, *T)
            ->result();
  }
  Symbol S{SymKind::Tensor, D.Name.Range, V == nullptr};
  S.Tensor = V;
  if (V)
    Bound.push_back({D.Name, V});
  declare(D.Name, S);
}

void Sema::repeat(const RepeatDecl &D) {
  if (!D.Over.Name.empty())
    PipelineWritten = true;
  if (!D.Over.Name.empty() && HasServe) {
    Diags.report(D.Over.Range, diag::ServePipeline);
    return;
  }
  if (!chooseMesh(D.Range))
    return;
  std::optional<Quantity> N = eval(*D.Count);
  if (!N)
    return;
  if (!N->Dim.isCount() || !N->IsInt || N->Int < 1 || N->Int > MaxRepeat) {
    Diags.report(D.Count->Range, diag::RepeatCount, MaxRepeat, N->str());
    return;
  }
  int64_t Saved = RepeatProduct;
  if (__builtin_mul_overflow(RepeatProduct, N->Int, &RepeatProduct) ||
      RepeatProduct > (int64_t(1) << 62)) {
    Diags.report(D.Count->Range, diag::IntegerOverflow);
    RepeatProduct = Saved;
    return;
  }
  std::optional<AxisId> Pipe;
  if (!D.Over.Name.empty() && !(Pipe = pipelineAxis(D, N->Int))) {
    RepeatProduct = Saved;
    return;
  }
  auto *R = Builder->createNoResult<RepeatOp>(
      Diags.location(D.Range.Start), NoStmt, N->Int, Pipe,
      Diags.location(D.Count->Range.Start), Diags.location(D.Over.Range.Start));
  if (Pipe && !D.Split.empty())
    stageSplit(D, *R);
  Block &Outer = Builder->block();
  Builder->setInsertionPointToEnd(R->body());
  Scopes.emplace_back();
  Repeats.push_back({Scopes.size() - 1, R, {}});
  // A divisibility failure is reported after the statements, but fails the
  // body as any error does.
  size_t ErrorsBefore = Diags.errorCount() + UndivisibleUses;
  for (const DeclPtr &Item : D.Body) {
    if (Diags.shouldStop())
      break;
    if (auto *L = llvm::dyn_cast<LetDecl>(Item.get()))
      lets(L->Bindings);
    else if (llvm::isa<TensorDecl, ParamDecl, CacheDecl, AssignDecl,
                       RepeatDecl>(Item.get()))
      programItem(*Item);
    else
      Diags.report(Item->Range, diag::DeclNotAllowedInRepeat,
                   declKindSpelling(Item->Kind));
  }
  if (Pipe && Diags.errorCount() + UndivisibleUses > ErrorsBefore)
    PipelineBodyFailed = true;
  for (auto [S, Init] : Repeats.back().Entries)
    if (Init && S->Tensor && S->Tensor != Init)
      R->addCarried(Init, S->Tensor);
  Repeats.pop_back();
  Scopes.pop_back();
  Builder->setInsertionPointToEnd(Outer);
  RepeatProduct = Saved;
}

Value *Sema::operand(const OperandAST &O) {
  Symbol *S = lookup(O.Name.Name);
  if (!S) {
    if (auto Best = closestName(O.Name.Name, namesOf({SymKind::Tensor})))
      Diags.report(O.Name.Range, diag::UndefinedTensorSuggest, O.Name.Name,
                   *Best);
    else
      Diags.report(O.Name.Range, diag::UndefinedTensor, O.Name.Name);
    return nullptr;
  }
  if (S->Kind != SymKind::Tensor) {
    Diags.report(O.Name.Range, diag::WrongKindOfName, O.Name.Name,
                 symKindName(S->Kind), "tensor");
    return nullptr;
  }
  if (S->Poisoned || !O.Type)
    return S->Tensor;
  return writtenMatches(O, S->Tensor->type()) ? S->Tensor : nullptr;
}

/// The indices written after an operand's name, as the user wrote them
/// (runs of white space read as one space).
static std::string writtenIndices(const OperandAST &O) {
  const char *From = O.Name.Range.End.getPointer();
  llvm::StringRef Text(From, O.Range.End.getPointer() - From);
  std::string Out;
  for (char C : Text) {
    bool Space = C == ' ' || C == '\t' || C == '\n' || C == '\r';
    if (!Space)
      Out += C;
    else if (!Out.empty() && Out.back() != ' ')
      Out += ' ';
  }
  return Out;
}

/// An operand written with indices states the tensor's current type; the
/// only check is that it does. A written type that breaks a type rule
/// (`{U_X}` on a tensor sharded over X, an unknown axis, a dim twice) cannot
/// be the current type, so it is that mismatch, with the type to write,
/// that is reported rather than the rule: the rules are for the types that
/// declarations and outputs introduce.
bool Sema::writtenMatches(const OperandAST &O, const ShardType &Current) {
  std::optional<ShardType> Written;
  {
    llvm::SaveAndRestore<bool> Quiet(WrittenOperand, true);
    WrittenTypeBroken = false;
    Written = resolveType(*O.Type, /*NeedDType=*/false);
  }
  if (!Written && !WrittenTypeBroken)
    return false; // it names a dim whose declaration was the error
  if (Written) {
    Written->Elt = Current.Elt;
    if (*Written == Current)
      return true;
  }
  Diags.report(O.Range, diag::ShardingMismatch, O.Name.Name, writtenIndices(O),
               typeStr(Current, false));
  return false;
}

bool Sema::checkPeak(const AssignDecl &D, DType T, bool Matmul) {
  const ChipSpec &C = Mesh->Cluster->Chip;
  if ((Matmul ? C.matmulPeak(T) : C.vectorPeak(T)) > 0)
    return true;
  Diags.report(D.Range, diag::MeshNoChipPeak, C.Name, dtypeName(T));
  return false;
}

/// The unreduced axis \p To asks for that \p From does not have: no
/// collective creates partial sums.
static std::optional<AxisId> unreducedFromNothing(const ShardType &From,
                                                  const ShardType &To) {
  AxisSet Extra = To.Unreduced.without(From.Unreduced);
  if (Extra.empty())
    return std::nullopt;
  return Extra.list().front();
}

llvm::SMRange shardc::unreducedRange(const TensorTypeAST &T) {
  if (T.Unreduced.empty())
    return T.Range;
  return {T.Unreduced.front().Range.Start, T.Unreduced.back().Range.End};
}

void Sema::assign(const AssignDecl &D) {
  if (!chooseMesh(D.Range))
    return;
  if (D.Rhs == RhsKind::Call && D.Callee.Name == "attention")
    for (unsigned I = 1; I < D.Args.size() && I < 3; ++I)
      KvOperands.insert(D.Args[I].Name.Name);
  llvm::SmallVector<Value *, 2> Args;
  bool Ok = true;
  for (const OperandAST &O : D.Args) {
    Value *V = operand(O);
    Ok &= V != nullptr;
    Args.push_back(V);
  }
  Declaring = D.Out.Name;
  std::optional<ShardType> Out =
      resolveType(D.OutType, /*NeedDType=*/!D.OutType.DType.Name.empty());
  Declaring = {};
  if (!Ok || !Out) {
    bindTensor(D.Out, nullptr);
    return;
  }
  // Set in two steps: the conditional expression made GCC 12 warn that the
  // optional may be read uninitialized (it may not).
  std::optional<ModelBuiltin> Model;
  if (D.Rhs == RhsKind::Call)
    Model = parseModelBuiltin(D.Callee.Name);
  if (D.OutType.DType.Name.empty())
    Out->Elt = Model ? defaultDType(*Model, Args) : Args[0]->type().Elt;
  // `*` where one operand has the output's dims and the other some of them
  // (nothing contracted) is an elementwise product, broadcast when the dims
  // differ (`C[I, K] * bias[K]`); otherwise it is an einsum.
  auto Broadcast = [&](const ShardType &Full, const ShardType &Other) {
    return Full.sameDims(*Out) && Other.dimsWithin(*Out);
  };
  bool Contract = D.Rhs == RhsKind::Binary && D.Op == '*' &&
                  !Broadcast(Args[0]->type(), Args[1]->type()) &&
                  !Broadcast(Args[1]->type(), Args[0]->type());
  // Token ids are never a matmul operand (LANGUAGE.md §2).
  if (Contract)
    for (unsigned I = 0; I < 2; ++I)
      if (Args[I]->type().Elt == DType::int32) {
        Diags.report(D.Args[I].Range, diag::IntMatmulOperand,
                     D.Args[I].Name.Name);
        bindTensor(D.Out, nullptr);
        return;
      }
  // A model builtin checks its own operands (token ids are int32). A
  // serving program's contraction may mix dtypes (fp8 weights, bf16
  // activations): each operand's bytes at its dtype, the math at
  // `compute` (or the wider operand's), the result in the wider.
  bool Mixed =
      Contract && ServeBlock && Args[0]->type().Elt != Args[1]->type().Elt;
  if (Mixed && D.OutType.DType.Name.empty() &&
      dtypeBytes(Args[1]->type().Elt) > dtypeBytes(Args[0]->type().Elt))
    Out->Elt = Args[1]->type().Elt;
  for (Value *V : Args)
    if (!Model && !Mixed && V->type().Elt != Args[0]->type().Elt) {
      Diags.report(D.Args[1].Range, diag::DTypeMismatch,
                   dtypeName(Args[0]->type().Elt), dtypeName(V->type().Elt));
      bindTensor(D.Out, nullptr);
      return;
    }
  // Gradients do not flow through integers: a training step cannot compute
  // an int32 value from a floating-point one (LANGUAGE.md §7). A model
  // builtin also takes int32 ids, so its first floating-point operand is the
  // one whose gradient would be dropped.
  if (Config.Train && Out->Elt == DType::int32)
    for (unsigned I = 0; I < Args.size(); ++I)
      if (Args[I]->type().Elt != DType::int32) {
        Diags.report(D.OutType.Range, diag::IntGradient, D.Out.Name,
                     D.Args[I].Name.Name);
        bindTensor(D.Out, nullptr);
        return;
      }
  if (!checkCarried(D, *Out)) {
    bindTensor(D.Out, nullptr);
    return;
  }
  Op *O = Contract                 ? contraction(D, Args, *Out)
          : Model                  ? modelBuiltin(D, *Model, Args, *Out)
          : D.Rhs == RhsKind::Copy ? reshard(D, Args, *Out)
                                   : elementwise(D, Args, *Out);
  bindTensor(D.Out, O ? O->result() : nullptr);
}

Op *Sema::contraction(const AssignDecl &D, llvm::ArrayRef<Value *> Args,
                      const ShardType &Out) {
  const ShardType &L = Args[0]->type(), &R = Args[1]->type();
  for (unsigned I = 0; I < 2; ++I)
    if (!Args[I]->type().Unreduced.empty()) {
      Diags.report(D.Args[I].Range, diag::UnreducedNotAllowed, "a contraction",
                   D.Args[I].Name.Name);
      return nullptr;
    }
  for (unsigned K = 0; K < Out.Dims.size(); ++K)
    if (!L.dimIndex(Out.Dims[K].Id) && !R.dimIndex(Out.Dims[K].Id)) {
      Diags.report(D.OutType.Indices[K].Range, diag::ContractionDimMismatch,
                   Info->Names.Dims[Out.Dims[K].Id]);
      return nullptr;
    }
  llvm::SmallVector<ContractionDim, 4> Dims;
  auto Classify = [&](const ShardType &Self, const ShardType &Other,
                      unsigned Which, DimRole Free) {
    for (const TensorDim &Dm : Self.Dims) {
      bool InOther = Other.dimIndex(Dm.Id).has_value();
      bool InOut = Out.dimIndex(Dm.Id).has_value();
      if (Which == 1 && InOther)
        continue; // already classified from the first operand
      if (!InOther && !InOut) {
        Diags.report(D.Args[Which].Range, diag::ContractionDanglingDim,
                     Info->Names.Dims[Dm.Id], D.Args[Which].Name.Name);
        return false;
      }
      DimRole Role = !InOther ? Free
                     : InOut  ? DimRole::Batch
                              : DimRole::Contracted;
      Dims.push_back({Dm.Id, Dm.Size, Role});
    }
    return true;
  };
  if (!Classify(L, R, 0, DimRole::FreeLhs) ||
      !Classify(R, L, 1, DimRole::FreeRhs))
    return nullptr;
  // Which plans exist depends on the types only (not on the mesh's sizes),
  // so a contraction no plan computes is a type error, reported here.
  if (!hasContractionPlan({L, R, Out, Dims})) {
    Diags.report(unreducedRange(D.OutType), diag::NoContractionPlan,
                 typeStr(Out), typeStr(L), typeStr(R));
    return nullptr;
  }
  // Mixed dtypes (a serving program only): the math at `compute`, else
  // at the wider operand's dtype.
  std::optional<DType> Math;
  if (L.Elt != R.Elt)
    Math = Serve.Compute                           ? *Serve.Compute
           : dtypeBytes(R.Elt) > dtypeBytes(L.Elt) ? R.Elt
                                                   : L.Elt;
  if (!checkPeak(D, Math.value_or(L.Elt), /*Matmul=*/true))
    return nullptr;
  noteTensorParallel(L, R, Args, Dims, D);
  unsigned St = addStatement(D.Range, D.Out.Name, OpKind::Contraction);
  Op *O = Builder->create<ContractionOp>(Diags.location(D.Range.Start), St,
                                         Args, D.Out.Name, Out, Dims);
  if (Math)
    llvm::cast<ContractionOp>(O)->setMathDType(*Math);
  return O;
}

Op *Sema::elementwise(const AssignDecl &D, llvm::ArrayRef<Value *> Args,
                      const ShardType &Out) {
  std::optional<ElementwiseFn> Fn;
  if (D.Rhs == RhsKind::Scale) {
    Fn = ElementwiseFn::scale;
  } else if (D.Rhs == RhsKind::Binary) {
    Fn = D.Op == '+'   ? ElementwiseFn::add
         : D.Op == '-' ? ElementwiseFn::sub
                       : ElementwiseFn::mul;
  } else {
    Fn = parseElementwise(D.Callee.Name);
    if (!Fn) {
      if (auto Best = closestName(D.Callee.Name, builtinNames()))
        Diags.report(D.Callee.Range, diag::UnknownFunctionSuggest,
                     D.Callee.Name, *Best);
      else
        Diags.report(D.Callee.Range, diag::UnknownFunction, D.Callee.Name,
                     llvm::join(builtinNames(), ", "));
      return nullptr;
    }
    if (Args.size() != elementwiseArity(*Fn)) {
      Diags.report(D.Callee.Range, diag::WrongArity, D.Callee.Name,
                   elementwiseArity(*Fn), unsigned(Args.size()));
      return nullptr;
    }
    if (!D.Options.empty()) {
      Diags.report(D.Options.front().Name.Range, diag::BuiltinNoOptions,
                   D.Callee.Name);
      return nullptr;
    }
    // softmax and the norms reduce over the last dim (LANGUAGE.md §8).
    if (elementwiseNormalises(*Fn) &&
        !checkLastDimWhole(D, 0, Args[0]->type(), D.Callee.Name))
      return nullptr;
  }
  // A binary builtin broadcasts: one operand may have some of the other's
  // dims.
  unsigned Full = fullOperand(Args, Out);
  const ShardType &First = Args[Full]->type();
  for (unsigned I = 0; I < Args.size(); ++I) {
    if (I != Full &&
        !checkElementwiseOperand(D.Args[I], Args[I]->type(), First))
      return nullptr;
  }
  // Partial sums survive only linear maps: a sum or difference of partial
  // sums over the same axes is still one, and so is a negated one.
  if (!First.Unreduced.empty() && !elementwiseIsLinear(*Fn)) {
    Diags.report(D.Args[Full].Range, diag::UnreducedNotAllowed,
                 "'" + elementwiseName(*Fn).str() + "'",
                 D.Args[Full].Name.Name);
    return nullptr;
  }
  if (!Out.sameDims(First)) {
    if (!reportBareShape(Diags, Info->Names, D.Args[Full], First, Out))
      Diags.report(D.OutType.Range, diag::ElementwiseOutputMismatch,
                   dimListStr(Out, Info->Names),
                   dimListStr(First, Info->Names));
    return nullptr;
  }
  // The op computes in its operands' sharding and is resharded to the
  // written type, which cannot ask for partial sums the operands lack.
  if (auto A = unreducedFromNothing(First, Out)) {
    Diags.report(unreducedRange(D.OutType), diag::TargetUnreducedFromNothing,
                 Mesh->Axes[*A].Name);
    return nullptr;
  }
  if (!checkPeak(D, First.Elt, /*Matmul=*/false))
    return nullptr;
  unsigned St = addStatement(D.Range, D.Out.Name, OpKind::Elementwise);
  // In a training step dropout writes and keeps its mask.
  return Builder->create<ElementwiseOp>(Diags.location(D.Range.Start), St, Args,
                                        D.Out.Name, Out, *Fn,
                                        Config.Train.has_value());
}

bool Sema::checkElementwiseOperand(const OperandAST &O, const ShardType &T,
                                   const ShardType &Full) {
  if (T.sameDims(Full)) {
    if (T.sameSharding(Full) && T.Unreduced == Full.Unreduced)
      return true;
    Diags.report(O.Range, diag::ElementwiseShardingMismatch,
                 typeStr(Full, false), typeStr(T, false));
    return false;
  }
  if (!T.dimsWithin(Full)) {
    if (!reportBareShape(Diags, Info->Names, O, T, Full))
      Diags.report(O.Range, diag::ElementwiseShapeMismatch,
                   dimListStr(Full, Info->Names), dimListStr(T, Info->Names));
    return false;
  }
  // A broadcast operand is resharded to the full one's sharding on the dims
  // they share (insert-collectives), but partial sums cannot be: adding a
  // replicated bias to each summand would add it once per summand.
  if (T.Unreduced == Full.Unreduced)
    return true;
  Diags.report(O.Range, diag::BroadcastUnreducedMismatch, typeStr(Full, false),
               typeStr(T, false));
  return false;
}

Op *Sema::reshard(const AssignDecl &D, llvm::ArrayRef<Value *> Args,
                  ShardType &Out) {
  const ShardType &In = Args[0]->type();
  if (!Out.sameDims(In)) {
    if (!reportBareShape(Diags, Info->Names, D.Args[0], In, Out))
      Diags.report(D.OutType.Range, diag::ReshardDimMismatch,
                   dimListStr(In, Info->Names), dimListStr(Out, Info->Names));
    return nullptr;
  }
  if (auto A = unreducedFromNothing(In, Out)) {
    Diags.report(unreducedRange(D.OutType), diag::TargetUnreducedFromNothing,
                 Mesh->Axes[*A].Name);
    return nullptr;
  }
  Out.Elt = D.OutType.DType.Name.empty() ? In.Elt : Out.Elt;
  // A change of dtype converts, on the vector units, from the source dtype.
  if (Out.Elt != In.Elt && !checkPeak(D, In.Elt, /*Matmul=*/false))
    return nullptr;
  unsigned St = addStatement(D.Range, D.Out.Name, OpKind::Reshard);
  return Builder->create<ReshardOp>(Diags.location(D.Range.Start), St, Args,
                                    D.Out.Name, Out);
}
