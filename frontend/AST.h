//===- AST.h - The syntax tree of a .shard file -----------------*- C++ -*-===//
//
// What the parser produces and the checker reads. Every node carries the
// source range it was written at, so every later diagnostic can point at it.
// Nothing here is checked yet: names are unresolved and numbers are text.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_FRONTEND_AST_H
#define SHARDC_FRONTEND_AST_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/SMLoc.h"
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
class SourceMgr;
} // namespace llvm

namespace shardc {

/// A name as written, with where it was written.
struct Ident {
  std::string Name;
  llvm::SMRange Range;
};

enum class ExprKind : uint8_t { Number, Name, Neg, Binary };

struct Expr {
  ExprKind Kind;
  llvm::SMRange Range;
  std::string Text;      ///< number literal or name
  std::string Unit, Per; ///< `450 GB/s`: Unit "GB", Per "s"
  llvm::SMRange UnitRange, PerRange;
  char Op = 0; ///< + - * / for Binary
  std::unique_ptr<Expr> LHS, RHS;
};
using ExprPtr = std::unique_ptr<Expr>;

/// A search's set of values: `{a, b, ...}`, or the inclusive range `a..b`
/// (then Items holds a and b).
struct SetAST {
  std::vector<ExprPtr> Items;
  bool IsRange = false;
  llvm::SMRange Range;
};

/// How a property is written: `name = expr;`, or in a search `name = ?;`,
/// `name in SET;` or `name <= expr;`.
/// In `serve`: `name = [a, b];` or `name = a .. b;` (List).
enum class PropForm : uint8_t { Assign, Any, In, AtMost, List };

/// `name = expr;` inside a chip, level or config block.
struct Property {
  Ident Name;    ///< dotted names are joined: "flops.bf16"
  ExprPtr Value; ///< null for `= ?` and `in SET`
  PropForm Form = PropForm::Assign;
  Ident InWord;              ///< the word before a set (must be `in`)
  std::optional<SetAST> Set; ///< for `in SET` and a List
  llvm::SMRange Range;       ///< the whole property, its `;` included
};

// The lists below are std::vectors, not SmallVectors with inline room:
// inline elements nest (a statement holds operands, which hold types, which
// hold indices), and a statement took 3.4 KB, most of the frontend's memory
// on large files. Empty vectors cost 24 bytes and no allocation.

/// `I`, `I_XY` or `I_{a,b}` inside a tensor type or an unreduced set.
struct IndexAST {
  Ident Id;
  bool Braced = false;
  std::vector<Ident> BracedAxes;
  llvm::SMRange Range;
};

/// `bf16[I_X, J]{U_Y}`; DType is empty for an operand or an indexed lhs.
struct TensorTypeAST {
  Ident DType;
  std::vector<IndexAST> Indices;
  bool HasUnreduced = false;
  std::vector<IndexAST> Unreduced;
  llvm::SMRange Range;
};

/// `x` or `x[I_X, J]{U_Y}` on the right of a statement.
struct OperandAST {
  Ident Name;
  std::optional<TensorTypeAST> Type;
  llvm::SMRange Range;
};

enum class DeclKind : uint8_t {
#define AST_NODE(Kind, Spelling) Kind,
#include "frontend/ASTNodes.def"
};
llvm::StringRef declKindSpelling(DeclKind K);

struct Decl {
  const DeclKind Kind;
  llvm::SMRange Range;
  explicit Decl(DeclKind K) : Kind(K) {}
  virtual ~Decl() = default;
};
using DeclPtr = std::unique_ptr<Decl>;

template <DeclKind K> struct DeclOf : Decl {
  DeclOf() : Decl(K) {}
  static bool classof(const Decl *D) { return D->Kind == K; }
};

struct ImportDecl : DeclOf<DeclKind::Import> {
  std::string Path;
  llvm::SMRange PathRange;
};
/// `tile NAME { ... }` in a chip (a GEMM tile class). Keyword is the word
/// written before the name, which Sema checks is `tile`.
struct TileAST {
  Ident Keyword, Name;
  std::vector<Property> Props;
  llvm::SMRange Range;
};
struct ChipDecl : DeclOf<DeclKind::Chip> {
  Ident Name;
  Ident Base; ///< `chip NEW : BASE`; empty otherwise
  std::vector<Property> Props;
  std::vector<TileAST> Tiles;
};
struct LevelAST {
  Ident Name;
  std::vector<Property> Props;
  llvm::SMRange Range;
};
struct ClusterDecl : DeclOf<DeclKind::Cluster> {
  Ident Name;
  Ident Base; ///< `cluster NEW : BASE`; empty otherwise
  std::vector<Property> Props;
  std::vector<LevelAST> Levels;
};
struct MeshAxisAST {
  Ident Name;
  ExprPtr Size; ///< null for a searched size (`?`, `? in SET`)
  Ident InWord; ///< the word before a set (must be `in`)
  std::optional<SetAST> Set;
  llvm::SMRange SizeRange; ///< the size as written
  bool searched() const { return !Size; }
};
struct MeshDecl : DeclOf<DeclKind::Mesh> {
  Ident Name, Cluster;
  std::vector<MeshAxisAST> Axes;
  /// Where the sizes were given when not in the file: `--mesh`'s argument
  /// (frontend/Overrides.h), where a mesh too large for its cluster is
  /// reported. Invalid for the file's own.
  llvm::SMRange SizesAt;
};
struct Binding {
  Ident Name;
  ExprPtr Value;
  /// `dim B = 1024 per step;`: the two words after the size (checked to be
  /// `per step`); empty otherwise.
  Ident PerWord, StepWord;
};
struct DimDecl : DeclOf<DeclKind::Dim> {
  std::vector<Binding> Bindings;
};
struct LetDecl : DeclOf<DeclKind::Let> {
  std::vector<Binding> Bindings;
};
struct ConfigDecl : DeclOf<DeclKind::Config> {
  std::vector<Property> Props;
};
struct TensorDecl : DeclOf<DeclKind::Tensor> {
  Ident Name;
  TensorTypeAST Type;
};
/// `param W : bf16[E, F_T] state [E_D, F_T];`
struct ParamDecl : DeclOf<DeclKind::Param> {
  Ident Name;
  TensorTypeAST Type;
  /// The word before an explicit state sharding (must be `state`), and the
  /// sharding (indices only).
  std::optional<Ident> StateWord;
  TensorTypeAST State;
};
/// `cache kc : fp8[B, S, K_T, H];`
struct CacheDecl : DeclOf<DeclKind::Cache> {
  Ident Name;
  TensorTypeAST Type;
};
/// `train { microbatches = 16; optimizer = adam; ... }`
struct TrainDecl : DeclOf<DeclKind::Train> {
  std::vector<Property> Props;
};
/// `search { chips <= 64; zero in {0, 1}; ... }`
struct SearchDecl : DeclOf<DeclKind::Search> {
  std::vector<Property> Props;
};
/// A block nested in `serve` (`speculate { tokens = 4; }`): Name is its
/// first word, checked by Sema.
struct NestedBlockAST {
  Ident Name;
  std::vector<Property> Props;
  llvm::SMRange Range;
};
/// `serve { prompt = 7680; output = 512; batch = 1 .. max; ... }`
struct ServeDecl : DeclOf<DeclKind::Serve> {
  std::vector<Property> Props;
  std::vector<NestedBlockAST> Blocks;
};
struct RepeatDecl : DeclOf<DeclKind::Repeat> {
  ExprPtr Count;
  Ident Over; ///< `repeat N over P`: the pipeline axis; empty otherwise
  /// `repeat N over P [n0, n1, ...]`: each (virtual) stage's iterations;
  /// empty for the even split.
  std::vector<ExprPtr> Split;
  llvm::SMRange SplitRange;
  std::vector<DeclPtr> Body;
};

enum class RhsKind : uint8_t { Binary, Call, Copy, Scale };

/// `out[...] = p[...] * q[...];`, `out: fp32[...] = f(a, b);`, `out[...] = t;`
struct AssignDecl : DeclOf<DeclKind::Assign> {
  Ident Out;
  TensorTypeAST OutType; ///< DType set only for the typed form
  RhsKind Rhs = RhsKind::Copy;
  char Op = 0; ///< '*', '+' or '-' for Binary; '*' or '/' for Scale
  llvm::SMRange OpRange;
  Ident Callee; ///< for Call
  std::vector<OperandAST> Args;
  /// A call's options after `;` (`causal = true`), checked like properties.
  std::vector<Property> Options;
};

/// One parsed source buffer.
struct FileAST {
  unsigned BufferId = 0;
  std::vector<DeclPtr> Items;
};

/// Prints \p F as an indented tree with `line:col` locations (--emit=ast).
void printAST(const FileAST &F, const llvm::SourceMgr &SM,
              llvm::raw_ostream &OS);

} // namespace shardc

#endif // SHARDC_FRONTEND_AST_H
