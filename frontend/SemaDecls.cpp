//===- SemaDecls.cpp - Chips, clusters, meshes, dims, lets, config --------===//
//
// Phase one of checking: everything that is not a tensor or a statement. The
// property schemas come from Properties.def; a chip's figures are stored in
// SI base units in a ChipSpec, a cluster's in a ClusterSpec.
//
//===----------------------------------------------------------------------===//
#include "frontend/Sema.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"

using namespace shardc;

namespace {

struct PropSchema {
  PropOwner Owner;
  const char *Name;
  PropKind Kind;
  bool Required;
  bool Family;
};

constexpr PropSchema Schemas[] = {
#define PROPERTY(Owner, Name, Kind, Required)                                  \
  {PropOwner::Owner, Name, PropKind::Kind, Required, false},
#define FAMILY(Owner, Prefix, Kind)                                            \
  {PropOwner::Owner, Prefix, PropKind::Kind, false, true},
#include "frontend/Properties.def"
};

/// The schema for \p Name; for families, \p Name is `prefix.dtype`.
const PropSchema *findSchema(PropOwner O, llvm::StringRef Name) {
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

std::vector<std::string> schemaNames(PropOwner O) {
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

/// Limits that keep placement and numbering bounded (docs/limits.md). A
/// mesh's axis count is bounded by MaxMeshAxes (ir/Hardware.h): axis sets
/// are 64-bit masks.
constexpr unsigned MaxLevels = 16;
constexpr int64_t MaxMeshChips = int64_t(1) << 22;

} // namespace

bool Sema::checkProps(const std::vector<Property> &Ps, PropOwner O,
                      llvm::StringRef What, llvm::StringMap<PropValue> &Out,
                      llvm::StringRef Skip) {
  bool Ok = true;
  llvm::StringMap<llvm::SMRange> Seen;
  for (const Property &Prop : Ps) {
    const std::string &Name = Prop.Name.Name;
    if (Name == Skip)
      continue;
    const PropSchema *S = findSchema(O, Name);
    if (!S) {
      if (auto Best = closestName(Name, schemaNames(O)))
        Diags.report(Prop.Name.Range, diag::UnknownPropertySuggest, Name, What,
                     *Best);
      else
        Diags.report(Prop.Name.Range, diag::UnknownProperty, Name, What);
      Ok = false;
      continue;
    }
    if (S->Family && !parseDType(llvm::StringRef(Name).split('.').second)) {
      Diags.report(Prop.Name.Range, diag::UnknownDType,
                   llvm::StringRef(Name).split('.').second.str());
      Ok = false;
      continue;
    }
    auto [First, New] = Seen.try_emplace(Name, Prop.Name.Range);
    if (!New) {
      Diags.report(Prop.Name.Range, diag::DuplicateProperty, Name);
      Diags.report(First->second, diag::FirstSetHere, Name);
      Ok = false;
      continue;
    }
    std::optional<PropValue> V = evalProperty(Prop, S->Kind);
    if (!V) {
      Ok = false;
      continue;
    }
    Out[Name] = *V;
  }
  return Ok;
}

void Sema::declareItem(const Decl &D) {
  if (auto *C = llvm::dyn_cast<ChipDecl>(&D))
    chip(*C);
  else if (auto *C = llvm::dyn_cast<ClusterDecl>(&D))
    cluster(*C);
  else if (auto *M = llvm::dyn_cast<MeshDecl>(&D))
    mesh(*M);
  else if (auto *Dm = llvm::dyn_cast<DimDecl>(&D))
    dims(*Dm);
  else if (auto *L = llvm::dyn_cast<LetDecl>(&D))
    lets(L->Bindings);
  else if (auto *C = llvm::dyn_cast<ConfigDecl>(&D))
    config(*C);
}

void Sema::chip(const ChipDecl &D) {
  llvm::StringMap<PropValue> Props;
  bool Ok = checkProps(D.Props, PropOwner::Chip, "chip", Props);
  ChipSpec &C = Chips.emplace_back();
  C.Name = D.Name.Name;
  bool AnyPeak = false;
  for (auto &Entry : Props) {
    auto [Prefix, Suffix] = Entry.first().split('.');
    if (Suffix.empty())
      continue;
    DType T = *parseDType(Suffix);
    (Prefix == "flops" ? C.Flops : C.VectorFlops)[unsigned(T)] =
        Entry.second.Number;
    AnyPeak |= Prefix == "flops";
  }
  auto Get = [&](const char *N, double Default) {
    auto It = Props.find(N);
    return It == Props.end() ? Default : It->second.Number;
  };
  C.HbmBytes = Get("hbm", 0);
  C.HbmBw = Get("hbm_bw", 0);
  C.MatmulEfficiency = Get("matmul_efficiency", 1.0);
  C.HbmEfficiency = Get("hbm_efficiency", 1.0);
  // A missing property is reported only when the block had no other error,
  // so a misspelt `hbm_bw` is not also reported as missing.
  for (const char *Req : {"hbm", "hbm_bw"})
    if (Ok && !Props.count(Req)) {
      Diags.report(D.Name.Range, diag::MissingProperty, "chip", C.Name, Req);
      Ok = false;
    }
  if (Ok && !AnyPeak) {
    Diags.report(D.Name.Range, diag::MissingProperty, "chip", C.Name,
                 "flops.<dtype>");
    Ok = false;
  }
  Symbol S{SymKind::Chip, D.Name.Range, !Ok};
  S.Chip = &C;
  declare(D.Name, S);
}

bool Sema::level(const LevelAST &L, LevelSpec &Out) {
  llvm::StringMap<PropValue> Props;
  bool Ok = checkProps(L.Props, PropOwner::Level, "level", Props);
  Out.Name = L.Name.Name;
  auto Get = [&](const char *N, double Default) {
    auto It = Props.find(N);
    return It == Props.end() ? Default : It->second.Number;
  };
  Out.Size = Props.count("size") ? Props["size"].Whole : 0;
  Out.UplinkBw = Get("uplink_bw", 0);
  Out.Bw = Get("bw", 0);
  Out.InNetworkReduction =
      Props.count("in_network_reduction") && Props["in_network_reduction"].Flag;
  Out.Latency = Get("latency", 0);
  Out.Efficiency = Get("efficiency", 1.0);
  if (Ok && !Props.count("size")) {
    Diags.report(L.Name.Range, diag::MissingProperty, "level", Out.Name,
                 "size");
    Ok = false;
  }
  if (Ok && !Props.count("uplink_bw") && !Props.count("bw")) {
    Diags.report(L.Name.Range, diag::MissingProperty, "level", Out.Name,
                 "uplink_bw' or 'bw");
    Ok = false;
  }
  return Ok;
}

void Sema::cluster(const ClusterDecl &D) {
  llvm::StringMap<PropValue> Props;
  bool Ok = checkProps(D.Props, PropOwner::Cluster, "cluster", Props);
  auto Shared = std::make_shared<ClusterSpec>();
  ClusterSpec &C = *Shared;
  C.Name = D.Name.Name;
  if (Props.count("chip"))
    C.Chip = *Props["chip"].Sym->Chip;
  else if (Ok) {
    Diags.report(D.Name.Range, diag::MissingProperty, "cluster", C.Name,
                 "chip");
    Ok = false;
  }
  if (D.Levels.empty()) {
    Diags.report(D.Name.Range, diag::ClusterNoLevels, C.Name);
    Ok = false;
  }
  if (D.Levels.size() > MaxLevels) {
    Diags.report(D.Levels[MaxLevels].Range, diag::TooManyLevels,
                 unsigned(D.Levels.size()), MaxLevels);
    Ok = false;
  }
  int64_t Chips = 1;
  // Every level is checked even after an error elsewhere in the cluster:
  // each level's mistakes are its own, so none hides another's.
  for (const LevelAST &L : D.Levels) {
    if (Diags.shouldStop())
      break;
    Ok &= level(L, C.Levels.emplace_back());
    if (Ok && __builtin_mul_overflow(Chips, C.Levels.back().Size, &Chips)) {
      Diags.report(L.Range, diag::IntegerOverflow);
      Ok = false;
    }
  }
  Symbol S{SymKind::Cluster, D.Name.Range, !Ok};
  S.Cluster = std::move(Shared);
  declare(D.Name, S);
}

void Sema::mesh(const MeshDecl &D) {
  MeshSpec &M = P.Meshes.emplace_back();
  M.Name = D.Name.Name;
  const Symbol *C = lookup(D.Cluster.Name);
  // The axes are checked whatever the cluster's state; only the fit against
  // the cluster needs a good one.
  bool ClusterOk = false, Ok = true;
  if (!C) {
    reportUndefined(D.Cluster, "cluster", {SymKind::Cluster});
  } else if (C->Kind != SymKind::Cluster) {
    Diags.report(D.Cluster.Range, diag::WrongKindOfName, D.Cluster.Name,
                 symKindName(C->Kind), "cluster");
  } else {
    ClusterOk = !C->Poisoned;
    M.Cluster = C->Cluster;
  }
  if (D.Axes.size() > MaxMeshAxes) {
    Diags.report(D.Axes[MaxMeshAxes].Name.Range, diag::TooManyAxes,
                 unsigned(D.Axes.size()), MaxMeshAxes);
    Ok = false;
  }
  int64_t Chips = 1;
  for (const MeshAxisAST &A : D.Axes) {
    if (!Ok || Diags.shouldStop())
      break;
    if (M.axisIndex(A.Name.Name)) {
      Diags.report(A.Name.Range, diag::DuplicateAxis, A.Name.Name);
      Ok = false;
      break;
    }
    std::optional<int64_t> N = evalWhole(*A.Size, "mesh axis size", 1);
    if (!N || __builtin_mul_overflow(Chips, *N, &Chips)) {
      if (N)
        Diags.report(A.Size->Range, diag::IntegerOverflow);
      Ok = false;
      break;
    }
    M.Axes.push_back({A.Name.Name, *N});
  }
  if (Ok && Chips > MaxMeshChips) {
    Diags.report(D.Range, diag::TooManyChips, "mesh '" + M.Name + "'",
                 std::to_string(Chips), MaxMeshChips);
    Ok = false;
  }
  if (Ok && ClusterOk && Chips > M.Cluster->numChips()) {
    Diags.report(D.Range, diag::MeshTooLarge, M.Name, Chips, M.Cluster->Name,
                 M.Cluster->numChips());
    Ok = false;
  }
  Symbol S{SymKind::Mesh, D.Name.Range, !(Ok && ClusterOk)};
  S.Mesh = &M;
  if (declare(D.Name, S))
    MeshNames.push_back(M.Name);
}

void Sema::dims(const DimDecl &D) {
  for (const Binding &B : D.Bindings) {
    std::optional<int64_t> N = evalWhole(*B.Value, "dim size", 1);
    Symbol S{SymKind::Dim, B.Name.Range, !N};
    S.Value = Quantity::ofInt(N.value_or(1));
    S.Dim = Info->Names.Dims.size();
    Info->Names.Dims.push_back(B.Name.Name);
    // A dim whose name was taken is reported once; its uses stay quiet.
    if (!declare(B.Name, S))
      RejectedDims.insert(B.Name.Name);
  }
}

void Sema::lets(const std::vector<Binding> &Bs) {
  for (const Binding &B : Bs) {
    std::optional<Quantity> Q = eval(*B.Value);
    Symbol S{SymKind::Let, B.Name.Range, !Q};
    S.Value = Q.value_or(Quantity{});
    declare(B.Name, S);
  }
}

void Sema::config(const ConfigDecl &D) {
  llvm::StringMap<PropValue> Props;
  checkProps(D.Props, PropOwner::Config, "config", Props, /*Skip=*/"mesh");
  if (Props.count("overlap"))
    Config.Overlap = Props["overlap"].Flag;
  if (Props.count("allow_padding"))
    Config.AllowPadding = Props["allow_padding"].Flag;
  // `mesh = M` may name a mesh declared further down, so it is resolved when
  // the first tensor needs it.
  for (const Property &Prop : D.Props) {
    if (Prop.Name.Name != "mesh")
      continue;
    if (ConfigMesh) {
      Diags.report(Prop.Name.Range, diag::DuplicateProperty, "mesh");
      Diags.report(ConfigMesh->Range, diag::FirstSetHere, "mesh");
    } else
      ConfigMesh = Prop.Value.get();
  }
}

/// Picks the mesh tensors live on (LANGUAGE.md §2): `config { mesh = M; }`,
/// else the only mesh. Creates the IR module. Reports at \p At, the first
/// tensor or statement, when no mesh can be chosen.
bool Sema::chooseMesh(llvm::SMRange At) {
  if (MeshChosen)
    return Mesh != nullptr;
  MeshChosen = true;
  if (ConfigMesh) {
    const Symbol *S = evalRef(*ConfigMesh, SymKind::Mesh);
    Mesh = S ? S->Mesh : nullptr;
  } else if (MeshNames.size() == 1) {
    const Symbol *S = lookup(MeshNames.front());
    Mesh = S && !S->Poisoned ? S->Mesh : nullptr;
  } else if (MeshNames.empty()) {
    if (P.Meshes.empty() && At.Start.isValid())
      Diags.report(At, diag::NoMesh);
  } else if (At.Start.isValid()) {
    Diags.report(At, diag::AmbiguousMesh, llvm::join(MeshNames, ", "));
  }
  if (!Mesh)
    return false;
  llvm::SourceMgr &SM = Diags.sourceMgr();
  Info->SourceName =
      SM.getMemoryBuffer(P.Files.back()->BufferId)->getBufferIdentifier().str();
  for (const MeshAxis &A : Mesh->Axes)
    Info->Names.Axes.push_back(A.Name);
  // `loc(...)` names a file without its folders.
  Info->Files.assign(SM.getNumBuffers() + 1, "");
  for (unsigned B = 1; B <= SM.getNumBuffers(); ++B)
    Info->Files[B] =
        llvm::sys::path::filename(SM.getMemoryBuffer(B)->getBufferIdentifier())
            .str();
  P.IR = std::make_unique<Module>(Info, *Mesh, Config, Module::Stage::Checked);
  IR = P.IR.get();
  Builder = std::make_unique<OpBuilder>(*IR, IR->body());
  return true;
}
