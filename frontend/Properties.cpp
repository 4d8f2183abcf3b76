//===- Properties.cpp - The property schemas, typed -----------------------===//
#include "frontend/Properties.h"

using namespace shardc;

namespace {

constexpr PropSchema Schemas[] = {
#define PROPERTY(Owner, Id, Name, Kind, Required)                              \
  {PropId::Owner##_##Id, PropOwner::Owner, Name, PropKind::Kind, false},
#define FAMILY(Owner, Id, Prefix, Kind, Required)                              \
  {PropId::Owner##_##Id, PropOwner::Owner, Prefix, PropKind::Kind, true},
#include "frontend/Properties.def"
};

/// One requirement: a property, a family member, or one of two properties.
struct Requirement {
  PropOwner Owner;
  PropId First, Second; ///< Second == First unless one of two
  const char *Spelling;
};

constexpr Requirement Requirements[] = {
#define PROPERTY(Owner, Id, Name, Kind, Required)                              \
  {PropOwner::Owner, PropId::Owner##_##Id,                                     \
   Required ? PropId::Owner##_##Id : PropId(NumProps), Name},
#define FAMILY(Owner, Id, Prefix, Kind, Required)                              \
  {PropOwner::Owner, PropId::Owner##_##Id,                                     \
   Required ? PropId::Owner##_##Id : PropId(NumProps), Prefix ".<dtype>"},
#define ONE_OF(Owner, Id1, Id2)                                                \
  {PropOwner::Owner, PropId::Owner##_##Id1, PropId::Owner##_##Id2,             \
   #Id1 "' or '" #Id2},
#include "frontend/Properties.def"
};

} // namespace

std::optional<PropRange> shardc::physicalRange(PropKind K) {
  switch (K) {
  // Sizes and rates from 1 (a byte, a byte or FLOP a second, a hertz) to
  // 1e21, a zettabyte or zettaFLOP a second: a step time is at most a few
  // 2^62-byte tensors over 1 B/s times 2^62 repeats, far below DBL_MAX.
  case PropKind::Bytes:
  case PropKind::BytesPerSecond:
  case PropKind::FlopPerSecond:
  case PropKind::Frequency:
    return PropRange{1, 1e21};
  // Latencies up to an hour; zero is the default.
  case PropKind::Seconds:
    return PropRange{0, 3600};
  // Efficiencies divide times: below 0.1% a denormal value made them inf.
  case PropKind::Fraction:
    return PropRange{1e-3, 1};
  default:
    return std::nullopt;
  }
}

const PropSchema *shardc::findSchema(PropOwner O, llvm::StringRef Name) {
  for (const PropSchema &S : Schemas) {
    if (S.Owner != O)
      continue;
    if (!S.Family && Name == S.Name)
      return &S;
    if (S.Family && Name.startswith(std::string(S.Name) + "."))
      return &S;
  }
  return nullptr;
}

std::vector<std::string> shardc::schemaNames(PropOwner O) {
  std::vector<std::string> Out;
  for (const PropSchema &S : Schemas) {
    if (S.Owner != O)
      continue;
    if (!S.Family) {
      Out.push_back(S.Name);
      continue;
    }
    for (unsigned T = 0; T < NumDTypes; ++T)
      Out.push_back(std::string(S.Name) + "." + dtypeName(DType(T)).str());
  }
  return Out;
}

std::vector<std::string> shardc::schemaSummary(PropOwner O) {
  std::vector<std::string> Out;
  for (const PropSchema &S : Schemas)
    if (S.Owner == O)
      Out.push_back(S.Family ? std::string(S.Name) + ".<dtype>"
                             : std::string(S.Name));
  llvm::sort(Out);
  return Out;
}

std::optional<std::string> shardc::firstMissing(PropOwner O,
                                                const PropertySet &S) {
  for (const Requirement &R : Requirements) {
    // Optional properties carry an out-of-range Second: no requirement.
    if (R.Owner != O || unsigned(R.Second) >= NumProps)
      continue;
    if (!S.has(R.First) && !S.has(R.Second))
      return std::string(R.Spelling);
  }
  return std::nullopt;
}
