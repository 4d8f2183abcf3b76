//===- Properties.h - The property schemas, typed ---------------*- C++ -*-===//
//
// Private to the frontend. Properties.def as data: an id per property, the
// schema lookup by written name, the requirement check, and PropertySet, the
// checked values of one block read by id (never by string, so a misspelt
// name in Sema does not compile instead of silently giving the default).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_FRONTEND_PROPERTIES_H
#define SHARDC_FRONTEND_PROPERTIES_H

#include "ir/Hardware.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"
#include <array>
#include <optional>
#include <string>
#include <vector>

namespace shardc {

struct Symbol;

enum class PropKind : uint8_t {
  Bytes,
  BytesPerSecond,
  FlopPerSecond,
  Count,
  Whole, ///< a whole number >= 0
  Word,  ///< a bare name, one of the property's choices
  Frequency,
  Seconds,
  Fraction,
  Share, ///< a plain number in [0, 1)
  Real,  ///< a plain number > 0
  Bool,
  ChipRef,
  MeshRef
};

enum class PropOwner : uint8_t {
  Chip,
  Tile,
  Cluster,
  Level,
  Config,
  Train,
  Search,
  Serve,
  Speculate,
  Attention,
  Moe
};

enum class PropId : uint8_t {
#define PROPERTY(Owner, Id, Name, Kind, Required) Owner##_##Id,
#define FAMILY(Owner, Id, Prefix, Kind, Required) Owner##_##Id,
#include "frontend/Properties.def"
};
constexpr unsigned NumProps = 0
#define PROPERTY(Owner, Id, Name, Kind, Required) +1
#define FAMILY(Owner, Id, Prefix, Kind, Required) +1
#include "frontend/Properties.def"
    ;

struct PropSchema {
  PropId Id;
  PropOwner Owner;
  const char *Name; ///< the name, or a family's prefix
  PropKind Kind;
  bool Family;
};

/// The bounds a numeric property's value must lie in, in SI units. They are
/// wide enough for any machine and narrow enough that every time, rate and
/// percentage the report derives from them stays a finite double, whatever
/// the program's sizes and repeat counts (docs/limits.md).
struct PropRange {
  double Min, Max;
};
/// Null for kinds Sema bounds otherwise (counts, words, flags, references).
std::optional<PropRange> physicalRange(PropKind K);

/// The schema \p Name (`hbm`, or `flops.bf16` for a family) has in a block
/// of \p O; null when there is none.
const PropSchema *findSchema(PropOwner O, llvm::StringRef Name);
/// Every name a block of \p O accepts (families spelled out per dtype), for
/// "did you mean".
std::vector<std::string> schemaNames(PropOwner O);
/// The names a block of \p O accepts, sorted, a family written once as
/// `flops.<dtype>`: the list an unknown property's note gives.
std::vector<std::string> schemaSummary(PropOwner O);

/// A property after checking: a number in base units, a flag or a symbol.
struct PropValue {
  double Number = 0;
  int64_t Whole = 0;
  bool Flag = false;
  const Symbol *Sym = nullptr;
  std::string Word;    ///< a Word's text
  llvm::SMRange Range; ///< where the value was written
};

/// The checked properties of one block.
class PropertySet {
public:
  void set(PropId P, PropValue V) { Values[unsigned(P)] = V; }
  void setMember(PropId Family, DType T, PropValue V) {
    Members[unsigned(Family)][unsigned(T)] = V;
    AnyMember[unsigned(Family)] = true;
  }
  bool has(PropId P) const {
    return Values[unsigned(P)].has_value() || AnyMember[unsigned(P)];
  }
  const PropValue &get(PropId P) const { return *Values[unsigned(P)]; }
  double number(PropId P, double Default) const {
    return Values[unsigned(P)] ? Values[unsigned(P)]->Number : Default;
  }
  bool flag(PropId P, bool Default) const {
    return Values[unsigned(P)] ? Values[unsigned(P)]->Flag : Default;
  }
  /// A family's member for \p T, if given.
  const std::optional<PropValue> &member(PropId Family, DType T) const {
    return Members[unsigned(Family)][unsigned(T)];
  }

private:
  std::array<std::optional<PropValue>, NumProps> Values{};
  std::array<std::array<std::optional<PropValue>, NumDTypes>, NumProps>
      Members{};
  std::array<bool, NumProps> AnyMember{};
};

/// The first requirement of Properties.def that \p S leaves unmet for a
/// block of \p O, spelled as the diagnostic quotes it (`hbm`,
/// `flops.<dtype>`, `uplink_bw' or 'bw`); none when all are met.
std::optional<std::string> firstMissing(PropOwner O, const PropertySet &S);

} // namespace shardc

#endif // SHARDC_FRONTEND_PROPERTIES_H
