//===- Operation.cpp - Values, the op base class and blocks ---------------===//
#include "ir/Operation.h"
#include "llvm/ADT/STLExtras.h"
#include <cassert>

using namespace shardc;

llvm::StringRef shardc::opMnemonic(OpKind K) {
  switch (K) {
#define OP(Kind, Class, Mnemonic, Noun, ...)                                   \
  case OpKind::Kind:                                                           \
    return Mnemonic;
#include "ir/Ops.def"
  }
  llvm_unreachable("every kind is in Ops.def");
}

llvm::StringRef shardc::opNoun(OpKind K) {
  switch (K) {
#define OP(Kind, Class, Mnemonic, Noun, ...)                                   \
  case OpKind::Kind:                                                           \
    return Noun;
#include "ir/Ops.def"
  }
  llvm_unreachable("every kind is in Ops.def");
}

FixedCost shardc::fixedCostOf(OpKind K) {
  switch (K) {
#define OP(Kind, Class, Mnemonic, Noun, Fixed, ...)                            \
  case OpKind::Kind:                                                           \
    return Fixed;
#include "ir/Ops.def"
  }
  llvm_unreachable("every kind is in Ops.def");
}

std::optional<CollectiveKind> shardc::collectiveKindOf(OpKind K) {
  switch (K) {
#define OP(Kind, Class, Mnemonic, Noun, ...)                                   \
  case OpKind::Kind:                                                           \
    return std::nullopt;
#define COLLECTIVE_OP(Kind, Class, Mnemonic, Noun)                             \
  case OpKind::Kind:                                                           \
    return CollectiveKind::Kind;
#include "ir/Ops.def"
  }
  llvm_unreachable("every kind is in Ops.def");
}

OpKind shardc::opKindOf(CollectiveKind K) {
  switch (K) {
#define COLLECTIVE(Name, Mnemonic, ...)                                        \
  case CollectiveKind::Name:                                                   \
    return OpKind::Name;
#include "ir/CollectiveKinds.def"
  }
  llvm_unreachable("every kind is in CollectiveKinds.def");
}

void Value::replaceAllUsesWith(Value *New) {
  assert(New != this && "a value cannot replace itself");
  // Each user appears once per use; setOperand edits this list, so work on
  // a copy.
  llvm::SmallVector<Op *, 4> Uses(Users.begin(), Users.end());
  for (Op *U : Uses)
    for (unsigned I = 0, E = U->numOperands(); I != E; ++I)
      if (U->operand(I) == this)
        U->setOperand(I, New);
}

Op::~Op() = default;

void Op::setOperand(unsigned I, Value *V) {
  Value *Old = Operands[I];
  if (Old == V)
    return;
  auto It = llvm::find(Old->Users, this);
  assert(It != Old->Users.end() && "use-list out of sync");
  Old->Users.erase(It);
  Operands[I] = V;
  V->Users.push_back(this);
}

Op *Block::insert(size_t Pos, std::unique_ptr<Op> O) {
  O->Parent = this;
  Pos = std::min(Pos, Ops.size());
  return Ops.insert(Ops.begin() + Pos, std::move(O))->get();
}

void Block::erase(size_t Pos) {
  Op &O = *Ops[Pos];
  assert((!O.result() || !O.result()->hasUses()) &&
         "erasing an op whose result is still used");
  for (Value *V : O.Operands) {
    auto It = llvm::find(V->Users, &O);
    assert(It != V->Users.end() && "use-list out of sync");
    V->Users.erase(It);
  }
  Ops.erase(Ops.begin() + Pos);
}
Block::~Block() = default;
