//===- Sema.h - Checking a program and lowering it to IR --------*- C++ -*-===//
//
// Private to the frontend. One Sema checks a whole Program in two phases:
// first the hardware and constants (chips, clusters, meshes, dims, lets,
// config) of every file in import order, then the tensors and statements,
// which it lowers to IR as it goes. Errors are reported once; the symbol they
// concern is poisoned so that its later uses stay quiet.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_FRONTEND_SEMA_H
#define SHARDC_FRONTEND_SEMA_H

#include "diag/Diagnostic.h"
#include "diag/Suggest.h"
#include "frontend/Compiler.h"
#include "frontend/Stdlib.h"
#include "frontend/Units.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include <deque>

namespace shardc {

enum class SymKind : uint8_t { Chip, Cluster, Mesh, Dim, Let, Tensor };
llvm::StringRef symKindName(SymKind K);

struct Symbol {
  Symbol(SymKind K, llvm::SMRange R, bool Poisoned)
      : Kind(K), Range(R), Poisoned(Poisoned) {}
  SymKind Kind;
  llvm::SMRange Range;
  bool Poisoned = false;
  const ChipSpec *Chip = nullptr;
  const ClusterSpec *Cluster = nullptr;
  const MeshSpec *Mesh = nullptr;
  Quantity Value; ///< Dim (count) and Let
  shardc::Value *Tensor = nullptr;
};

enum class PropKind : uint8_t {
  Bytes,
  BytesPerSecond,
  FlopPerSecond,
  Count,
  Frequency,
  Seconds,
  Fraction,
  Bool,
  ChipRef,
  MeshRef
};

enum class PropOwner : uint8_t { Chip, Cluster, Level, Config };

/// A property after checking: a number in base units, a flag or a symbol.
struct PropValue {
  double Number = 0;
  int64_t Whole = 0;
  bool Flag = false;
  const Symbol *Sym = nullptr;
};

class Sema {
public:
  Sema(DiagnosticEngine &Diags, Program &P) : Diags(Diags), P(P) {}
  bool run();

private:
  // Symbols (Sema.cpp).
  Symbol *lookup(llvm::StringRef Name);
  bool declare(const Ident &Name, Symbol S);
  void reportUndefined(const Ident &Name, llvm::StringRef What,
                       llvm::ArrayRef<SymKind> Kinds);
  std::vector<std::string> namesOf(llvm::ArrayRef<SymKind> Kinds) const;
  std::optional<std::string> stdlibFileDeclaring(llvm::StringRef Name,
                                                 llvm::ArrayRef<SymKind> Kinds);

  // Expressions (SemaExpr.cpp).
  std::optional<Quantity> eval(const Expr &E);
  std::optional<Quantity> evalNumber(const Expr &E);
  std::optional<Quantity> evalDividedNumber(const Expr &E);
  std::optional<Quantity> combine(llvm::SMRange At, char Op, const Quantity &L,
                                  const Quantity &R, llvm::SMRange RhsRange);
  std::optional<int64_t> evalWhole(const Expr &E, llvm::StringRef What,
                                   int64_t Min);
  std::optional<PropValue> evalProperty(const Property &Prop, PropKind K);
  const Symbol *evalRef(const Expr &E, SymKind Want);

  // Hardware and constants (SemaDecls.cpp).
  bool checkProps(const std::vector<Property> &Ps, PropOwner O,
                  llvm::StringRef What, llvm::StringMap<PropValue> &Out,
                  llvm::StringRef Skip = "");
  void declareItem(const Decl &D);
  void chip(const ChipDecl &D);
  void cluster(const ClusterDecl &D);
  bool level(const LevelAST &L, LevelSpec &Out);
  void mesh(const MeshDecl &D);
  void dims(const DimDecl &D);
  void lets(const std::vector<Binding> &Bs);
  void config(const ConfigDecl &D);
  bool chooseMesh(llvm::SMRange At);

  // Sharded types (SemaTypes.cpp).
  std::optional<ShardType> resolveType(const TensorTypeAST &T, bool NeedDType);
  bool resolveIndex(const IndexAST &I, TensorDim &Out);
  bool splitAxes(const Ident &Id, llvm::StringRef Sub,
                 llvm::SmallVectorImpl<unsigned> &Axes);
  bool resolveBracedAxes(llvm::ArrayRef<Ident> Names,
                         llvm::SmallVectorImpl<unsigned> &Axes);
  bool resolveUnreduced(const IndexAST &I,
                        llvm::SmallVectorImpl<unsigned> &Axes);
  bool checkAxes(llvm::ArrayRef<std::pair<unsigned, llvm::SMRange>> Uses);
  bool checkDivisible(const IndexAST &I, const TensorDim &D);

  // Statements (SemaStmts.cpp).
  void programItem(const Decl &D);
  void tensor(const TensorDecl &D);
  void repeat(const RepeatDecl &D);
  void assign(const AssignDecl &D);
  Value *operand(const OperandAST &O);
  bool contraction(const AssignDecl &D, Operation &Op, ShardType &Out);
  bool elementwise(const AssignDecl &D, Operation &Op, ShardType &Out);
  bool reshard(const AssignDecl &D, Operation &Op, ShardType &Out);
  bool checkPeak(const AssignDecl &D, DType T, bool Matmul);
  unsigned addStatement(llvm::SMRange R, const std::string &Name,
                        llvm::StringRef Kind);
  void bindTensor(const Ident &Name, Value *V);

  DiagnosticEngine &Diags;
  Program &P;
  std::deque<ChipSpec> Chips;
  std::vector<llvm::StringMap<Symbol>> Scopes{1};
  /// Where each mesh was declared, for "several meshes" messages.
  std::vector<std::string> MeshNames;
  /// Dims whose declaration failed because the name was taken.
  llvm::StringSet<> RejectedDims;
  const Expr *ConfigMesh = nullptr;
  ModuleConfig Config;
  const MeshSpec *Mesh = nullptr;
  bool MeshChosen = false;
  Module *IR = nullptr;
  std::vector<Block *> Blocks;
  int64_t RepeatProduct = 1;
  /// Looked up at the first undefined name only.
  const StdlibIndex *Stdlib = nullptr;
};

} // namespace shardc

#endif
