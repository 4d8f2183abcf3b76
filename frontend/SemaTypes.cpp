//===- SemaTypes.cpp - The book's sharded types (LANGUAGE.md §4) ----------===//
//
// Resolves `bf16[I_XY, J]{U_Z}`: each index to a declared dim and its mesh
// axes, the unreduced set to axes, then checks the four rules: axes exist,
// each axis is used once, sizes divide, dims are declared.
//
//===----------------------------------------------------------------------===//
#include "frontend/Sema.h"
#include "llvm/ADT/StringExtras.h"

using namespace shardc;

namespace {
constexpr unsigned MaxDims = 16;
constexpr int64_t MaxElements = int64_t(1) << 62;
constexpr unsigned MaxSplits = 2;
} // namespace

/// Splits subscript \p Sub into mesh axis names, every way it can be split.
/// Counting stops at two: two already makes the split ambiguous.
static void splits(llvm::StringRef Sub, const MeshSpec &M, AxisList &Cur,
                   std::vector<AxisList> &Out) {
  if (Out.size() >= MaxSplits)
    return;
  if (Sub.empty()) {
    Out.emplace_back(Cur.begin(), Cur.end());
    return;
  }
  for (unsigned A = 0; A < M.Axes.size(); ++A) {
    if (!Sub.startswith(M.Axes[A].Name))
      continue;
    Cur.push_back(AxisId(A));
    splits(Sub.drop_front(M.Axes[A].Name.size()), M, Cur, Out);
    Cur.pop_back();
  }
}

static std::string meshAxisNames(const MeshSpec &M) {
  std::vector<std::string> Names;
  for (const MeshAxis &A : M.Axes)
    Names.push_back(A.Name);
  return llvm::join(Names, ", ");
}

bool Sema::splitAxes(const Ident &Id, llvm::StringRef Sub, AxisList &Axes) {
  std::vector<AxisList> Found;
  AxisList Cur;
  splits(Sub, *Mesh, Cur, Found);
  if (Found.size() == 1) {
    Axes.append(Found[0].begin(), Found[0].end());
    return true;
  }
  std::string Base = Id.Name.substr(0, Id.Name.size() - Sub.size() - 1);
  if (Found.empty()) {
    typeError(Id.Range, diag::UnknownAxis, Mesh->Name, Sub.str(),
              meshAxisNames(*Mesh));
    return false;
  }
  std::vector<std::string> Ways;
  for (const auto &F : Found) {
    std::vector<std::string> Parts;
    for (AxisId A : F)
      Parts.push_back(Mesh->Axes[A].Name);
    Ways.push_back("{" + llvm::join(Parts, ",") + "}");
  }
  typeError(Id.Range, diag::AmbiguousAxisSplit, Id.Name,
            llvm::join(Ways, " or "), Base);
  return false;
}

/// The dim an undeclared index meant: without its subscript when the part
/// after the last '_' reads as mesh axes (`heads_Y`), else the whole name
/// (`d_modle`), so that "did you mean" compares like with like.
static llvm::StringRef intendedDim(llvm::StringRef Name, const MeshSpec &M) {
  size_t P = Name.rfind('_');
  if (P == llvm::StringRef::npos || P == 0)
    return Name;
  std::vector<AxisList> Found;
  AxisList Cur;
  splits(Name.drop_front(P + 1), M, Cur, Found);
  return Found.empty() ? Name : Name.take_front(P);
}

/// The axes of a braced subscript `{a,b}`, each of which must exist.
bool Sema::resolveBracedAxes(llvm::ArrayRef<Ident> Names, AxisList &Axes) {
  for (const Ident &A : Names) {
    std::optional<unsigned> Idx = Mesh->axisIndex(A.Name);
    if (!Idx) {
      typeError(A.Range, diag::UnknownAxis, Mesh->Name, A.Name,
                meshAxisNames(*Mesh));
      return false;
    }
    Axes.push_back(AxisId(*Idx));
  }
  return true;
}

/// Finds the dim an index names: the whole name, or the longest declared dim
/// `D` such that the name is `D_<subscript>` (so `d_model_X` works).
bool Sema::resolveIndex(const IndexAST &I, TensorDim &Out) {
  llvm::StringRef Name = I.Id.Name;
  llvm::StringRef DimName, Sub;
  if (I.Braced) {
    if (!Name.endswith("_")) {
      typeError(I.Id.Range, diag::BracedNeedsUnderscore, Name.str());
      return false;
    }
    DimName = Name.drop_back();
  } else if (const Symbol *S = lookup(Name); S && S->Kind == SymKind::Dim) {
    DimName = Name;
  } else {
    for (size_t P = Name.size(); P-- > 1;) {
      if (Name[P] != '_')
        continue;
      const Symbol *S = lookup(Name.take_front(P));
      if (S && S->Kind == SymKind::Dim) {
        DimName = Name.take_front(P);
        Sub = Name.drop_front(P + 1);
        break;
      }
    }
  }
  const Symbol *S = DimName.empty() ? nullptr : lookup(DimName);
  if (!S || S->Kind != SymKind::Dim) {
    std::string Wanted =
        (DimName.empty() ? intendedDim(Name, *Mesh) : DimName).str();
    if (RejectedDims.count(Wanted))
      return false; // its redeclaration was the error
    if (auto Best = closestName(Wanted, namesOf({SymKind::Dim})))
      typeError(I.Id.Range, diag::UndeclaredDimSuggest, Wanted, *Best);
    else
      typeError(I.Id.Range, diag::UndeclaredDim, Wanted);
    return false;
  }
  if (S->Poisoned)
    return false;
  Out.Id = S->Dim;
  Out.Size = S->Value.Int;
  if (I.Braced)
    return resolveBracedAxes(I.BracedAxes, Out.Axes);
  return Sub.empty() || splitAxes(I.Id, Sub, Out.Axes);
}

bool Sema::resolveUnreduced(const IndexAST &I, AxisList &Axes) {
  llvm::StringRef Name = I.Id.Name;
  if (I.Braced && Name == "U_")
    return resolveBracedAxes(I.BracedAxes, Axes);
  if (I.Braced || !Name.startswith("U_") || Name.size() == 2) {
    typeError(I.Range, diag::BadUnreducedEntry, Name.str());
    return false;
  }
  return splitAxes(I.Id, Name.drop_front(2), Axes);
}

/// Rule 2: a mesh axis appears at most once per tensor, subscripts and
/// `{U_..}` together. \p Uses lists each axis with where it was written.
bool Sema::checkAxes(llvm::ArrayRef<std::pair<AxisId, llvm::SMRange>> Uses) {
  llvm::SmallVector<llvm::SMRange, 8> First(Mesh->Axes.size());
  for (auto [A, R] : Uses) {
    if (!First[A].Start.isValid()) {
      First[A] = R;
      continue;
    }
    typeError(R, diag::AxisUsedTwice, Mesh->Axes[A].Name);
    typeError(First[A], diag::AxisFirstUse, Mesh->Axes[A].Name);
    return false;
  }
  return true;
}

/// Rule 3: a dim's size is divisible by the product of its axes' sizes,
/// unless padding is allowed (then the cost counts the padding). A failure
/// is recorded, not reported: reportUndivisible reports each cause once.
bool Sema::checkDivisible(const IndexAST &I, const TensorDim &D,
                          bool HeadsIndex) {
  int64_t Shards = axesProduct(D.Axes, *Mesh);
  // A phase dim's sizes are the serving instances': the serve engine's
  // compiles check them (a `new` dim, 1 in decode, is never sharded).
  if (isPhaseDim(D.Id)) {
    if (Serve.Dims[1] && D.Id == *Serve.Dims[1] && !D.Axes.empty() &&
        Shards > 1) {
      std::vector<std::string> Names;
      for (AxisId A : D.Axes)
        Names.push_back(Mesh->Axes[A].Name);
      Diags.report(I.Range, diag::NewDimSharded, Info->Names.Dims[D.Id],
                   I.Id.Name, llvm::join(Names, " x "));
    }
    return true;
  }
  if (Config.AllowPadding || D.Size % Shards == 0)
    return true;
  if (WrittenOperand) {
    WrittenTypeBroken = true;
    return false;
  }
  ++UndivisibleUses;
  auto Same = llvm::find_if(Undivisibles, [&](const Undivisible &U) {
    return U.Dim == D.Id && U.Size == D.Size && U.Axes == D.Axes;
  });
  if (Same == Undivisibles.end()) {
    Undivisibles.push_back({D.Id, D.Axes, D.Size, Shards, I.Range, {}, {}});
    Same = std::prev(Undivisibles.end());
  } else {
    Same->More.push_back(I.Range);
  }
  Undivisible &U = *Same;
  if (HeadsIndex && !Declaring.empty())
    U.HeadsOf.insert(Declaring);
  return false;
}

/// One error per dim and axes, at the first use: the caret is on the index
/// that names both the dim and its axes, and the fix may be there (another
/// sharding) as well as at the dim's size, which a note points at (the
/// declaration can be in an import, or serve other uses that divide). The
/// other uses follow as notes, the first few each at its place.
void Sema::reportUndivisible() {
  constexpr size_t ShownUses = 3;
  for (const Undivisible &U : Undivisibles) {
    if (Diags.shouldStop())
      return;
    const std::string &Name = Info->Names.Dims[U.Dim];
    std::vector<std::string> Names;
    for (AxisId A : U.Axes)
      Names.push_back(Mesh->Axes[A].Name + "=" +
                      std::to_string(Mesh->Axes[A].Size));
    std::string Axes = llvm::join(Names, " x ");
    bool KvHeads = llvm::any_of(U.HeadsOf, [&](const auto &T) {
      return KvOperands.contains(T.getKey());
    });
    if (KvHeads)
      Diags.report(U.First, diag::NotDivisibleKvHeads, Name, U.Size, U.Shards,
                   Axes);
    else
      Diags.report(U.First, diag::NotDivisible, Name, U.Size, U.Shards, Axes);
    if (U.Dim < DimDecls.size() && DimDecls[U.Dim].Start.isValid())
      Diags.report(DimDecls[U.Dim], diag::DimSizeDeclaredHere, Name, U.Size,
                   U.Shards);
    for (size_t K = 0; K < U.More.size() && K < ShownUses; ++K)
      Diags.report(U.More[K], diag::NotDivisibleUse, Name, Axes);
    if (U.More.size() > ShownUses)
      Diags.report(U.More[ShownUses], diag::NotDivisibleMoreUses,
                   int64_t(U.More.size() - ShownUses), Name, Axes);
  }
}

/// Where each of \p Axes was written in index \p I. Rule 2 points at the
/// index; when the index itself repeats an axis (`I_{X,X}`, `I_XX`), both
/// uses would point at the same place, so it points at the axis names: the
/// braced ones, or the pieces of the subscript that starts at byte
/// \p SubStart of the identifier (identifiers are ASCII).
static void axisRanges(const IndexAST &I, size_t SubStart,
                       llvm::ArrayRef<AxisId> Axes, const MeshSpec &M,
                       llvm::SmallVectorImpl<llvm::SMRange> &Out) {
  AxisList Sorted(Axes.begin(), Axes.end());
  llvm::sort(Sorted);
  if (std::adjacent_find(Sorted.begin(), Sorted.end()) == Sorted.end()) {
    Out.append(Axes.size(), I.Range);
    return;
  }
  if (I.Braced) {
    for (const Ident &A : I.BracedAxes)
      Out.push_back(A.Range);
    return;
  }
  const char *P = I.Id.Range.Start.getPointer() + SubStart;
  for (AxisId A : Axes) {
    const char *End = P + M.Axes[A].Name.size();
    Out.push_back(
        {llvm::SMLoc::getFromPointer(P), llvm::SMLoc::getFromPointer(End)});
    P = End;
  }
}

/// A dim written twice in one type: the hint spells the one index over both
/// occurrences' axes (`D_X, ..., D_Y` -> `D_{X,Y}`), or over the mesh's
/// first two axes when they name none, and a second dim's name not taken.
void Sema::reportDimRepeated(llvm::SMRange R, const TensorDim &First,
                             const TensorDim &Again) {
  const std::string &Name = Info->Names.Dims[Again.Id];
  std::vector<std::string> Axes;
  for (const AxisList *L : {&First.Axes, &Again.Axes})
    for (AxisId A : *L)
      Axes.push_back(Mesh->Axes[A].Name);
  for (size_t A = 0; Mesh && Axes.size() < 2 && A < Mesh->Axes.size(); ++A)
    if (!llvm::is_contained(Axes, Mesh->Axes[A].Name))
      Axes.push_back(Mesh->Axes[A].Name);
  std::string Joined =
      Axes.size() < 2 ? Name : Name + "_{" + llvm::join(Axes, ",") + "}";
  std::string Second = Name + "2";
  for (int N = 3; lookup(Second); ++N)
    Second = Name + std::to_string(N);
  typeError(R, diag::DimRepeated, Name, Joined, Second);
}

std::optional<ShardType> Sema::resolveType(const TensorTypeAST &T,
                                           bool NeedDType) {
  ShardType S;
  if (NeedDType) {
    std::optional<DType> DT = parseDType(T.DType.Name);
    if (!DT) {
      typeError(T.DType.Range, diag::UnknownDType, T.DType.Name);
      return std::nullopt;
    }
    S.Elt = *DT;
  }
  if (T.Indices.size() > MaxDims) {
    typeError(T.Indices[MaxDims].Range, diag::TooManyDims,
              unsigned(T.Indices.size()), MaxDims);
    return std::nullopt;
  }
  llvm::SmallVector<std::pair<AxisId, llvm::SMRange>, 8> Uses;
  int64_t Elements = 1;
  for (const IndexAST &I : T.Indices) {
    TensorDim D;
    if (!resolveIndex(I, D))
      return std::nullopt;
    if (std::optional<unsigned> Prev = S.dimIndex(D.Id)) {
      reportDimRepeated(I.Range, S.Dims[*Prev], D);
      return std::nullopt;
    }
    if (__builtin_mul_overflow(Elements, D.Size, &Elements) ||
        Elements > MaxElements) {
      typeError(I.Range, diag::ElementsOverflow);
      return std::nullopt;
    }
    llvm::SmallVector<llvm::SMRange, 2> Where;
    axisRanges(I, Info->Names.Dims[D.Id].size() + 1, D.Axes, *Mesh, Where);
    for (unsigned K = 0; K < D.Axes.size(); ++K)
      Uses.push_back({D.Axes[K], Where[K]});
    S.Dims.push_back(std::move(D));
  }
  for (const IndexAST &U : T.Unreduced) {
    AxisList Axes;
    if (!resolveUnreduced(U, Axes))
      return std::nullopt;
    llvm::SmallVector<llvm::SMRange, 2> Where;
    axisRanges(U, /*after "U_"*/ 2, Axes, *Mesh, Where);
    for (unsigned K = 0; K < Axes.size(); ++K) {
      Uses.push_back({Axes[K], Where[K]});
      S.Unreduced.insert(Axes[K]);
    }
  }
  if (!checkAxes(Uses))
    return std::nullopt;
  for (unsigned K = 0; K < S.Dims.size(); ++K)
    if (!checkDivisible(T.Indices[K], S.Dims[K], K + 2 == S.Dims.size()))
      return std::nullopt;
  return S;
}
