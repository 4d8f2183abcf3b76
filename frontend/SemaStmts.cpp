//===- SemaStmts.cpp - Tensors, statements and repeat, lowered to IR ------===//
//
// Phase two of checking. Each statement becomes one high-level op whose
// result has the type the user wrote; insert-collectives later turns that
// into local ops and collectives. A tensor's symbol always points at its
// current value, which is what operands written with indices must match.
//
//===----------------------------------------------------------------------===//
#include "frontend/Sema.h"

using namespace shardc;

namespace {
constexpr int64_t MaxRepeat = int64_t(1) << 32;

std::string dimList(const ShardType &T) {
  std::string S = "[";
  for (size_t I = 0; I < T.Dims.size(); ++I)
    S += (I ? ", " : "") + T.Dims[I].Name;
  return S + "]";
}

/// A bare operand (`x`, written without indices) whose dims do not fit the
/// statement is reported at the operand with its dims, which the user never
/// wrote. Returns false when \p O was written with indices.
bool reportBareShape(DiagnosticEngine &Diags, const OperandAST &O,
                     const ShardType &Has, const ShardType &Needs) {
  if (O.Type)
    return false;
  Diags.report(O.Range, diag::BareOperandShape, O.Name.Name, dimList(Has),
               dimList(Needs));
  return true;
}
} // namespace

void Sema::programItem(const Decl &D) {
  if (auto *T = llvm::dyn_cast<TensorDecl>(&D))
    tensor(*T);
  else if (auto *R = llvm::dyn_cast<RepeatDecl>(&D))
    repeat(*R);
  else if (auto *A = llvm::dyn_cast<AssignDecl>(&D))
    assign(*A);
}

unsigned Sema::addStatement(llvm::SMRange R, const std::string &Name,
                            llvm::StringRef Kind) {
  Statement S;
  S.Name = Name;
  S.Loc = R.Start;
  S.Line = Diags.sourceMgr().FindLineNumber(R.Start);
  S.KindName = Kind.str();
  S.Repeat = RepeatProduct;
  IR->Statements.push_back(std::move(S));
  return IR->Statements.size() - 1;
}

void Sema::bindTensor(const Ident &Name, Value *V) {
  Symbol *Old = lookup(Name.Name);
  if (Old && Old->Kind != SymKind::Tensor) {
    Diags.report(Name.Range, diag::Redeclaration, Name.Name);
    Diags.report(Old->Range, diag::PreviousDeclaration, Name.Name);
    return;
  }
  auto &Scope = Scopes.back();
  auto It = Scope.find(Name.Name);
  Symbol S{SymKind::Tensor, Name.Range, V == nullptr};
  S.Tensor = V;
  if (It == Scope.end())
    Scope.try_emplace(Name.Name, S);
  else
    It->second = S; // a statement rebinding a tensor gives it a new value
}

void Sema::tensor(const TensorDecl &D) {
  if (!chooseMesh(D.Range))
    return;
  std::optional<ShardType> T = resolveType(D.Type, /*NeedDType=*/true);
  auto Op = std::make_unique<Operation>(OpKind::Input);
  Op->Loc = D.Range.Start;
  Value *V = nullptr;
  if (T) {
    Op->Stmt = addStatement(D.Range, D.Name.Name, "input");
    V = IR->newValue(D.Name.Name, *T, Op.get());
    Op->Result = V;
    IR->append(*Blocks.back(), std::move(Op));
  }
  Symbol S{SymKind::Tensor, D.Name.Range, V == nullptr};
  S.Tensor = V;
  declare(D.Name, S);
}

void Sema::repeat(const RepeatDecl &D) {
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
  auto Op = std::make_unique<Operation>(OpKind::Repeat);
  Op->Loc = D.Range.Start;
  Op->TripCount = N->Int;
  Op->Body = std::make_unique<Block>();
  Operation *R = IR->append(*Blocks.back(), std::move(Op));
  Blocks.push_back(R->Body.get());
  Scopes.emplace_back();
  for (const DeclPtr &Item : D.Body) {
    if (Diags.shouldStop())
      break;
    if (auto *L = llvm::dyn_cast<LetDecl>(Item.get()))
      lets(L->Bindings);
    else if (llvm::isa<TensorDecl, AssignDecl, RepeatDecl>(Item.get()))
      programItem(*Item);
    else
      Diags.report(Item->Range, diag::DeclNotAllowedInRepeat,
                   declKindSpelling(Item->Kind));
  }
  Scopes.pop_back();
  Blocks.pop_back();
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
  std::optional<ShardType> Written = resolveType(*O.Type, false);
  if (!Written)
    return nullptr;
  Written->Elt = S->Tensor->Type.Elt;
  if (!(*Written == S->Tensor->Type)) {
    Diags.report(O.Range, diag::ShardingMismatch, O.Name.Name,
                 Written->str(*Mesh, false), S->Tensor->Type.str(*Mesh, false));
    return nullptr;
  }
  return S->Tensor;
}

bool Sema::checkPeak(const AssignDecl &D, DType T, bool Matmul) {
  const ChipSpec &C = Mesh->Cluster->Chip;
  if ((Matmul ? C.matmulPeak(T) : C.vectorPeak(T)) > 0)
    return true;
  Diags.report(D.Range, diag::MeshNoChipPeak, C.Name, dtypeName(T));
  return false;
}

void Sema::assign(const AssignDecl &D) {
  if (!chooseMesh(D.Range))
    return;
  llvm::SmallVector<Value *, 2> Args;
  bool Ok = true;
  for (const OperandAST &O : D.Args) {
    Value *V = operand(O);
    Ok &= V != nullptr;
    Args.push_back(V);
  }
  std::optional<ShardType> Out =
      resolveType(D.OutType, /*NeedDType=*/!D.OutType.DType.Name.empty());
  if (!Ok || !Out) {
    bindTensor(D.Out, nullptr);
    return;
  }
  if (D.OutType.DType.Name.empty())
    Out->Elt = Args[0]->Type.Elt;
  for (Value *V : Args)
    if (V->Type.Elt != Args[0]->Type.Elt) {
      Diags.report(D.Args[1].Range, diag::DTypeMismatch,
                   dtypeName(Args[0]->Type.Elt), dtypeName(V->Type.Elt));
      bindTensor(D.Out, nullptr);
      return;
    }
  // `*` between operands with identical dims (and the same as the output) is
  // an elementwise product; otherwise it is an einsum.
  bool Contract =
      D.Rhs == RhsKind::Binary && D.Op == '*' &&
      !(Args[0]->Type.sameDims(Args[1]->Type) && Args[0]->Type.sameDims(*Out));
  auto Op = std::make_unique<Operation>(Contract ? OpKind::Contraction
                                        : D.Rhs == RhsKind::Copy
                                            ? OpKind::Reshard
                                            : OpKind::Elementwise);
  Op->Loc = D.Range.Start;
  Op->Operands.assign(Args.begin(), Args.end());
  bool Checked = Contract                 ? contraction(D, *Op, *Out)
                 : D.Rhs == RhsKind::Copy ? reshard(D, *Op, *Out)
                                          : elementwise(D, *Op, *Out);
  if (!Checked) {
    bindTensor(D.Out, nullptr);
    return;
  }
  Op->Stmt = addStatement(D.Range, D.Out.Name,
                          Contract                 ? "contraction"
                          : D.Rhs == RhsKind::Copy ? "reshard"
                                                   : "elementwise");
  Value *V = IR->newValue(D.Out.Name, *Out, Op.get());
  Op->Result = V;
  IR->append(*Blocks.back(), std::move(Op));
  bindTensor(D.Out, V);
}

bool Sema::contraction(const AssignDecl &D, Operation &Op, ShardType &Out) {
  const ShardType &L = Op.Operands[0]->Type, &R = Op.Operands[1]->Type;
  for (unsigned I = 0; I < 2; ++I)
    if (!Op.Operands[I]->Type.Unreduced.empty()) {
      Diags.report(D.Args[I].Range, diag::UnreducedNotAllowed, "a contraction",
                   D.Args[I].Name.Name);
      return false;
    }
  for (unsigned K = 0; K < Out.Dims.size(); ++K)
    if (!L.dimIndex(Out.Dims[K].Name) && !R.dimIndex(Out.Dims[K].Name)) {
      Diags.report(D.OutType.Indices[K].Range, diag::ContractionDimMismatch,
                   Out.Dims[K].Name);
      return false;
    }
  auto Classify = [&](const ShardType &Self, const ShardType &Other,
                      unsigned Which, DimRole Free) {
    for (const TensorDim &Dm : Self.Dims) {
      bool InOther = Other.dimIndex(Dm.Name).has_value();
      bool InOut = Out.dimIndex(Dm.Name).has_value();
      if (Which == 1 && InOther)
        continue; // already classified from the first operand
      if (!InOther && !InOut) {
        Diags.report(D.Args[Which].Range, diag::ContractionDanglingDim, Dm.Name,
                     D.Args[Which].Name.Name);
        return false;
      }
      DimRole Role = !InOther ? Free
                     : InOut  ? DimRole::Batch
                              : DimRole::Contracted;
      Op.ContractDims.push_back({Dm.Name, Dm.Size, Role});
    }
    return true;
  };
  if (!Classify(L, R, 0, DimRole::FreeLhs) ||
      !Classify(R, L, 1, DimRole::FreeRhs))
    return false;
  return checkPeak(D, L.Elt, /*Matmul=*/true);
}

bool Sema::elementwise(const AssignDecl &D, Operation &Op, ShardType &Out) {
  std::optional<ElementwiseFn> Fn;
  if (D.Rhs == RhsKind::Binary) {
    Fn = D.Op == '+'   ? ElementwiseFn::add
         : D.Op == '-' ? ElementwiseFn::sub
                       : ElementwiseFn::mul;
  } else {
    Fn = parseElementwise(D.Callee.Name);
    if (!Fn) {
      std::vector<std::string> Names;
#define ELEMENTWISE(Name, Flops, Arity) Names.push_back(#Name);
#include "ir/Elementwise.def"
      if (auto Best = closestName(D.Callee.Name, Names))
        Diags.report(D.Callee.Range, diag::UnknownFunctionSuggest,
                     D.Callee.Name, *Best);
      else
        Diags.report(D.Callee.Range, diag::UnknownFunction, D.Callee.Name);
      return false;
    }
    if (Op.Operands.size() != elementwiseArity(*Fn)) {
      Diags.report(D.Callee.Range, diag::WrongArity, D.Callee.Name,
                   elementwiseArity(*Fn), unsigned(Op.Operands.size()));
      return false;
    }
  }
  Op.Fn = *Fn;
  const ShardType &First = Op.Operands[0]->Type;
  for (unsigned I = 1; I < Op.Operands.size(); ++I) {
    const ShardType &T = Op.Operands[I]->Type;
    if (!T.sameDims(First)) {
      if (!reportBareShape(Diags, D.Args[I], T, First))
        Diags.report(D.Args[I].Range, diag::ElementwiseShapeMismatch,
                     dimList(First), dimList(T));
      return false;
    }
    if (T.Dims != First.Dims || T.Unreduced != First.Unreduced) {
      Diags.report(D.Args[I].Range, diag::ElementwiseShardingMismatch,
                   First.str(*Mesh, false), T.str(*Mesh, false));
      return false;
    }
  }
  // Partial sums survive only linear maps: a sum or difference of partial
  // sums over the same axes is still one.
  bool Linear = *Fn == ElementwiseFn::add || *Fn == ElementwiseFn::sub;
  if (!First.Unreduced.empty() && !Linear) {
    Diags.report(D.Args[0].Range, diag::UnreducedNotAllowed,
                 "'" + elementwiseName(*Fn).str() + "'", D.Args[0].Name.Name);
    return false;
  }
  if (!Out.sameDims(First)) {
    if (!reportBareShape(Diags, D.Args[0], First, Out))
      Diags.report(D.OutType.Range, diag::ElementwiseOutputMismatch,
                   dimList(Out), dimList(First));
    return false;
  }
  return checkPeak(D, First.Elt, /*Matmul=*/false);
}

bool Sema::reshard(const AssignDecl &D, Operation &Op, ShardType &Out) {
  const ShardType &In = Op.Operands[0]->Type;
  if (!Out.sameDims(In)) {
    if (!reportBareShape(Diags, D.Args[0], In, Out))
      Diags.report(D.OutType.Range, diag::ReshardDimMismatch, dimList(In),
                   dimList(Out));
    return false;
  }
  for (unsigned A : Out.Unreduced)
    if (!In.isUnreducedOver(A)) {
      Diags.report(D.OutType.Range, diag::TargetUnreducedFromNothing,
                   Mesh->Axes[A].Name);
      return false;
    }
  Out.Elt = D.OutType.DType.Name.empty() ? In.Elt : Out.Elt;
  return true;
}
