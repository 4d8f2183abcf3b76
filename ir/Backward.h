//===- Backward.h - What an op's backward rule may ask for ------*- C++ -*-===//
//
// COST-MODEL.md §5: each forward op kind knows its own backward rule
// (Differentiable::backward). The rule asks the derive-backward pass, through
// this interface, for the gradient of its result, for the forward values it
// reads (saved or recomputed, as the recompute policy says), for the type a
// gradient must be delivered in, and to emit and contribute gradient ops.
// The pass owns the policies (recompute, target shardings, accumulation);
// the ops own the calculus.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_IR_BACKWARD_H
#define SHARDC_IR_BACKWARD_H

#include "ir/Module.h"

namespace shardc {

class GradientBuilder {
public:
  virtual ~GradientBuilder();

  /// False for values no gradient flows to (int32 token ids).
  virtual bool needsGrad(const Value *V) const = 0;
  /// The gradient of \p V with every contribution summed; null when no
  /// gradient reached it.
  virtual Value *grad(const Value *V) = 0;
  /// The type a contribution to \p V's gradient is delivered in.
  virtual ShardType gradType(const Value *V) const = 0;
  /// True when \p V's gradient contributions accumulate in place into a
  /// whole gradient buffer, read from the second microbatch on
  /// (COST-MODEL.md §6.2): a param synced once per step. A param whose
  /// buffer is sharded (ZeRO 2, FSDP) is reduce-scattered every microbatch
  /// instead, so its weight-gradient contraction writes a fresh result.
  virtual bool accumulatesInPlace(const Value *V) const = 0;
  /// Adds \p G, of gradType(V), to \p V's gradient.
  virtual void contribute(const Value *V, Value *G) = 0;
  /// The forward value \p V as a backward op reads it: the saved value, or
  /// its recomputation.
  virtual Value *saved(const Value *V) = 0;
  /// Records that forward op \p F's backward reads what \p F kept
  /// (Differentiable::keptBytes): a saved activation, unless \p F was
  /// recomputed.
  virtual void keep(const Op &F) = 0;
  /// \p G as a value of type \p T (a backward reshard when they differ),
  /// counted as the gradient of forward op \p F w.r.t. \p Wrt.
  virtual Value *reshardTo(Value *G, const ShardType &T, const Op &F,
                           const Value *Wrt) = 0;

  /// Emits an op of class OpT computing the gradient of forward op \p F's
  /// result w.r.t. its operand \p Wrt, of type \p T, as a new backward
  /// statement.
  template <typename OpT, typename... Args>
  Value *emit(const Op &F, const Value *Wrt, llvm::ArrayRef<Value *> Operands,
              ShardType T, Args &&...A) {
    unsigned St = statement(F, Wrt, OpT::Kind);
    return builder()
        .create<OpT>(F.loc(), St, Operands, gradName(Wrt), std::move(T),
                     std::forward<Args>(A)...)
        ->result();
  }

protected:
  virtual OpBuilder &builder() = 0;
  /// A new backward statement, of an op of kind \p K, for the gradient of
  /// \p F w.r.t. \p Wrt.
  virtual unsigned statement(const Op &F, const Value *Wrt, OpKind K) = 0;
  /// The name of \p Wrt's gradient (`dW_in`).
  virtual std::string gradName(const Value *Wrt) const = 0;
};

} // namespace shardc

#endif // SHARDC_IR_BACKWARD_H
