//===- Operation.h - Values, the op base class and blocks -------*- C++ -*-===//
//
// The IR's core objects. A Value has one defining op and a use-list; an Op
// has operands, at most one result, a location, the source statement it
// realises, and a dense id that analyses key their side tables by. Each op
// kind is a subclass with exactly its own fields (Ops.h). Op's virtual
// methods are what every op answers (its printed attributes, its invariants,
// its clone); what only some kinds answer (a backward rule, compute work, a
// lowering) is an interface the kind opts into (OpInterfaces.h).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_IR_OPERATION_H
#define SHARDC_IR_OPERATION_H

#include "diag/Location.h"
#include "ir/Types.h"
#include "llvm/Support/Casting.h"
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace shardc {

using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;

enum class OpKind : uint8_t {
#define OP(Kind, Class, Mnemonic, Noun, Fixed, Interfaces) Kind,
#include "ir/Ops.def"
};
llvm::StringRef opMnemonic(OpKind K);
/// What the report calls a statement whose op is of kind \p K.
llvm::StringRef opNoun(OpKind K);
/// The collective an op kind performs; none for the other kinds.
std::optional<CollectiveKind> collectiveKindOf(OpKind K);
OpKind opKindOf(CollectiveKind K);
inline bool isCollective(OpKind K) { return collectiveKindOf(K).has_value(); }

/// A training step's fixed costs (`fixed_costs = priced`), each priced by
/// the ops of one kind: Ops.def's Fixed column, NotFixed for the other
/// kinds. The step sums each apart (StepSummary::TFixedPart, indexed by it).
enum FixedCost : uint8_t {
  FixedNorm,       ///< the gradient norm, with its AllReduce
  FixedInfCheck,   ///< the fp16 gradients' inf check and unscale
  FixedMasterCopy, ///< the master-to-model copy
  FixedZeroGrad,   ///< zeroing a gradient buffer
  NotFixed,
};
constexpr unsigned NumFixedCosts = NotFixed;
/// Which fixed cost an op of kind \p K prices; NotFixed for most.
FixedCost fixedCostOf(OpKind K);

class Op;
class Block;
class Module;
class GradientBuilder;

/// A statement index for ops no statement owns (a `repeat`).
constexpr unsigned NoStmt = ~0u;

class Value {
public:
  unsigned id() const { return Id; }
  const std::string &name() const { return Name; }
  const ShardType &type() const { return Type; }
  Op *def() const { return Def; }
  /// The ops using this value, once per use.
  llvm::ArrayRef<Op *> users() const { return Users; }
  bool hasUses() const { return !Users.empty(); }
  /// Points every use of this value at \p New instead.
  void replaceAllUsesWith(Value *New);

private:
  friend class Module;
  friend class Op;
  friend class Block;
  friend class OpBuilder;
  unsigned Id = 0;
  std::string Name; ///< the source name, or derived (`h.ag`)
  ShardType Type;
  Op *Def = nullptr;
  llvm::SmallVector<Op *, 2> Users;
};

class Op {
public:
  virtual ~Op();
  Op &operator=(const Op &) = delete;

  OpKind kind() const { return Kind; }
  unsigned id() const { return Id; }
  Loc loc() const { return Location; }
  unsigned stmt() const { return Stmt; }
  Block *parent() const { return Parent; }
  llvm::ArrayRef<Value *> operands() const { return Operands; }
  Value *operand(unsigned I) const { return Operands[I]; }
  unsigned numOperands() const { return Operands.size(); }
  /// The result; null only for ops that define nothing (`repeat`).
  Value *result() const { return Result; }
  /// Replaces operand \p I, keeping both values' use-lists right.
  void setOperand(unsigned I, Value *V);
  /// Nested blocks (a repeat's body); none for most ops.
  virtual llvm::ArrayRef<Block *> regions() const { return {}; }

  // --- Printing and verification ------------------------------------------
  /// The attributes printed after the operands (` over [X] dim B`).
  virtual std::string attrs(const TypeNames &N) const { return ""; }
  /// This kind's own invariants; empty when they hold. \p Lowered says the
  /// module is past insert-collectives (every op local); \p N names dims in
  /// the message.
  virtual std::string verify(const TypeNames &N, bool Lowered) const {
    return "";
  }

  /// Gives the dims named in \p Sizes their new size in the op's own
  /// fields (a contraction's dims, a param's state type); values' types are
  /// the module's (rebindModule).
  virtual void rebindSizes(const DimSizeMap &Sizes) {}

  /// A copy of this op's own fields; operands, result, regions' contents and
  /// ids are the cloner's (OpBuilder::clone).
  virtual std::unique_ptr<Op> cloneFields() const = 0;

protected:
  explicit Op(OpKind K) : Kind(K) {}
  /// Copies the kind, location and statement only.
  Op(const Op &O) : Kind(O.Kind), Location(O.Location), Stmt(O.Stmt) {}

private:
  friend class OpBuilder;
  friend class Block;
  OpKind Kind;
  unsigned Id = 0;
  Loc Location;
  unsigned Stmt = NoStmt;
  Block *Parent = nullptr;
  llvm::SmallVector<Value *, 2> Operands;
  Value *Result = nullptr;
};

/// An ordered list of ops; owns them.
class Block {
public:
  Block() = default;
  explicit Block(Op *ParentOp) : ParentOp(ParentOp) {}
  Block(const Block &) = delete;
  Block &operator=(const Block &) = delete;
  ~Block();

  using OpList = std::vector<std::unique_ptr<Op>>;
  const OpList &ops() const { return Ops; }
  bool empty() const { return Ops.empty(); }
  size_t size() const { return Ops.size(); }
  Op *parentOp() const { return ParentOp; }
  /// Inserts \p O before position \p Pos (the end when Pos >= size()).
  Op *insert(size_t Pos, std::unique_ptr<Op> O);
  /// Erases the op at \p Pos; its result must have no uses left.
  void erase(size_t Pos);

private:
  OpList Ops;
  Op *ParentOp = nullptr;
};

/// Calls \p F on every op in program order, entering nested blocks after
/// the op that owns them.
template <typename OpT, typename Fn> void walk(const Block &B, Fn &&F) {
  for (const auto &O : B.ops()) {
    if (auto *T = llvm::dyn_cast<OpT>(O.get()))
      F(*T);
    for (Block *R : O->regions())
      walk<OpT>(*R, F);
  }
}
template <typename Fn> void walk(const Block &B, Fn &&F) {
  walk<Op>(B, std::forward<Fn>(F));
}

/// Calls \p F on every op in reverse program order: the last op first, a
/// nested block's ops (last first) before the op that owns it.
template <typename Fn> void walkReverse(const Block &B, Fn &&F) {
  for (auto It = B.ops().rbegin(); It != B.ops().rend(); ++It) {
    for (auto R = (*It)->regions().rbegin(); R != (*It)->regions().rend(); ++R)
      walkReverse(**R, F);
    F(**It);
  }
}

} // namespace shardc

#endif // SHARDC_IR_OPERATION_H
