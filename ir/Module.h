//===- Module.h - Modules, statements, the builder --------------*- C++ -*-===//
//
// A module is one program on one mesh: a block of ops over values. The
// frontend builds a *checked* module of high-level ops (one per source
// statement); insert-collectives builds from it, for a mesh, a *lowered*
// module of local ops and collectives. Both share the program's ProgramInfo
// (names, files, statements), which no pass changes, so lowering the same
// checked module for a thousand meshes copies nothing but ops.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_IR_MODULE_H
#define SHARDC_IR_MODULE_H

#include "ir/Ops.h"
#include "ir/Training.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace shardc {
template <typename... Args> struct DiagDesc;

/// A statement: what the report calls an op. The user's statements come
/// first; a training step adds the ones the compiler derives (backward,
/// sync, optimizer), each with its provenance.
struct Statement {
  std::string Name; ///< the result's name, or the tensor's for inputs
  Loc Location;
  OpKind Kind = OpKind::Input; ///< the kind of its op as checked
  int64_t Repeat = 1;          ///< product of the enclosing repeat counts
  Phase Ph = Phase::Forward;
  std::optional<Provenance> From; ///< derived statements only
};

/// What every module of one program shares.
struct ProgramInfo {
  std::string SourceName; ///< the main input as given on the command line
  TypeNames Names;
  /// The name `loc(...)` prints for each SourceMgr buffer id (0 unused).
  std::vector<std::string> Files;
  std::vector<Statement> Statements;
  /// By DimId: the dim's size is read by an expression (another dim's size,
  /// a let, a repeat count, a property), so a layout cannot rebind it
  /// without the source's arithmetic.
  std::vector<bool> DimReadByExpr;
};

struct ModuleConfig {
  bool Overlap = true;
  bool AllowPadding = false;
  /// `fuse = elementwise` (in `config` or `train`): a chain of elementwise
  /// statements whose intermediates have one use runs as one kernel
  /// (docs/cost-model.md §1, "Fusion"). `none`, the default, prices each
  /// statement as its own kernel.
  bool FuseElementwise = false;
  /// Set by a `train { }` block: the module is one microbatch's forward
  /// program of a training step.
  std::optional<TrainConfig> Train;
  /// Set by a `serve { }` block: the module is a serving program's forward
  /// (bind-mesh prices a mixture of experts' decode by the experts its
  /// tokens touch).
  bool Serving = false;
};

class Module {
public:
  enum class Stage : uint8_t { Checked, Lowered };

  Module(std::shared_ptr<const ProgramInfo> Info, MeshSpec Mesh,
         ModuleConfig Config, Stage S);
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;

  const ProgramInfo &info() const { return *Info; }
  std::shared_ptr<const ProgramInfo> sharedInfo() const { return Info; }
  const TypeNames &names() const { return Info->Names; }
  const Statement &statement(unsigned I) const { return Info->Statements[I]; }
  const MeshSpec &mesh() const { return Mesh; }
  const ModuleConfig &config() const { return Config; }
  Stage stage() const { return St; }
  bool isLowered() const { return St == Stage::Lowered; }
  Block &body() { return Body; }
  const Block &body() const { return Body; }

  /// One more than the largest op id: the size of a side table by op.
  unsigned numOpIds() const { return NextOpId; }
  unsigned numValueIds() const { return Values.size(); }
  std::string typeStr(const ShardType &T, bool WithDType = true) const {
    return shardc::typeStr(T, Info->Names, WithDType);
  }
  /// Gives the dims named in \p Sizes their new size in every value's type
  /// and every op's own fields (on a copy: rebindModule).
  void rebindSizes(const DimSizeMap &Sizes);

private:
  friend class OpBuilder;
  Value *newValue(std::string Name, ShardType T);

  std::shared_ptr<const ProgramInfo> Info;
  MeshSpec Mesh;
  ModuleConfig Config;
  Stage St;
  std::vector<std::unique_ptr<Value>> Values;
  unsigned NextOpId = 0;
  Block Body; ///< destroyed before the values its ops point to
};

/// Creates ops at an insertion point: it assigns ids, links operands into
/// their use-lists and creates results.
class OpBuilder {
public:
  OpBuilder(Module &M, Block &B) : M(M), B(&B) {}
  Module &module() const { return M; }
  Block &block() const { return *B; }
  void setInsertionPointToEnd(Block &Blk) {
    B = &Blk;
    Pos = NoPos;
  }
  void setInsertionPoint(Block &Blk, size_t P) {
    B = &Blk;
    Pos = P;
  }

  /// An op of class OpT (constructed from \p A) with \p Operands and a
  /// result named \p Name of type \p T.
  template <typename OpT, typename... Args>
  OpT *create(Loc L, unsigned Stmt, llvm::ArrayRef<Value *> Operands,
              std::string Name, ShardType T, Args &&...A) {
    auto O = std::make_unique<OpT>(std::forward<Args>(A)...);
    OpT *P = O.get();
    insert(std::move(O), L, Stmt, Operands);
    addResult(*P, std::move(Name), std::move(T));
    return P;
  }
  /// An op that defines nothing (a repeat).
  template <typename OpT, typename... Args>
  OpT *createNoResult(Loc L, unsigned Stmt, Args &&...A) {
    auto O = std::make_unique<OpT>(std::forward<Args>(A)...);
    OpT *P = O.get();
    insert(std::move(O), L, Stmt, {});
    return P;
  }

  /// A copy of \p Src (which has no regions) on \p Operands, its result
  /// named \p Name of type \p T.
  Op *cloneAs(const Op &Src, llvm::ArrayRef<Value *> Operands, std::string Name,
              ShardType T);

  using ValueMap = llvm::DenseMap<const Value *, Value *>;
  /// The statement a clone of an op belongs to (by default the source's).
  using StmtMap = llvm::function_ref<unsigned(const Op &Src)>;
  /// Copies \p Src and its regions here. Operands are looked up in \p Map
  /// (values not in it are used as they are, so a clone into the same
  /// module may refer to earlier values); each new result is recorded in it.
  Op *clone(const Op &Src, ValueMap &Map, StmtMap Stmt = nullptr);

private:
  static constexpr size_t NoPos = ~size_t(0);
  void insert(std::unique_ptr<Op> O, Loc L, unsigned Stmt,
              llvm::ArrayRef<Value *> Operands);
  void addResult(Op &O, std::string Name, ShardType T);

  Module &M;
  Block *B;
  size_t Pos = NoPos;
};

/// A copy of \p M: the same program, mesh, config and stage, every op and
/// value cloned (with ids of the copy's own).
std::unique_ptr<Module> cloneModule(const Module &M);

/// A copy of \p M on \p Mesh with the dims named in \p Sizes resized:
/// what bind-mesh makes when a layout changes a size the checked module
/// holds (a MoE's capacity slots).
std::unique_ptr<Module> rebindModule(const Module &M, const MeshSpec &Mesh,
                                     const DimSizeMap &Sizes);

/// LANGUAGE.md §9: a value computed before the pipelined repeat of \p Top
/// lives on the first stage; read inside the repeat (every stage) or after
/// it (the last), it would need a transfer shardc does not price. Calls
/// \p F once per such value, at its first reader. Inputs (data, token ids)
/// are loaded wherever they are read, and the carried value is the one
/// value the pipeline sends.
/// A param declared before the layers and read after them (a tied
/// embedding and LM head) is not a crossing: the last stage holds a copy.
void forEachPipelineCrossing(
    const Block &Top,
    llvm::function_ref<void(const Op &Reader, const Value &V)> F);
/// The error for crossing value \p V: a param the layers read, or another.
const DiagDesc<std::string> &crossingDiag(const Value &V);

/// Called by the printer under each op, for what an analysis knows of it
/// (remarks, costs); \p Indent is the column to start lines at.
using OpAnnotator =
    llvm::function_ref<void(const Op &, llvm::raw_ostream &, unsigned Indent)>;

/// Prints the module's textual form (docs/ir.md).
void printModule(const Module &M, llvm::raw_ostream &OS,
                 OpAnnotator Annotate = nullptr);
/// The name printModule gives each value it prints, without the `%`: `h`,
/// or `h.1` for the second value printed with the source name `h`.
llvm::DenseMap<const Value *, std::string> printedNames(const Module &M);

/// Checks the module's invariants; returns a description of the first broken
/// one, or an empty string.
std::string verifyModule(const Module &M);

} // namespace shardc

#endif // SHARDC_IR_MODULE_H
