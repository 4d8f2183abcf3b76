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
#include "frontend/Properties.h"
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
  std::shared_ptr<const ClusterSpec> Cluster;
  const MeshSpec *Mesh = nullptr;
  Quantity Value; ///< Dim (count) and Let
  DimId Dim = 0;  ///< Dim: its id in the program's dim table
  shardc::Value *Tensor = nullptr;
};

/// Where a written type's unreduced set is (`{U_Y}`), or the whole type
/// when it has none: the part a statement's partial sums are asked for in.
llvm::SMRange unreducedRange(const TensorTypeAST &T);

/// The builtins that are not per element (LANGUAGE.md §8).
enum class ModelBuiltin : uint8_t {
  Attention,
  Embed,
  CrossEntropy,
  Moe,
  Append
};

class Sema {
public:
  Sema(DiagnosticEngine &Diags, Program &P);
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
  std::optional<PropValue> evalValue(const std::string &Name, const Expr &E,
                                     PropKind K);
  const Symbol *evalRef(const Expr &E, SymKind Want);

  // Hardware and constants (SemaDecls.cpp).
  bool checkProps(const std::vector<Property> &Ps, PropOwner O,
                  llvm::StringRef What, PropertySet &Out,
                  const Ident *Block = nullptr, llvm::StringRef Skip = "");
  void declareItem(const Decl &D);
  void chip(const ChipDecl &D);
  /// The GEMM model a chip declaration writes (its tiles, wave_overhead,
  /// epilogue_efficiency) into \p C.
  bool chipGemm(const ChipDecl &D, const PropertySet &Props, ChipSpec &C);
  std::optional<DType> tileDType(const TileAST &T, const PropertySet &TP);
  void cluster(const ClusterDecl &D);
  /// A level's properties into \p Out; \p Derived: over the base's.
  bool level(const LevelAST &L, LevelSpec &Out, bool Derived);
  bool levelsDistinct(const ClusterDecl &D);
  const Symbol *presetBase(const Ident &Base, SymKind Want);
  void mesh(const MeshDecl &D);
  void dims(const DimDecl &D);
  void lets(const std::vector<Binding> &Bs);
  void config(const ConfigDecl &D);
  void train(const TrainDecl &D);

  // Layout search (SemaSearch.cpp): what a search ranges over, checked
  // once; the program itself is checked with every searched axis at size 1
  // and every searched knob at its default.
  void searchBlock(const SearchDecl &D);
  void searchChips(const Property &P);
  void searchValues(const PropertySet &Props, const SearchDecl &D);
  /// The properties of a `train` or `search` block written `in SET`,
  /// `= ?` or `<= N` (checkProps skips them).
  void searchForms(const std::vector<Property> &Ps, bool InSearchBlock);
  void searchedKnob(const Property &P, SearchKnob K, bool InSearchBlock);
  std::optional<int64_t> knobValue(SearchKnob K, const std::string &Name,
                                   const Expr &E);
  /// A set's values, ascending; \p One checks and evaluates one value,
  /// \p Spell writes one back for "in the set twice".
  std::optional<std::vector<int64_t>>
  evalSet(const SetAST &S,
          llvm::function_ref<std::optional<int64_t>(const Expr &)> One,
          llvm::function_ref<std::string(int64_t)> Spell);
  bool checkInWord(const Ident &In);
  void searchedAxes(const MeshDecl &D, const MeshSpec &M);
  void perStep(const Binding &B, DimId Dim, std::optional<int64_t> G);
  /// Binds the per-step dim to G / m once the train block is known.
  void bindPerStep();
  /// After the statements: the checks that need the program's mesh and
  /// the whole file, and Program::Search when the file is a search.
  void finishSearch();
  void checkSearchNeeds();
  SearchSpec Search;
  const SearchDecl *SearchBlock = nullptr;

  // Serving (SemaServe.cpp): the `serve` block, the phase dims, caches and
  // `append`. The program is checked with batch 1, new = the prompt and
  // context = the capacity; the serve engine binds each instance's sizes.
  void serveBlock(const ServeDecl &D);
  void serveBatch(const Property &P);
  void speculate(const NestedBlockAST &B);
  bool disaggregated();
  llvm::SMRange DecodeMeshAt;
  const Expr *DecodeMesh = nullptr;
  const MeshSpec *PrefillPool = nullptr;
  std::optional<PropValue> LinkWord;
  /// `dim B = batch;`: the phase \p B names, declared as dim \p Dim; none
  /// when its value is no phase.
  bool phaseDim(const Binding &B, DimId Dim);
  bool isPhaseName(llvm::StringRef Name) const;
  void bindPhaseDims();
  bool isPhaseDim(DimId D) const;
  void cache(const CacheDecl &D);
  Op *append(const AssignDecl &D, llvm::ArrayRef<Value *> Args,
             const ShardType &Out);
  void finishServe();
  ServeSpec Serve;
  const ServeDecl *ServeBlock = nullptr;
  /// The main file has a `serve` block (wherever it is): only then are
  /// `batch`, `new` and `context` reserved.
  bool HasServe = false;
  llvm::SMRange PhaseDimAt[NumPhaseDims];
  /// Searched axes by mesh name, until the program's mesh is known.
  std::vector<std::pair<std::string, SearchedAxis>> PendingAxes;
  /// Where each mesh is declared: a search without a block is reported
  /// at its mesh.
  llvm::StringMap<llvm::SMLoc> MeshDeclAt;
  std::optional<DimId> PerStepDimId;
  void checkPerStepIsBatch();
  llvm::SMRange PerStepAt, MicrobatchesRange, ChipsRange, MaxMemoryRange;
  bool MinimizeMemory = false;
  void fuse(const Property &P, const PropValue &V);
  void warnUnusedTrainSettings(const PropertySet &Props, const TrainConfig &T);
  void warnTensorsLikeParams();
  void markFp8Gemms();
  std::optional<unsigned> choose(const Property &P, const PropValue &V,
                                 llvm::ArrayRef<std::string> Choices) {
    return choose(P.Name.Name, V, Choices);
  }
  std::optional<unsigned> choose(llvm::StringRef Name, const PropValue &V,
                                 llvm::ArrayRef<std::string> Choices);
  std::optional<DType> chooseDType(const Property &P, const PropValue &V,
                                   bool AllowNone, bool &None);
  bool chooseMesh(llvm::SMRange At);
  void reportDimRepeated(llvm::SMRange R, const TensorDim &First,
                         const TensorDim &Again);

  // Sharded types (SemaTypes.cpp).
  std::optional<ShardType> resolveType(const TensorTypeAST &T, bool NeedDType);
  bool resolveIndex(const IndexAST &I, TensorDim &Out);
  bool splitAxes(const Ident &Id, llvm::StringRef Sub, AxisList &Axes);
  bool resolveBracedAxes(llvm::ArrayRef<Ident> Names, AxisList &Axes);
  bool resolveUnreduced(const IndexAST &I, AxisList &Axes);
  bool checkAxes(llvm::ArrayRef<std::pair<AxisId, llvm::SMRange>> Uses);
  bool checkDivisible(const IndexAST &I, const TensorDim &D, bool HeadsIndex);
  void reportUndivisible();
  /// Reports a broken type rule, except while an operand's written type is
  /// resolved: there the comparison with the tensor's current type reports
  /// it, with the type to write (LANGUAGE.md §5), so it is only recorded.
  template <typename... Args>
  void typeError(llvm::SMRange R, const DiagDesc<Args...> &D,
                 std::type_identity_t<Args>... A) {
    if (WrittenOperand)
      WrittenTypeBroken = true;
    else
      Diags.report(R, D, A...);
  }

  // Statements (SemaStmts.cpp).
  void programItem(const Decl &D);
  void tensor(const TensorDecl &D);
  void param(const ParamDecl &D);
  void repeat(const RepeatDecl &D);
  void assign(const AssignDecl &D);
  Value *operand(const OperandAST &O);
  bool writtenMatches(const OperandAST &O, const ShardType &Current);
  Op *contraction(const AssignDecl &D, llvm::ArrayRef<Value *> Args,
                  const ShardType &Out);
  Op *elementwise(const AssignDecl &D, llvm::ArrayRef<Value *> Args,
                  const ShardType &Out);
  /// An elementwise operand of type \p T against the full operand \p Full:
  /// the same dims sharded alike, or some of them (a broadcast) with the
  /// same partial sums. Reports and returns false otherwise.
  bool checkElementwiseOperand(const OperandAST &O, const ShardType &T,
                               const ShardType &Full);
  Op *reshard(const AssignDecl &D, llvm::ArrayRef<Value *> Args,
              ShardType &Out);

  // Model building blocks (SemaBuiltins.cpp, LANGUAGE.md §8).
  static std::optional<ModelBuiltin> parseModelBuiltin(llvm::StringRef Name);
  /// Every builtin a call may name, for "did you mean" and the list.
  static std::vector<std::string> builtinNames();
  /// The result's dtype when the statement does not write one.
  static DType defaultDType(ModelBuiltin B, llvm::ArrayRef<Value *> Args);
  Op *modelBuiltin(const AssignDecl &D, ModelBuiltin B,
                   llvm::ArrayRef<Value *> Args, const ShardType &Out);
  Op *attention(const AssignDecl &D, llvm::ArrayRef<Value *> Args,
                const ShardType &Out);
  Op *embed(const AssignDecl &D, llvm::ArrayRef<Value *> Args,
            const ShardType &Out);
  Op *crossEntropy(const AssignDecl &D, llvm::ArrayRef<Value *> Args,
                   const ShardType &Out);
  Op *moe(const AssignDecl &D, llvm::ArrayRef<Value *> Args,
          const ShardType &Out);
  /// One op of a builtin lowered to several: a statement of its own named
  /// \p Name at the call's line.
  template <typename OpT, typename... Args>
  Value *part(const AssignDecl &D, const std::string &Name,
              llvm::ArrayRef<Value *> Operands, const ShardType &T,
              Args &&...A) {
    unsigned St = addStatement(D.Range, Name, OpT::Kind);
    return Builder
        ->create<OpT>(Diags.location(D.Range.Start), St, Operands, Name, T,
                      std::forward<Args>(A)...)
        ->result();
  }
  /// A contraction of a builtin's lowering, checked to have a plan.
  Value *partContraction(const AssignDecl &D, const std::string &Name, Value *L,
                         Value *R, const ShardType &Out, double Used = 1);
  /// Operand \p I of a builtin: not int32 (unless \p Ids, then only
  /// int32) and not a partial sum. Reports and returns false otherwise.
  bool checkBuiltinOperand(const AssignDecl &D, unsigned I, Value *V, bool Ids,
                           llvm::StringRef Role);
  /// The result must have \p Want's dims, and ask for no partial sums but
  /// over \p Partial.
  bool checkBuiltinResult(const AssignDecl &D, const ShardType &Want,
                          const ShardType &Out, AxisSet Partial);
  /// \p Callee's last dim must be unsharded in operand \p I.
  bool checkLastDimWhole(const AssignDecl &D, unsigned I, const ShardType &T,
                         llvm::StringRef Callee);
  bool checkPeak(const AssignDecl &D, DType T, bool Matmul);
  unsigned addStatement(llvm::SMRange R, const std::string &Name, OpKind K);
  void bindTensor(const Ident &Name, Value *V);
  void logCarried(llvm::StringRef Name, Symbol *Old);
  bool checkCarried(const AssignDecl &D, const ShardType &T);
  std::string typeStr(const ShardType &T, bool WithDType = true) const {
    return shardc::typeStr(T, Info->Names, WithDType);
  }

  DiagnosticEngine &Diags;
  Program &P;
  /// The program's names and statements, shared with every module of it.
  std::shared_ptr<ProgramInfo> Info;
  std::deque<ChipSpec> Chips;
  /// A deque: a scope pushed must not move the others (symbols are held
  /// by pointer, and StringMap moves by copying in a vector).
  std::deque<llvm::StringMap<Symbol>> Scopes{1};
  /// Per enclosing repeat: the index of its body's scope, its op, and the
  /// tensors from outside the body the body assigns, with the value each
  /// had entering the loop (its carried values).
  struct CarriedLog {
    size_t Scope;
    RepeatOp *Op;
    llvm::SmallVector<std::pair<Symbol *, Value *>, 2> Entries;
  };
  std::vector<CarriedLog> Repeats;
  /// Where each mesh was declared, for "several meshes" messages.
  std::vector<std::string> MeshNames;
  /// By DimId: where the dim's size is declared (empty for the dims a
  /// builtin makes).
  std::vector<llvm::SMRange> DimDecls;
  /// A dim not divisible by its axes is one cause however many types shard
  /// it so: each (dim, axes) is recorded at its first use with its other
  /// uses, and reported once after the statements (reportUndivisible).
  struct Undivisible {
    DimId Dim;
    AxisList Axes;
    int64_t Size, Shards;
    llvm::SMRange First;
    std::vector<llvm::SMRange> More;
    /// The tensors whose heads index (the second last) it is.
    llvm::StringSet<> HeadsOf;
  };
  std::vector<Undivisible> Undivisibles;
  size_t UndivisibleUses = 0; ///< every failing use, for "did it fail"
  /// The tensor whose declared type is being resolved (a `tensor`, a
  /// `param`, a statement's result), and the names attention reads as its
  /// key and value: a KV-heads dim that does not divide gets the fix a
  /// grouped-query attention wants (replicate), not padding.
  llvm::StringRef Declaring;
  llvm::StringSet<> KvOperands;
  /// Dims whose declaration failed because the name was taken.
  llvm::StringSet<> RejectedDims;
  const Expr *ConfigMesh = nullptr;
  /// Where each config setting (but `mesh`) was first written, over every
  /// config block of the program: one set in two blocks is an error.
  llvm::StringMap<llvm::SMRange> ConfigSet;
  const TrainDecl *TrainBlock = nullptr;
  bool AnyParam = false;
  /// The value of `fp8` in the train block, where its chip check reports.
  llvm::SMRange Fp8At;
  /// Whether the items being declared are the main file's (not an import's).
  bool InMainFile = false;
  ModuleConfig Config;
  const MeshSpec *Mesh = nullptr;
  bool MeshChosen = false;
  Module *IR = nullptr;
  /// Where the next op goes: the module's body or a repeat's.
  std::unique_ptr<OpBuilder> Builder;
  int64_t RepeatProduct = 1;
  /// The pipelined `repeat ... over` (LANGUAGE.md §9) and its axis.
  const RepeatDecl *Pipeline = nullptr;
  bool PipelineWritten = false; ///< a `repeat ... over`, even a wrong one
  /// An error inside the pipelined repeat's body: it may have lost its
  /// carried value, so stage crossings are not checked.
  bool PipelineBodyFailed = false;
  /// The train block's `chunks` was rejected (one chunk is then no choice).
  bool ChunksRejected = false;
  std::optional<AxisId> PipelineAxis;
  /// Every tensor name bound, for the pipeline axis check at the end.
  std::vector<std::pair<Ident, const Value *>> Bound;
  std::optional<AxisId> pipelineAxis(const RepeatDecl &D, int64_t N);
  void stageSplit(const RepeatDecl &D, RepeatOp &R);
  void checkPipelineAxisUnused();
  void checkPipelineSettings();
  void checkPipelineCrossings();
  /// Each mesh axis some contraction sums partial products over (tensor
  /// parallelism), with the first such statement: warned about when its
  /// groups leave a node (SemaMeshUse.cpp).
  struct TensorParallelUse {
    AxisId Axis;
    llvm::SMRange At;
    std::string Stmt;
  };
  std::vector<TensorParallelUse> TensorParallel;
  void noteTensorParallel(const ShardType &L, const ShardType &R,
                          llvm::ArrayRef<Value *> Args,
                          llvm::ArrayRef<ContractionDim> Dims,
                          const AssignDecl &D);
  void warnTensorParallelSpan();
  /// Set while an operand's written type is resolved (typeError).
  bool WrittenOperand = false;
  bool WrittenTypeBroken = false;
  /// Looked up at the first undefined name only.
  const StdlibIndex *Stdlib = nullptr;
};

} // namespace shardc

#endif
