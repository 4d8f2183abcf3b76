//===- OpInterfaces.cpp - Casts to the op interfaces and defaults ---------===//
//
// The casts from an op to an interface it implements, generated from
// Ops.def, and the check that Ops.def's interface column is what each class
// derives from.
//
//===----------------------------------------------------------------------===//
#include "ir/OpInterfaces.h"
#include "ir/Ops.h"
#include <type_traits>

using namespace shardc;

namespace {
/// The interface bits class \p C derives from.
template <typename C> constexpr uint8_t interfacesOfClass() {
  return (std::is_base_of_v<Differentiable, C> ? IsDifferentiable : 0) |
         (std::is_base_of_v<Costed, C> ? IsCosted : 0) |
         (std::is_base_of_v<Lowerable, C> ? IsLowerable : 0) |
         (std::is_base_of_v<Fusable, C> ? IsFusable : 0);
}

// A kind that lists an interface derives from it, and one that derives
// from an interface lists it (else isa<> would disagree with the class).
#define OP(Kind, Class, Mnemonic, Noun, Fixed, Interfaces)                     \
  static_assert(interfacesOfClass<Class>() == uint8_t(Interfaces),             \
                "Ops.def's interface column for " #Class                       \
                " differs from the interfaces the class derives from");
#include "ir/Ops.def"

/// \p O, of class \p C, as interface \p I; null when C does not implement
/// it (never asked: classof has said it does).
template <typename I, typename C> I *asInterface(Op *O) {
  if constexpr (std::is_base_of_v<I, C>)
    return static_cast<C *>(O);
  else
    return nullptr;
}
} // namespace

template <typename I> I *shardc::detail::interfaceCast(Op *O) {
  assert(isa<I>(O) && "the op's kind does not implement the interface");
  switch (O->kind()) {
#define OP(Kind, Class, Mnemonic, Noun, Fixed, Interfaces)                     \
  case OpKind::Kind:                                                           \
    return asInterface<I, Class>(O);
#include "ir/Ops.def"
  }
  llvm_unreachable("every kind is in Ops.def");
}

template Differentiable *shardc::detail::interfaceCast(Op *O);
template Costed *shardc::detail::interfaceCast(Op *O);
template Lowerable *shardc::detail::interfaceCast(Op *O);
template Fusable *shardc::detail::interfaceCast(Op *O);

ShardType Lowerable::requiredOperandType(unsigned I) const {
  llvm_unreachable("only ops lowered as Local have a required operand type");
}

ShardType Lowerable::naturalType() const {
  llvm_unreachable("only ops lowered as Local have a natural type");
}

std::string Lowerable::operandsComputeIn(const Op &O, unsigned Begin,
                                         unsigned End) const {
  for (unsigned I = Begin; I < End; ++I)
    if (!(O.operand(I)->type() == requiredOperandType(I)))
      return "its operands must be in the sharding it computes in";
  return "";
}
