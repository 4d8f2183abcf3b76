//===- SemaDecls.cpp - Chips, clusters, meshes, dims, lets, config --------===//
//
// Phase one of checking: everything that is not a tensor or a statement. The
// property schemas come from Properties.def; a chip's figures are stored in
// SI base units in a ChipSpec, a cluster's in a ClusterSpec.
//
//===----------------------------------------------------------------------===//
#include "frontend/Sema.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"

using namespace shardc;

namespace {

/// Limits that keep placement and numbering bounded (docs/limits.md). A
/// mesh's axis count is bounded by MaxMeshAxes (ir/Hardware.h): axis sets
/// are 64-bit masks.
constexpr unsigned MaxLevels = 16;
constexpr int64_t MaxMeshChips = int64_t(1) << 22;

} // namespace

/// Checks a block's properties into \p Out. With \p Block (the block's
/// name), a missing required property is reported too, at the name, but
/// only when the block had no other error, so a misspelt `hbm_bw` is not
/// also reported as missing.
bool Sema::checkProps(const std::vector<Property> &Ps, PropOwner O,
                      llvm::StringRef What, PropertySet &Out,
                      const Ident *Block, llvm::StringRef Skip) {
  bool Ok = true;
  llvm::StringMap<llvm::SMRange> Seen;
  for (const Property &Prop : Ps) {
    const std::string &Name = Prop.Name.Name;
    if (Name == Skip)
      continue;
    // A search's forms (`in SET`, `= ?`, `<= N`; only `train` and
    // `search` parse them) and the train knobs a `search` block lists are
    // checked by searchForms.
    if (Prop.Form != PropForm::Assign ||
        (O == PropOwner::Search &&
         (findSchema(PropOwner::Train, Name) || Name == "microbatch_size")))
      continue;
    const PropSchema *S = findSchema(O, Name);
    if (!S) {
      if (auto Best = closestNameOrAbbreviation(Name, schemaNames(O)))
        Diags.report(Prop.Name.Range, diag::UnknownPropertySuggest, Name, What,
                     *Best);
      else {
        // Nothing is close: say what the block does take.
        Diags.report(Prop.Name.Range, diag::UnknownProperty, Name, What);
        Diags.report(Prop.Name.Range, diag::KnownProperties, What,
                     llvm::join(schemaSummary(O), ", "));
      }
      Ok = false;
      continue;
    }
    std::optional<DType> Member;
    if (S->Family) {
      llvm::StringRef Suffix = llvm::StringRef(Name).split('.').second;
      Member = parseDType(Suffix);
      if (!Member) {
        Diags.report(Prop.Name.Range, diag::UnknownDType, Suffix.str());
        Ok = false;
        continue;
      }
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
    if (Member)
      Out.setMember(S->Id, *Member, *V);
    else
      Out.set(S->Id, *V);
  }
  if (Ok && Block)
    if (std::optional<std::string> Missing = firstMissing(O, Out)) {
      Diags.report(Block->Range, diag::MissingProperty, What, Block->Name,
                   *Missing);
      Ok = false;
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
  else if (auto *T = llvm::dyn_cast<TrainDecl>(&D))
    train(*T);
  else if (auto *S = llvm::dyn_cast<SearchDecl>(&D))
    searchBlock(*S);
  else if (auto *Sv = llvm::dyn_cast<ServeDecl>(&D))
    serveBlock(*Sv);
}

/// The chip or cluster a derived preset starts from (LANGUAGE.md §10), or
/// null (reported) when \p Base names none.
const Symbol *Sema::presetBase(const Ident &Base, SymKind Want) {
  const Symbol *S = lookup(Base.Name);
  if (!S) {
    reportUndefined(Base, symKindName(Want), {Want});
    return nullptr;
  }
  if (S->Kind != Want) {
    Diags.report(Base.Range, diag::WrongKindOfName, Base.Name,
                 symKindName(S->Kind), symKindName(Want));
    return nullptr;
  }
  return S->Poisoned ? nullptr : S;
}

void Sema::chip(const ChipDecl &D) {
  PropertySet Props;
  // A derived chip has every required property from its base.
  bool Derived = !D.Base.Name.empty();
  bool Ok = checkProps(D.Props, PropOwner::Chip, "chip", Props,
                       Derived ? nullptr : &D.Name);
  ChipSpec &C = Chips.emplace_back();
  if (Derived) {
    const Symbol *B = presetBase(D.Base, SymKind::Chip);
    Ok &= B != nullptr;
    if (B)
      C = *B->Chip;
  }
  C.Name = D.Name.Name;
  for (unsigned T = 0; T < NumDTypes; ++T) {
    if (const auto &V = Props.member(PropId::Chip_flops, DType(T)))
      C.Flops[T] = V->Number;
    if (const auto &V = Props.member(PropId::Chip_vector_flops, DType(T)))
      C.VectorFlops[T] = V->Number;
    if (const auto &V =
            Props.member(PropId::Chip_matmul_efficiency_for, DType(T)))
      C.MatmulEfficiencyFor[T] = V->Number;
  }
  C.HbmBytes = Props.number(PropId::Chip_hbm, C.HbmBytes);
  C.HbmBw = Props.number(PropId::Chip_hbm_bw, C.HbmBw);
  C.MatmulEfficiency =
      Props.number(PropId::Chip_matmul_efficiency, C.MatmulEfficiency);
  C.HbmEfficiency = Props.number(PropId::Chip_hbm_efficiency, C.HbmEfficiency);
  auto Optional = [&](PropId Id, std::optional<double> &Out) {
    if (Props.has(Id))
      Out = Props.number(Id, 0);
  };
  Optional(PropId::Chip_elementwise_efficiency, C.ElementwiseEfficiency);
  Optional(PropId::Chip_attention_efficiency, C.AttentionEfficiency);
  Optional(PropId::Chip_attention_backward_efficiency,
           C.AttentionBackwardEfficiency);
  Optional(PropId::Chip_matmul_hbm_efficiency, C.MatmulHbmEfficiency);
  Optional(PropId::Chip_matmul_latency, C.MatmulLatency);
  C.KernelLatency = Props.number(PropId::Chip_kernel_latency, C.KernelLatency);
  if (Props.has(PropId::Chip_sms))
    C.Sms = Props.get(PropId::Chip_sms).Whole;
  Ok &= chipGemm(D, Props, C);
  Symbol S{SymKind::Chip, D.Name.Range, !Ok};
  S.Chip = &C;
  declare(D.Name, S);
}

/// A tile's `dtype`: one of the dtypes (did-you-mean on a misspelling).
std::optional<DType> Sema::tileDType(const TileAST &T, const PropertySet &TP) {
  std::vector<std::string> Names;
  for (unsigned I = 0; I < NumDTypes; ++I)
    Names.push_back(dtypeName(DType(I)).str());
  for (const Property &P : T.Props)
    if (P.Name.Name == "dtype")
      if (auto I = choose(P, TP.get(PropId::Tile_dtype), Names))
        return DType(*I);
  return std::nullopt;
}

/// A derived chip that writes any tile replaces its base's list (a fitted
/// set of classes is one measurement: mixing two fits would price GEMMs by
/// neither); one that writes none keeps its base's.
bool Sema::chipGemm(const ChipDecl &D, const PropertySet &Props, ChipSpec &C) {
  bool Ok = true;
  if (!D.Tiles.empty())
    C.Tiles.clear();
  llvm::StringMap<const TileAST *> First;
  for (const TileAST &T : D.Tiles) {
    if (T.Keyword.Name != "tile") {
      Diags.report(T.Keyword.Range, diag::UnknownChipBlock, T.Keyword.Name);
      Ok = false;
      continue;
    }
    if (auto [It, New] = First.try_emplace(T.Name.Name, &T); !New) {
      Diags.report(T.Name.Range, diag::DuplicateTile, T.Name.Name, D.Name.Name);
      Diags.report(It->second->Name.Range, diag::PreviousDeclaration,
                   T.Name.Name);
      Ok = false;
      continue;
    }
    PropertySet TP;
    if (!checkProps(T.Props, PropOwner::Tile, "tile", TP, &T.Name)) {
      Ok = false;
      continue;
    }
    TileClass &Tc = C.Tiles.emplace_back();
    Tc.Name = T.Name.Name;
    Tc.M = TP.get(PropId::Tile_m).Whole;
    Tc.N = TP.get(PropId::Tile_n).Whole;
    Tc.Ctas = TP.get(PropId::Tile_ctas).Whole;
    Tc.Efficiency = TP.number(PropId::Tile_efficiency, 1.0);
    if (TP.has(PropId::Tile_dtype) && !(Tc.Elt = tileDType(T, TP)))
      Ok = false;
  }
  C.WaveOverhead = Props.number(PropId::Chip_wave_overhead, C.WaveOverhead);
  for (unsigned T = 0; T < NumDTypes; ++T)
    if (const auto &V = Props.member(PropId::Chip_wave_overhead_for, DType(T)))
      C.WaveOverheadFor[T] = V->Number;
  C.EpilogueEfficiency =
      Props.number(PropId::Chip_epilogue_efficiency, C.EpilogueEfficiency);
  if (!Ok)
    return false;
  // What only the tiles use is an error without them: it would price
  // nothing, silently.
  for (PropId P :
       {PropId::Chip_wave_overhead, PropId::Chip_epilogue_efficiency})
    if (Props.has(P) && C.Tiles.empty()) {
      const Property *Written = nullptr;
      for (const Property &Prop : D.Props)
        if (const PropSchema *S = findSchema(PropOwner::Chip, Prop.Name.Name);
            S && S->Id == P)
          Written = &Prop;
      Diags.report(Written->Name.Range, diag::GemmPropertyWithoutTiles,
                   P == PropId::Chip_wave_overhead ? "wave_overhead"
                                                   : "epilogue_efficiency",
                   D.Name.Name);
      Ok = false;
    }
  if (!C.Tiles.empty() && C.Sms == 0) {
    Diags.report(D.Tiles.empty() ? D.Name.Range : D.Tiles.front().Range,
                 diag::TilesWithoutSms, D.Name.Name);
    Ok = false;
  }
  return Ok;
}

bool Sema::level(const LevelAST &L, LevelSpec &Out, bool Derived) {
  PropertySet Props;
  bool Ok = checkProps(L.Props, PropOwner::Level, "level", Props,
                       Derived ? nullptr : &L.Name);
  Out.Name = L.Name.Name;
  if (Props.has(PropId::Level_size))
    Out.Size = Props.get(PropId::Level_size).Whole;
  Out.UplinkBw = Props.number(PropId::Level_uplink_bw, Out.UplinkBw);
  Out.Bw = Props.number(PropId::Level_bw, Out.Bw);
  Out.InNetworkReduction =
      Props.flag(PropId::Level_in_network_reduction, Out.InNetworkReduction);
  LevelCalibration &Cal = Out.Calibration;
  Cal.Latency = Props.number(PropId::Level_latency, Cal.Latency);
  Cal.Efficiency = Props.number(PropId::Level_efficiency, Cal.Efficiency);
  Cal.ReductionEfficiency =
      Props.number(PropId::Level_reduction_efficiency, Cal.ReductionEfficiency);
  Cal.SmallEfficiency =
      Props.number(PropId::Level_small_efficiency, Cal.SmallEfficiency);
  if (Props.has(PropId::Level_bulk_latency))
    Cal.BulkLatency = Props.number(PropId::Level_bulk_latency, 0);
  Cal.CommSmShare = Props.number(PropId::Level_comm_sm_share, Cal.CommSmShare);
  return Ok;
}

/// A level written twice in one declaration is an error at the second, with
/// a note at the first, as a property set twice is: a base's level would
/// silently take the last, and a new cluster would get two levels of one
/// name ("node,node").
bool Sema::levelsDistinct(const ClusterDecl &D) {
  bool Ok = true;
  llvm::StringMap<const LevelAST *> First;
  for (const LevelAST &L : D.Levels) {
    auto [It, New] = First.try_emplace(L.Name.Name, &L);
    if (New)
      continue;
    Diags.report(L.Name.Range, diag::DuplicateLevel, L.Name.Name, D.Name.Name);
    Diags.report(It->second->Name.Range, diag::PreviousDeclaration,
                 L.Name.Name);
    Ok = false;
  }
  return Ok;
}

void Sema::cluster(const ClusterDecl &D) {
  PropertySet Props;
  bool Derived = !D.Base.Name.empty();
  bool Ok = checkProps(D.Props, PropOwner::Cluster, "cluster", Props,
                       Derived ? nullptr : &D.Name);
  auto Shared = std::make_shared<ClusterSpec>();
  ClusterSpec &C = *Shared;
  if (Derived) {
    const Symbol *B = presetBase(D.Base, SymKind::Cluster);
    Ok &= B != nullptr;
    if (B)
      C = *B->Cluster;
  }
  C.Name = D.Name.Name;
  if (Props.has(PropId::Cluster_chip))
    C.Chip = *Props.get(PropId::Cluster_chip).Sym->Chip;
  if (!Derived && D.Levels.empty()) {
    Diags.report(D.Name.Range, diag::ClusterNoLevels, C.Name);
    Ok = false;
  }
  if (D.Levels.size() > MaxLevels) {
    Diags.report(D.Levels[MaxLevels].Range, diag::TooManyLevels,
                 unsigned(D.Levels.size()), MaxLevels);
    Ok = false;
  }
  Ok &= levelsDistinct(D);
  // Every level is checked even after an error elsewhere in the cluster:
  // each level's mistakes are its own, so none hides another's. A derived
  // cluster's levels override its base's, by name.
  int64_t Chips = 1;
  for (const LevelAST &L : D.Levels) {
    if (Diags.shouldStop())
      break;
    if (!Derived) {
      Ok &= level(L, C.Levels.emplace_back(), /*Derived=*/false);
      if (Ok && __builtin_mul_overflow(Chips, C.Levels.back().Size, &Chips)) {
        Diags.report(L.Range, diag::IntegerOverflow);
        Ok = false;
      }
      continue;
    }
    // A base that failed has no levels to name: its error is enough.
    if (!Ok && C.Levels.empty())
      break;
    auto It = llvm::find_if(
        C.Levels, [&](const LevelSpec &S) { return S.Name == L.Name.Name; });
    if (It == C.Levels.end()) {
      std::string Names;
      for (const LevelSpec &S : C.Levels)
        Names += (Names.empty() ? "" : ", ") + S.Name;
      Diags.report(L.Name.Range, diag::UnknownBaseLevel, D.Base.Name,
                   L.Name.Name, Names);
      Ok = false;
      continue;
    }
    Ok &= level(L, *It, /*Derived=*/true);
  }
  if (Derived)
    for (const LevelSpec &L : C.Levels)
      if (Ok && __builtin_mul_overflow(Chips, L.Size, &Chips)) {
        Diags.report(D.Range, diag::IntegerOverflow);
        Ok = false;
      }
  // reduction_efficiency prices in-network AllReduces only
  // (docs/cost-model.md §3):
  // said at each level this declaration writes (a base's own levels were
  // checked where it was declared).
  // Above the node a level's traffic is reduced in-network when it or a
  // level above it reduces; the node's only when it does itself.
  bool ReducedAbove = false;
  for (size_t I = C.Levels.size(); Ok && I-- > 0;) {
    ReducedAbove |= C.Levels[I].InNetworkReduction;
    bool Reduced = I == 0 ? C.Levels[0].InNetworkReduction : ReducedAbove;
    if (C.Levels[I].Calibration.ReductionEfficiency == 0 || Reduced)
      continue;
    for (const LevelAST &L : D.Levels)
      if (L.Name.Name == C.Levels[I].Name)
        Diags.report(L.Name.Range, diag::ReductionEfficiencyUnused,
                     C.Levels[I].Name);
  }
  // NCCL's two protocols (docs/cost-model.md §3): both numbers or
  // neither, checked at each level this declaration writes. A collective
  // picks one protocol over all the levels it crosses, so a level's
  // dominated line is dead only when no other level has two.
  unsigned TwoProtocolLevels = llvm::count_if(C.Levels, [](const LevelSpec &L) {
    return L.Calibration.twoProtocols();
  });
  for (size_t I = 0; Ok && I < C.Levels.size(); ++I) {
    const LevelSpec &Spec = C.Levels[I];
    const LevelAST *Written = nullptr;
    for (const LevelAST &L : D.Levels)
      if (L.Name.Name == Spec.Name)
        Written = &L;
    if (!Written)
      continue;
    const LevelCalibration &Cal = Spec.Calibration;
    bool Small = Cal.SmallEfficiency > 0, Bulk = Cal.BulkLatency.has_value();
    if (Small != Bulk) {
      Diags.report(Written->Name.Range, diag::ProtocolHalfGiven, Spec.Name,
                   Small ? "small_efficiency" : "bulk_latency",
                   Small ? "bulk_latency" : "small_efficiency");
      Ok = false;
      continue;
    }
    if (!Small || TwoProtocolLevels > 1)
      continue;
    // One line below the other at every size: one protocol never wins.
    double BulkLat = *Cal.BulkLatency;
    if (Cal.SmallEfficiency >= Cal.Efficiency && Cal.Latency <= BulkLat)
      Diags.report(Written->Name.Range, diag::ProtocolNeverFaster, Spec.Name,
                   "bandwidth",
                   "its small_efficiency is not below its efficiency, nor "
                   "its latency above its bulk_latency");
    else if (Cal.SmallEfficiency <= Cal.Efficiency && Cal.Latency >= BulkLat)
      Diags.report(Written->Name.Range, diag::ProtocolNeverFaster, Spec.Name,
                   "small-message",
                   "its latency is not below its bulk_latency, nor its "
                   "small_efficiency above its efficiency");
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
    // A searched size is checked at 1 (the axis unused); the search
    // rebinds it.
    std::optional<int64_t> N =
        A.searched() ? 1 : evalWhole(*A.Size, "mesh axis size", 1);
    if (!N || __builtin_mul_overflow(Chips, *N, &Chips)) {
      if (N)
        Diags.report(A.Size->Range, diag::IntegerOverflow);
      Ok = false;
      break;
    }
    M.Axes.push_back({A.Name.Name, *N});
  }
  // Sizes given by --mesh are reported where they were given.
  llvm::SMRange SizesAt = D.SizesAt.isValid() ? D.SizesAt : D.Range;
  if (Ok && Chips > MaxMeshChips) {
    Diags.report(SizesAt, diag::TooManyChips, "mesh '" + M.Name + "'",
                 std::to_string(Chips), MaxMeshChips);
    Ok = false;
  }
  if (Ok && ClusterOk && Chips > M.Cluster->numChips()) {
    Diags.report(SizesAt, diag::MeshTooLarge, M.Name, Chips, M.Cluster->Name,
                 M.Cluster->numChips());
    if (D.SizesAt.isValid())
      Diags.report(D.Range, diag::MeshDeclaredHere, M.Name);
    Ok = false;
  }
  MeshDeclAt.try_emplace(M.Name, D.Range.Start);
  if (Ok)
    searchedAxes(D, M);
  Symbol S{SymKind::Mesh, D.Name.Range, !(Ok && ClusterOk)};
  S.Mesh = &M;
  if (declare(D.Name, S))
    MeshNames.push_back(M.Name);
}

void Sema::dims(const DimDecl &D) {
  for (const Binding &B : D.Bindings) {
    if (HasServe && isPhaseName(B.Name.Name))
      Diags.report(B.Name.Range, diag::PhaseNameTaken, B.Name.Name, "dim");
    // `dim B = batch;`: sized per serving phase (bindPhaseDims). Without
    // `serve`, a dim or let of that name is read as before v0.3.
    bool Phase = B.Value->Kind == ExprKind::Name &&
                 isPhaseName(B.Value->Text) &&
                 (HasServe || !lookup(B.Value->Text));
    std::optional<int64_t> N =
        Phase ? std::optional<int64_t>(1) : evalWhole(*B.Value, "dim size", 1);
    Symbol S{SymKind::Dim, B.Name.Range, !N};
    S.Value = Quantity::ofInt(N.value_or(1));
    S.Dim = Info->Names.Dims.size();
    Info->Names.Dims.push_back(B.Name.Name);
    DimDecls.resize(Info->Names.Dims.size());
    DimDecls[S.Dim] = B.Name.Range;
    // A dim whose name was taken is reported once; its uses stay quiet.
    if (!declare(B.Name, S))
      RejectedDims.insert(B.Name.Name);
    else if (Phase)
      phaseDim(B, S.Dim);
    else if (!B.PerWord.Name.empty())
      perStep(B, S.Dim, N);
  }
}

void Sema::lets(const std::vector<Binding> &Bs) {
  for (const Binding &B : Bs) {
    if (!B.PerWord.Name.empty())
      Diags.report(B.PerWord.Range, diag::PerStepNotDim, B.Name.Name);
    if (HasServe && isPhaseName(B.Name.Name))
      Diags.report(B.Name.Range, diag::PhaseNameTaken, B.Name.Name, "let");
    std::optional<Quantity> Q = eval(*B.Value);
    Symbol S{SymKind::Let, B.Name.Range, !Q};
    S.Value = Q.value_or(Quantity{});
    declare(B.Name, S);
  }
}

void Sema::config(const ConfigDecl &D) {
  PropertySet Props;
  checkProps(D.Props, PropOwner::Config, "config", Props, /*Block=*/nullptr,
             /*Skip=*/"mesh");
  // Blocks merge, but a setting written in two of them (in this file or an
  // import) is an error, as twice in one block is: which one wins would be
  // silent. (A repeat within this block was reported by checkProps.)
  llvm::StringSet<> InThisBlock;
  for (const Property &Prop : D.Props) {
    const std::string &Name = Prop.Name.Name;
    if (Name == "mesh" || !findSchema(PropOwner::Config, Name) ||
        !InThisBlock.insert(Name).second)
      continue;
    auto [First, New] = ConfigSet.try_emplace(Name, Prop.Name.Range);
    if (!New) {
      Diags.report(Prop.Name.Range, diag::DuplicateProperty, Name);
      Diags.report(First->second, diag::FirstSetHere, Name);
    }
  }
  Config.Overlap = Props.flag(PropId::Config_overlap, Config.Overlap);
  Config.AllowPadding =
      Props.flag(PropId::Config_allow_padding, Config.AllowPadding);
  if (Props.has(PropId::Config_fuse))
    for (const Property &Prop : D.Props)
      if (Prop.Name.Name == "fuse")
        fuse(Prop, Props.get(PropId::Config_fuse));
  // `mesh = M` may name a mesh declared further down, so it is resolved when
  // the first tensor needs it.
  for (const Property &Prop : D.Props) {
    if (Prop.Name.Name != "mesh" || Prop.Form != PropForm::Assign)
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
    for (const std::string &Name : MeshNames)
      if (const Symbol *S = lookup(Name))
        Diags.report(S->Range, diag::MeshDeclaredHere, Name);
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
