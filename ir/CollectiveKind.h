//===- CollectiveKind.h - What each collective is, apart from price -*- C++
//-*-===//
//
// The closed set of collectives and the facts of each kind that do not
// depend on the network: what its volume V is, and how a member's bytes grow
// with the group. All of it is generated from ir/CollectiveKinds.def, one row
// per kind, so that code outside the networks asks these facts instead of
// switching over the kind. How a kind is priced on a cluster is each
// Network's business (passes/Network.h).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_IR_COLLECTIVEKIND_H
#define SHARDC_IR_COLLECTIVEKIND_H

#include "llvm/ADT/StringRef.h"
#include <cstdint>

namespace shardc {

enum class CollectiveKind : uint8_t {
#define COLLECTIVE(Name, Mnemonic, ...) Name,
#include "ir/CollectiveKinds.def"
};
constexpr unsigned NumCollectiveKinds = 0
#define COLLECTIVE(Name, Mnemonic, ...) +1
#include "ir/CollectiveKinds.def"
    ;

/// What a collective's V (COST-MODEL.md §3: the bytes one group works on)
/// is, in the local bytes of its operand and result.
enum class GroupVolume : uint8_t {
  Result,            ///< the gathered result
  Operand,           ///< the unreduced array
  OperandTimesGroup, ///< every member's operand: the group's total
};

/// How the bytes a member moves grow with the group.
enum class TrafficPattern : uint8_t {
  /// Passes of a ring: each moves (d-1)/d of V through a member among d.
  Ring,
  /// A personalised exchange: each member sends 1/N of its V/N share to
  /// every other member, (d-1)/N^2 of V among d of the N.
  Exchange,
};

/// The network-independent facts of one kind (one row of the .def).
struct CollectiveTraits {
  llvm::StringRef Name;
  GroupVolume Volume;
  TrafficPattern Pattern;
  /// Ring passes: a reduce-scatter or an all-gather is one, an all-reduce
  /// both.
  unsigned Passes;
  /// A switch that reduces in-network (NVLS, SHARP) turns the kind into
  /// one send and one receive of V per member.
  bool SwitchReduces;
  /// The result is a new buffer of other members' data, held while the
  /// step reads it (check-memory's transient term).
  bool TransientResult;
  /// Appended to the name of a value the kind makes (`h.ag`).
  const char *Suffix;
};

namespace detail {
inline constexpr CollectiveTraits CollectiveTable[] = {
#define COLLECTIVE(Name, Mnemonic, Volume, Pattern, Passes, SwitchReduces,     \
                   Transient, Suffix)                                          \
  {#Name,  GroupVolume::Volume, TrafficPattern::Pattern,                       \
   Passes, SwitchReduces,       Transient,                                     \
   Suffix},
#include "ir/CollectiveKinds.def"
};
} // namespace detail

inline const CollectiveTraits &collectiveTraits(CollectiveKind K) {
  return detail::CollectiveTable[unsigned(K)];
}
inline llvm::StringRef collectiveName(CollectiveKind K) {
  return collectiveTraits(K).Name;
}

/// Bytes per unit of V that one member moves among \p D members of a group
/// of \p N (D = N: the whole group), before any switch reduction: the
/// AllGather's (d-1)/d, the AllReduce's 2(d-1)/d, the AllToAll's
/// (d-1)/N^2.
inline double memberBytesPerV(const CollectiveTraits &T, int64_t D, int64_t N) {
  if (D <= 1)
    return 0;
  if (T.Pattern == TrafficPattern::Exchange)
    // f (f_p - f) with f = 1/N, f_p = d/N: integer numerators, one rounding.
    return double(D - 1) / (double(N) * double(N));
  return double(T.Passes) * (double(D) - 1) / double(D);
}

/// A key equal for two kinds exactly when a network prices them alike
/// (ReduceScatter moves the bytes of AllGather): caches share the entry.
inline unsigned trafficKey(const CollectiveTraits &T) {
  return unsigned(T.Pattern) << 8 | T.Passes << 1 | unsigned(T.SwitchReduces);
}

} // namespace shardc

#endif // SHARDC_IR_COLLECTIVEKIND_H
