//===- IR.h - shardc's typed program representation -------------*- C++ -*-===//
//
// A module is a block of operations over values; every value carries its full
// sharding type (dtype, dims, the mesh axes sharding each dim in order, and
// the axes it is unreduced over). Ops are grouped into the source statements
// they came from, so the report can speak in the user's terms after passes
// have inserted collectives. Costs are optional annotations the cost passes
// fill in; later work (backward ops, parameters, pipeline stages) adds op
// kinds and annotations without reshaping this.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_IR_IR_H
#define SHARDC_IR_IR_H

#include "ir/Hardware.h"
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

enum class OpKind : uint8_t {
#define OP(Kind, Mnemonic) Kind,
#include "ir/Ops.def"
};
llvm::StringRef opMnemonic(OpKind K);
bool isCollective(OpKind K);
OpKind collectiveOp(CollectiveKind K);
CollectiveKind collectiveKindOf(OpKind K);

enum class ElementwiseFn : uint8_t {
#define ELEMENTWISE(Name, Flops, Arity) Name,
#include "ir/Elementwise.def"
};
llvm::StringRef elementwiseName(ElementwiseFn F);
double elementwiseFlops(ElementwiseFn F);
unsigned elementwiseArity(ElementwiseFn F);
std::optional<ElementwiseFn> parseElementwise(llvm::StringRef Name);

/// One dim of a tensor: its name, global size and the mesh axes sharding it,
/// major to minor.
struct TensorDim {
  std::string Name;
  int64_t Size = 1;
  llvm::SmallVector<unsigned, 2> Axes;
  bool operator==(const TensorDim &O) const = default;
};

/// The sharding type of a value: `bf16[B_X, D]{U_Y}`.
struct ShardType {
  DType Elt = DType::bf16;
  llvm::SmallVector<TensorDim, 4> Dims;
  llvm::SmallVector<unsigned, 2> Unreduced; ///< kept sorted

  bool operator==(const ShardType &O) const = default;
  bool sameDims(const ShardType &O) const;
  std::optional<unsigned> dimIndex(llvm::StringRef Name) const;
  /// The dim that axis \p Axis shards, if any.
  std::optional<unsigned> dimOfAxis(unsigned Axis) const;
  bool isUnreducedOver(unsigned Axis) const;
  /// Per-chip extent of dim \p I: ceil(size / product of its axes), which is
  /// exact unless padding was allowed.
  int64_t localSize(unsigned I, const MeshSpec &M) const;
  double localElements(const MeshSpec &M) const;
  double localBytes(const MeshSpec &M) const;
  double globalElements() const;
  /// The book's notation: `bf16[B_X, F_{data,model}]{U_Y}`.
  std::string str(const MeshSpec &M, bool WithDType = true) const;
};

class Operation;

class Value {
public:
  unsigned Id = 0;
  std::string Name; ///< the source name, or derived (`h.ag`)
  ShardType Type;
  Operation *Def = nullptr;
};

/// How a contraction classifies each distinct dim (LANGUAGE.md §5).
enum class DimRole : uint8_t { Batch, Contracted, FreeLhs, FreeRhs };
llvm::StringRef dimRoleName(DimRole R);

struct ContractionDim {
  std::string Name;
  int64_t Size = 1;
  DimRole Role = DimRole::Batch;
};

/// One level's share of a collective (COST-MODEL.md §3).
struct LevelCost {
  unsigned Level = 0;
  int64_t FanIn = 1;
  double Bytes = 0; ///< through one child's uplink
  double Time = 0;
};

struct CollectiveCost {
  double GroupBytes = 0; ///< V_g
  double Time = 0;
  double LatencyTime = 0;
  llvm::SmallVector<LevelCost, 4> Levels;
};

enum class Bound : uint8_t { Compute, Memory, Comms };
llvm::StringRef boundName(Bound B);

/// The costs of one op, per chip, for one execution (repeat counts apply in
/// the totals).
struct OpCost {
  double Flops = 0;
  double HbmBytes = 0;
  double TMath = 0, THbm = 0, TComms = 0, Time = 0;
  Bound Bounded = Bound::Compute;
};

struct Block {
  std::vector<std::unique_ptr<Operation>> Ops;
};

class Operation {
public:
  explicit Operation(OpKind K) : Kind(K) {}

  OpKind Kind;
  llvm::SMLoc Loc;
  /// The source statement (index into Module::Statements) this op realises.
  unsigned Stmt = 0;
  llvm::SmallVector<Value *, 2> Operands;
  Value *Result = nullptr;

  // Contraction.
  llvm::SmallVector<ContractionDim, 4> ContractDims;
  // Elementwise.
  ElementwiseFn Fn = ElementwiseFn::add;
  // Collectives and Slice: the mesh axes; the dim gathered, scattered onto,
  // sliced, or (AllToAll) the source dim; DstDim the AllToAll's target dim.
  llvm::SmallVector<unsigned, 2> Axes;
  int Dim = -1, DstDim = -1;
  // Repeat.
  int64_t TripCount = 1;
  std::unique_ptr<Block> Body;

  /// Explanations of choices a pass made (`--emit=ir` prints them).
  std::vector<std::string> Remarks;
  std::optional<CollectiveCost> CommCost;
  std::optional<OpCost> Cost;
};

/// A source statement: what the report calls an op.
struct Statement {
  std::string Name; ///< the result's name, or the tensor's for inputs
  llvm::SMLoc Loc;
  unsigned Line = 0;
  std::string KindName; ///< contraction, elementwise, reshard, input
  int64_t Repeat = 1;   ///< product of the enclosing repeat counts
  /// The choice insert-collectives made, and the op time of the best plan it
  /// rejected (absent when there was no alternative).
  std::string Choice;
  std::optional<double> RejectedTime;
  std::string Rejected;
  /// The statement's cost: its ops added up (estimate-costs).
  std::optional<OpCost> Cost;
};

/// Program totals (COST-MODEL.md §4), repeat counts applied.
struct ProgramCost {
  double Time = 0, TMath = 0, THbm = 0, TComms = 0;
  double Flops = 0; ///< useful FLOPs over all chips (contractions)
  double Mfu = 0;
  llvm::SmallVector<double, 4> LevelBytes; ///< per level, through one uplink
};

struct ModuleConfig {
  bool Overlap = true;
  bool AllowPadding = false;
};

class Module {
public:
  std::string SourceName;
  const MeshSpec *Mesh = nullptr;
  ModuleConfig Config;
  Block Body;
  std::vector<Statement> Statements;
  /// Set by insert-collectives: from then on every op must be local.
  bool CollectivesInserted = false;
  std::optional<ProgramCost> Totals;

  Value *newValue(std::string Name, ShardType T, Operation *Def);
  Operation *append(Block &B, std::unique_ptr<Operation> Op);

private:
  std::vector<std::unique_ptr<Value>> Values;
};

/// Calls \p F on every op, entering repeat bodies, in program order.
template <typename Fn> void walk(Block &B, Fn &&F) {
  for (auto &Op : B.Ops) {
    F(*Op);
    if (Op->Body)
      walk(*Op->Body, F);
  }
}

template <typename Fn> void walk(const Block &B, Fn &&F) {
  for (const auto &Op : B.Ops) {
    F(static_cast<const Operation &>(*Op));
    if (Op->Body)
      walk(static_cast<const Block &>(*Op->Body), F);
  }
}

/// Prints the module's textual form (docs/ir.md).
void printModule(const Module &M, const llvm::SourceMgr &SM,
                 llvm::raw_ostream &OS, bool WithCosts = false);

/// Checks the module's invariants; returns a description of the first broken
/// one, or an empty string.
std::string verifyModule(const Module &M);

} // namespace shardc

#endif // SHARDC_IR_IR_H
