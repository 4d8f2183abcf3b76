//===- ProgramGenerator.cpp - Random valid-looking .shard programs --------===//
//
// Builds a GenProgram in three steps:
//  1. hardware: a chip, a mesh of 1-4 axes, then a cluster of 1-3 levels
//     whose chips are at least the mesh's;
//  2. dims, mostly multiples of the mesh's chips so shardings divide;
//  3. the body, simulating what the frontend tracks: every visible tensor's
//     current sharding per scope (a `repeat` body is a scope), so operands
//     are written as they are and statements refer to tensors that exist.
//
//===----------------------------------------------------------------------===//
#include "tests/support/ProgramGenerator.h"
#include <algorithm>
#include <fmt/format.h>
#include <numeric>

using namespace shardc::testgen;

namespace {

const char *const DimPool[] = {"B", "D",       "F",   "H",     "K", "N",
                               "S", "d_model", "seq", "vocab", "E", "T"};
const char *const ShortAxes[] = {"X", "Y", "Z", "W"};
const char *const LongAxes[] = {"data", "model", "pipe", "expert"};
const char *const LevelNames[] = {"node", "leaf", "spine"};
const char *const UnaryFns[] = {"gelu", "relu", "silu", "exp", "dropout"};
// Reduce over the last dim: only on an operand whose last dim is whole.
const char *const NormFns[] = {"softmax", "rmsnorm", "layernorm"};
const char *const BinaryFns[] = {"add", "sub", "mul", "div"};

template <typename T, size_t N> const T &pick(Chooser &C, const T (&A)[N]) {
  return A[C.index(N)];
}

template <typename T> void shuffle(Chooser &C, std::vector<T> &V) {
  for (size_t I = V.size(); I > 1; --I)
    std::swap(V[I - 1], V[C.index(I)]);
}

GenBandwidth bandwidth(Chooser &C) {
  static const double Gbs[] = {25, 50, 100, 200, 400, 450, 900, 1800};
  static const double Tbs[] = {0.8, 1.6, 3.2, 3.35, 6.4, 12.8, 51.2};
  static const double Gbits[] = {100, 200, 400, 800};
  switch (C.between(0, 5)) {
  case 0:
  case 1:
  case 2:
    return {pick(C, Gbs), "GB/s"};
  case 3:
  case 4:
    return {pick(C, Tbs), "TB/s"};
  default:
    return {pick(C, Gbits), "Gb/s"};
  }
}

void chip(Chooser &C, GenProgram &P) {
  static const int64_t Bf16[] = {312, 989, 2250};
  static const int64_t Other[] = {19, 67, 495, 1979};
  P.HbmGB = C.percent(50) ? 80 : 192;
  static const double HbmTbs[] = {2.0, 3.35, 8};
  P.HbmBw = C.percent(70) ? GenBandwidth{pick(C, HbmTbs), "TB/s"}
                          : GenBandwidth{2039, "GB/s"};
  P.Flops.push_back({"bf16", pick(C, Bf16)});
  for (const char *T : {"fp32", "fp8", "fp16"})
    if (C.percent(35))
      P.Flops.push_back({T, pick(C, Other)});
  if (C.percent(50))
    P.VectorFlops.push_back({"bf16", pick(C, Other)});
  if (C.percent(30))
    P.VectorFlops.push_back({"fp32", pick(C, Other)});
}

/// The mesh first (at most 512 chips), then a cluster that holds it.
void meshAndCluster(Chooser &C, const GeneratorOptions &O, GenProgram &P) {
  static const int64_t AxisSizes[] = {1, 2, 2, 2, 4, 4, 8, 3};
  static const int64_t LevelSizes[] = {2, 4, 8, 8, 1, 3};
  unsigned NumAxes = C.between(1, std::max(1u, O.MaxAxes));
  bool Long = C.percent(25);
  std::vector<std::string> Names;
  for (unsigned I = 0; I < 4; ++I)
    Names.push_back(Long ? LongAxes[I] : ShortAxes[I]);
  shuffle(C, Names);
  int64_t Chips = 1;
  for (unsigned I = 0; I < NumAxes && I < Names.size(); ++I) {
    int64_t S = pick(C, AxisSizes);
    if (Chips * S > 512)
      S = 1;
    Chips *= S;
    P.Axes.push_back({Names[I], S});
  }
  unsigned NumLevels = C.between(1, std::clamp(O.MaxLevels, 1u, 3u));
  int64_t Inner = 1;
  for (unsigned I = 0; I < NumLevels; ++I) {
    GenLevel L;
    L.Name = LevelNames[I];
    L.Size = pick(C, LevelSizes);
    if (I + 1 == NumLevels) // the outermost level makes room for the mesh
      L.Size = std::max<int64_t>(1, (Chips + Inner - 1) / Inner) *
               (C.percent(20) ? 2 : 1);
    Inner *= L.Size;
    bool Both = C.percent(40), UplinkOnly = !Both && C.percent(60);
    if (Both || UplinkOnly)
      L.Uplink = bandwidth(C);
    if (Both || !UplinkOnly)
      L.Bw = bandwidth(C);
    L.InNetworkReduction = C.percent(25);
    if (O.Latency && C.percent(30))
      L.LatencyNs = 1000 * unsigned(C.between(1, 10));
    static const unsigned Efficiencies[] = {50, 80, 90};
    if (C.percent(15))
      L.EfficiencyPct = pick(C, Efficiencies);
    if (O.Latency && C.percent(15)) {
      L.SmallEfficiencyPct = 10;
      L.BulkLatencyNs = L.LatencyNs + 1000 * unsigned(C.between(1, 20));
    }
    P.Levels.push_back(L);
  }
}

void dims(Chooser &C, const GeneratorOptions &O, GenProgram &P) {
  std::vector<std::string> Names(std::begin(DimPool), std::end(DimPool));
  shuffle(C, Names);
  unsigned N = C.between(2, std::max(2u, O.MaxDims));
  static const int64_t Scales[] = {1, 1, 16, 256};
  int64_t Chips = P.meshChips();
  for (unsigned I = 0; I < N; ++I) {
    int64_t Size;
    if (O.Divisible)
      Size = 2 * Chips * int64_t(C.between(1, 8));
    else if (C.percent(100 - 2 * O.WrongPercent))
      Size = Chips * int64_t(C.between(1, 16)) * pick(C, Scales);
    else
      Size = int64_t(C.between(1, 4096));
    P.Dims.push_back({Names[I], Size});
  }
}

/// A tensor as the frontend sees it at one point of the program.
struct Tensor {
  std::string Name, DType;
  std::vector<unsigned> Dims;              ///< indices into GenProgram::Dims
  std::vector<std::vector<unsigned>> Axes; ///< per dim, indices into Axes
  std::vector<unsigned> Unreduced;         ///< sorted
  bool sameType(const Tensor &O) const {
    return DType == O.DType && Dims == O.Dims && Axes == O.Axes &&
           Unreduced == O.Unreduced;
  }
};

class BodyGen {
public:
  BodyGen(Chooser &C, const GeneratorOptions &O, GenProgram &P)
      : C(C), O(O), P(P) {}
  void run();

private:
  void items(unsigned Count);
  void input();
  bool contraction();
  bool elementwise();
  bool reshard();
  void repeat();

  void shard(Tensor &T, const std::vector<unsigned> &AllowedU);
  bool divides(unsigned Dim, const std::vector<unsigned> &Axes) const;
  std::string index(unsigned Dim, const std::vector<unsigned> &Axes);
  std::string type(const Tensor &T);
  std::string operand(const Tensor &T);
  std::vector<const Tensor *> visible() const;
  void bind(Tensor T);
  std::string resultName();
  void line(const std::string &S) {
    P.Body.push_back(std::string(2 * Depth, ' ') + S);
  }

  Chooser &C;
  const GeneratorOptions &O;
  GenProgram &P;
  std::vector<std::vector<Tensor>> Scopes{1};
  std::vector<std::string> Lets;
  unsigned Depth = 0, Inputs = 0, Results = 0, LocalLets = 0;
};

std::vector<const Tensor *> BodyGen::visible() const {
  std::vector<const Tensor *> Out;
  for (auto S = Scopes.rbegin(); S != Scopes.rend(); ++S)
    for (const Tensor &T : *S)
      if (std::none_of(Out.begin(), Out.end(),
                       [&](const Tensor *V) { return V->Name == T.Name; }))
        Out.push_back(&T);
  return Out;
}

void BodyGen::bind(Tensor T) {
  for (Tensor &Old : Scopes.back())
    if (Old.Name == T.Name) {
      Old = std::move(T);
      return;
    }
  Scopes.back().push_back(std::move(T));
}

/// A fresh name, or now and then one of this scope's (a rebinding, in any
/// type). A tensor from outside a repeat body is never picked: assigning it
/// there carries it to the next iteration, in the type it entered with
/// (LANGUAGE.md §7), which the statement drawn next would rarely keep.
std::string BodyGen::resultName() {
  const std::vector<Tensor> &Own = Scopes.back();
  if (!Own.empty() && C.percent(15))
    return Own[C.index(Own.size())].Name;
  return "h" + std::to_string(Results++);
}

bool BodyGen::divides(unsigned Dim, const std::vector<unsigned> &Axes) const {
  int64_t N = 1;
  for (unsigned A : Axes)
    N *= P.Axes[A].Size;
  return P.AllowPadding || P.Dims[Dim].Size % N == 0;
}

/// Gives \p T a random sharding; the unreduced set draws from \p AllowedU.
void BodyGen::shard(Tensor &T, const std::vector<unsigned> &AllowedU) {
  T.Axes.assign(T.Dims.size(), {});
  T.Unreduced.clear();
  std::vector<unsigned> Order(P.Axes.size());
  std::iota(Order.begin(), Order.end(), 0u);
  shuffle(C, Order);
  for (unsigned A : Order) {
    unsigned R = C.between(0, 99);
    bool MayU =
        std::find(AllowedU.begin(), AllowedU.end(), A) != AllowedU.end();
    if (R < 40)
      continue;
    if (R < 55 && MayU) {
      T.Unreduced.push_back(A);
      continue;
    }
    unsigned D = C.index(T.Dims.size());
    std::vector<unsigned> With = T.Axes[D];
    With.push_back(A);
    if (divides(T.Dims[D], With) || C.percent(O.WrongPercent))
      T.Axes[D] = With;
  }
  std::sort(T.Unreduced.begin(), T.Unreduced.end());
}

/// `B`, `B_XY`, `B_{X,Y}`; the unbraced form only when it splits uniquely
/// (single-letter axes, or the long names, which never prefix each other).
std::string BodyGen::index(unsigned Dim, const std::vector<unsigned> &Axes) {
  std::string S = P.Dims[Dim].Name;
  if (Axes.empty())
    return S;
  std::vector<std::string> Names;
  for (unsigned A : Axes)
    Names.push_back(P.Axes[A].Name);
  if (C.percent(50))
    return S + "_" + fmt::format("{}", fmt::join(Names, ""));
  return S + "_{" + fmt::format("{}", fmt::join(Names, ",")) + "}";
}

std::string BodyGen::type(const Tensor &T) {
  std::vector<std::string> Idx;
  for (size_t I = 0; I < T.Dims.size(); ++I)
    Idx.push_back(index(T.Dims[I], T.Axes[I]));
  std::string S = "[" + fmt::format("{}", fmt::join(Idx, ", ")) + "]";
  if (T.Unreduced.empty())
    return S;
  std::vector<std::string> U;
  for (unsigned A : T.Unreduced)
    U.push_back(P.Axes[A].Name);
  switch (C.between(0, 2)) {
  case 0:
    return S + "{U_" + fmt::format("{}", fmt::join(U, "")) + "}";
  case 1:
    return S + "{U_{" + fmt::format("{}", fmt::join(U, ",")) + "}}";
  default:
    for (std::string &N : U)
      N = "U_" + N;
    return S + "{" + fmt::format("{}", fmt::join(U, ", ")) + "}";
  }
}

/// The operand as it is now: bare, with its sharding, or (rarely) wrong.
std::string BodyGen::operand(const Tensor &T) {
  if (C.percent(15))
    return T.Name;
  if (C.percent(O.WrongPercent)) {
    Tensor Wrong = T;
    shard(Wrong, T.Unreduced);
    return T.Name + type(Wrong);
  }
  return T.Name + type(T);
}

void BodyGen::input() {
  Tensor T;
  T.Name = "x" + std::to_string(Inputs++);
  T.DType = C.percent(70) ? "bf16" : P.Flops[C.index(P.Flops.size())].Name;
  std::vector<unsigned> All(P.Dims.size());
  std::iota(All.begin(), All.end(), 0u);
  shuffle(C, All);
  All.resize(C.between(1, std::min<size_t>(3, All.size())));
  T.Dims = All;
  std::vector<unsigned> AxesU;
  if (C.percent(10))
    for (unsigned A = 0; A < P.Axes.size(); ++A)
      AxesU.push_back(A);
  shard(T, AxesU);
  line("tensor " + T.Name + " : " + T.DType + type(T) + ";");
  bind(std::move(T));
}

bool contains(const std::vector<unsigned> &V, unsigned X) {
  return std::find(V.begin(), V.end(), X) != V.end();
}

size_t dimPos(const Tensor &T, unsigned Dim) {
  return std::find(T.Dims.begin(), T.Dims.end(), Dim) - T.Dims.begin();
}

/// `out[..] = a[..] * b[..]` over two tensors that share a dim: each shared
/// dim is a batch dim or contracted; the output is sharded as the inputs
/// are (the local product) or at random.
bool BodyGen::contraction() {
  std::vector<const Tensor *> Plain;
  for (const Tensor *T : visible())
    if (T->Unreduced.empty() || C.percent(O.WrongPercent))
      Plain.push_back(T);
  if (Plain.empty())
    return false;
  const Tensor &A = *Plain[C.index(Plain.size())];
  std::vector<const Tensor *> Bs;
  for (const Tensor *T : Plain)
    if (T->DType == A.DType &&
        std::any_of(T->Dims.begin(), T->Dims.end(),
                    [&](unsigned D) { return contains(A.Dims, D); }))
      Bs.push_back(T);
  const Tensor &B = *Bs[C.index(Bs.size())]; // A itself qualifies
  Tensor R;
  std::vector<unsigned> Contracted;
  for (unsigned D : A.Dims)
    if (!contains(B.Dims, D))
      R.Dims.push_back(D);
  for (unsigned D : B.Dims)
    if (!contains(A.Dims, D))
      R.Dims.push_back(D);
  for (unsigned D : A.Dims)
    if (contains(B.Dims, D))
      (C.percent(35) ? R.Dims : Contracted).push_back(D);
  if (R.Dims.empty()) {
    R.Dims.push_back(Contracted.back());
    Contracted.pop_back();
  }
  shuffle(C, R.Dims);
  // With the output's dims equal to both inputs' the frontend reads `*` as
  // the elementwise product.
  if (A.Dims == B.Dims && R.Dims == A.Dims) {
    if (R.Dims.size() < 2)
      return false;
    std::reverse(R.Dims.begin(), R.Dims.end());
  }
  // Partial sums over the axes that shard a contracted dim alike in both
  // inputs (the book's case 3); any contracted dim's axes when being wrong.
  std::vector<unsigned> AllowedU;
  bool AnyAxis = C.percent(O.WrongPercent);
  for (unsigned D : Contracted) {
    const std::vector<unsigned> &Xa = A.Axes[dimPos(A, D)];
    const std::vector<unsigned> &Xb = B.Axes[dimPos(B, D)];
    for (const std::vector<unsigned> *Xs : {&Xa, &Xb})
      for (unsigned X : *Xs)
        if ((AnyAxis || Xa == Xb) && !contains(AllowedU, X))
          AllowedU.push_back(X);
  }
  R.Name = resultName();
  R.DType = A.DType;
  if (C.percent(50)) {
    // The local product's sharding: each dim as an input has it, and the
    // contracted dims' axes as partial sums.
    std::vector<unsigned> Used;
    R.Axes.assign(R.Dims.size(), {});
    for (size_t I = 0; I < R.Dims.size(); ++I) {
      const Tensor &Src = contains(A.Dims, R.Dims[I]) ? A : B;
      for (unsigned X : Src.Axes[dimPos(Src, R.Dims[I])])
        if (!contains(Used, X)) {
          R.Axes[I].push_back(X);
          Used.push_back(X);
        }
    }
    for (unsigned X : AllowedU)
      if (!contains(Used, X) && C.percent(70))
        R.Unreduced.push_back(X);
    std::sort(R.Unreduced.begin(), R.Unreduced.end());
  } else {
    shard(R, AllowedU);
  }
  std::string Lhs = R.Name;
  if (C.percent(15)) {
    R.DType = P.Flops[C.index(P.Flops.size())].Name;
    Lhs += ": " + R.DType;
  }
  line(Lhs + type(R) + " = " + operand(A) + " * " + operand(B) + ";");
  bind(std::move(R));
  return true;
}

/// A unary builtin, or a binary one (call or infix) over two tensors of the
/// same type; partial sums only through the linear `add` and `sub`.
bool BodyGen::elementwise() {
  std::vector<const Tensor *> V = visible();
  if (V.empty())
    return false;
  const Tensor &A = *V[C.index(V.size())];
  std::string Rhs;
  bool Linear = !A.Unreduced.empty() && !C.percent(O.WrongPercent);
  if (Linear || C.percent(40)) {
    std::vector<const Tensor *> Same;
    for (const Tensor *T : V)
      if (T->sameType(A) || C.percent(O.WrongPercent))
        Same.push_back(T);
    const Tensor &B = *Same[C.index(Same.size())]; // A itself qualifies
    static const char *const Infix[] = {"+", "-", "*"};
    if (C.percent(50)) {
      const char *Op = Infix[C.index(Linear ? 2 : 3)];
      Rhs = operand(A) + " " + Op + " " + operand(B);
    } else {
      const char *Fn = BinaryFns[C.index(Linear ? 2 : 4)];
      Rhs = std::string(Fn) + "(" + operand(A) + ", " + operand(B) + ")";
    }
  } else if (!A.Axes.empty() &&
             (A.Axes.back().empty() || C.percent(O.WrongPercent)) &&
             C.percent(25)) {
    Rhs = std::string(pick(C, NormFns)) + "(" + operand(A) + ")";
  } else {
    Rhs = std::string(pick(C, UnaryFns)) + "(" + operand(A) + ")";
  }
  Tensor R = A;
  R.Name = resultName();
  if (C.percent(40))
    shard(R, A.Unreduced);
  std::string Lhs = R.Name;
  if (C.percent(10)) {
    R.DType = P.Flops[C.index(P.Flops.size())].Name;
    Lhs += ": " + R.DType;
  }
  line(Lhs + type(R) + " = " + Rhs + ";");
  bind(std::move(R));
  return true;
}

/// `out[..] = t[..];` with a new sharding (partial sums may only shrink).
bool BodyGen::reshard() {
  std::vector<const Tensor *> V = visible();
  if (V.empty())
    return false;
  const Tensor &A = *V[C.index(V.size())];
  Tensor R = A;
  R.Name = resultName();
  shard(R, A.Unreduced);
  std::string Lhs = R.Name;
  if (C.percent(10)) {
    R.DType = P.Flops[C.index(P.Flops.size())].Name;
    Lhs += ": " + R.DType;
  }
  line(Lhs + type(R) + " = " + operand(A) + ";");
  bind(std::move(R));
  return true;
}

void BodyGen::repeat() {
  std::string Count =
      std::to_string(C.between(1, 8) * (C.percent(20) ? 10 : 1));
  if (!Lets.empty() && C.percent(30))
    Count = Lets[C.index(Lets.size())];
  line("repeat " + Count + " {");
  ++Depth;
  Scopes.emplace_back();
  size_t OuterLets = Lets.size(); // a body's lets are local to it
  if (C.percent(20)) {
    std::string Name = "k" + std::to_string(LocalLets++);
    line("let " + Name + " = " + std::to_string(C.between(1, 4)) + ";");
    Lets.push_back(Name);
  }
  items(C.between(1, 5));
  Lets.resize(OuterLets);
  Scopes.pop_back();
  --Depth;
  line("}");
}

void BodyGen::items(unsigned Count) {
  for (unsigned I = 0; I < Count; ++I) {
    unsigned R = C.between(0, 99);
    bool Done = R < 15   ? (input(), true)
                : R < 45 ? contraction()
                : R < 65 ? elementwise()
                : R < 82 ? reshard()
                         : false;
    if (!Done && R >= 82 && Depth < O.MaxRepeatDepth) {
      repeat();
      Done = true;
    }
    if (!Done)
      input();
  }
}

void BodyGen::run() {
  if (C.percent(30)) {
    line("let layers = " + std::to_string(C.between(1, 96)) + ";");
    Lets.push_back("layers");
  }
  for (unsigned I = 0, N = C.between(1, 3); I < N; ++I)
    input();
  items(C.between(1, std::max(1u, O.MaxItems)));
}

} // namespace

GenProgram shardc::testgen::generateStructure(Chooser &C,
                                              const GeneratorOptions &O) {
  GenProgram P;
  chip(C, P);
  meshAndCluster(C, O, P);
  dims(C, O, P);
  P.Overlap = !C.percent(25);
  P.AllowPadding = !O.Divisible && C.percent(10);
  BodyGen(C, O, P).run();
  return P;
}

std::string shardc::testgen::generateProgram(Chooser &C,
                                             const GeneratorOptions &O) {
  return generateStructure(C, O).render();
}

std::string shardc::testgen::generateProgram(uint64_t Seed,
                                             const GeneratorOptions &O) {
  SplitMix64 C(Seed);
  return generateProgram(C, O);
}
