//===- Calibrate.cpp - The `shardc calibrate` subcommand ------------------===//
//
// Option parsing and assembly only: find the base preset through the
// frontend (a probe program that imports measured.shard), read each input
// into one SourceMgr so that every problem is a located diagnostic, hand the
// inputs to the calibrate/ library, print the preset it derives.
//
//===----------------------------------------------------------------------===//
#include "Calibrate.h"
#include "CalibrateFor.h"
#include "calibrate/GemmSweep.h"
#include "calibrate/Input.h"
#include "calibrate/KernelSweep.h"
#include "calibrate/NcclCalibration.h"
#include "calibrate/NcclTests.h"
#include "calibrate/Preset.h"
#include "diag/Diagnostic.h"
#include "frontend/Compiler.h"
#include "ir/IR.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include <cmath>
#include <memory>
#include <optional>

using namespace shardc;
using namespace shardc::calibrate;

namespace {

constexpr const char *Usage =
    "usage: shardc calibrate --base PRESET [--cluster NAME] [--chip NAME]\n"
    "                        [--gpus N] [--link-bw BYTES_PER_S] [--dtype T]\n"
    "                        [--source S]... [--min-time SECONDS]\n"
    "                        [--ceiling E] [--for FILE] INPUT...\n"
    "\n"
    "Reads component benchmark outputs and prints a preset derived from "
    "PRESET\n(a chip or cluster of nvidia.shard or measured.shard) with "
    "every fitted\nconstant, its source and its 5-fold cross-validated error "
    "(docs/calibrate.md).\n"
    "  --base PRESET      the preset the printed one derives from (required)\n"
    "  --cluster NAME     the derived cluster's name (PRESET_calibrated)\n"
    "  --chip NAME        the derived chip's name (its base's _calibrated)\n"
    "  --gpus N           GPUs of an nccl-tests run that lists no ranks\n"
    "  --link-bw B        one GPU's link into the node, bytes/s (the base's)\n"
    "  --dtype T          fit the GEMM sweep's rows of this dtype\n"
    "  --source S         fit only GEMM rows whose source column is S\n"
    "  --min-time S       fit only GEMMs of S seconds or more\n"
    "  --ceiling E        matmul_efficiency (default: the best GEMM measured)\n"
    "  --for FILE         warn where the inputs miss what FILE runs\n"
    "Inputs: ";

struct CalibrateOptions {
  std::vector<std::string> Inputs;
  std::string Base, ChipName, ClusterName;
  std::string For; ///< --for FILE
  unsigned Gpus = 0;
  double LinkBw = 0;
  GemmSelection Gemm;
};

llvm::raw_ostream &usageError() {
  return llvm::WithColor::error(llvm::errs(), "shardc");
}

/// A name a probe program may spell: letters, digits, '_'.
bool isIdentifier(llvm::StringRef S) {
  return !S.empty() && !llvm::isDigit(S.front()) &&
         llvm::all_of(S, [](char C) { return llvm::isAlnum(C) || C == '_'; });
}

/// Parses \p Args; nothing after reporting a usage error (or printing
/// --help, with \p Help set).
std::optional<CalibrateOptions> parseArgs(llvm::ArrayRef<const char *> Args,
                                          bool &Help) {
  CalibrateOptions O;
  for (size_t I = 0; I < Args.size(); ++I) {
    llvm::StringRef A = Args[I], Value;
    if (A == "-h" || A == "--help") {
      Help = true;
      return std::nullopt;
    }
    if (!A.startswith("-") || A == "-") {
      O.Inputs.push_back(A.str());
      continue;
    }
    auto [Name, Inline] = A.split('=');
    if (Inline.data() != nullptr)
      Value = Inline;
    else if (I + 1 < Args.size())
      Value = Args[++I];
    else {
      usageError() << "calibrate: " << Name << " needs a value\n";
      return std::nullopt;
    }
    bool Ok = true;
    if (Name == "--base")
      O.Base = Value.str(), Ok = isIdentifier(Value);
    else if (Name == "--chip")
      O.ChipName = Value.str(), Ok = isIdentifier(Value);
    else if (Name == "--cluster")
      O.ClusterName = Value.str(), Ok = isIdentifier(Value);
    else if (Name == "--gpus")
      Ok = !Value.getAsInteger(10, O.Gpus) && O.Gpus > 0;
    else if (Name == "--link-bw")
      Ok = !Value.getAsDouble(O.LinkBw) && std::isfinite(O.LinkBw) &&
           O.LinkBw > 0;
    else if (Name == "--for")
      O.For = Value.str();
    else if (Name == "--dtype")
      O.Gemm.DType = Value.str(), Ok = parseDType(Value).has_value();
    else if (Name == "--source")
      O.Gemm.Sources.push_back(Value.str());
    else if (Name == "--min-time")
      Ok = !Value.getAsDouble(O.Gemm.MinSeconds) &&
           std::isfinite(O.Gemm.MinSeconds) && O.Gemm.MinSeconds >= 0;
    else if (Name == "--ceiling") {
      double E = 0;
      Ok = !Value.getAsDouble(E) && E > 0 && E <= 1;
      O.Gemm.Ceiling = E;
    } else {
      usageError() << "calibrate: unknown option '" << Name
                   << "' (options: --base, --cluster, --chip, --gpus, "
                      "--link-bw, --dtype, --source, --min-time, --ceiling, "
                      "--for, --help)\n";
      return std::nullopt;
    }
    if (!Ok) {
      usageError() << "calibrate: invalid value '" << Value << "' for " << Name
                   << "\n";
      return std::nullopt;
    }
  }
  if (O.Inputs.empty()) {
    usageError() << "calibrate: no input file (give nccl-tests outputs or "
                    "sweep CSVs)\n";
    return std::nullopt;
  }
  if (O.Base.empty()) {
    usageError() << "calibrate: --base PRESET is required: the stdlib chip "
                    "or cluster the printed preset derives from (e.g. "
                    "--base DGX_A100_Node)\n";
    return std::nullopt;
  }
  return O;
}

/// The base preset, as the frontend checks it.
struct Base {
  bool IsCluster = false;
  ClusterSpec Cluster; ///< for a chip: a stdlib cluster holding it
};

/// Compiles \p Text (a probe program) quietly; its mesh's cluster.
std::optional<ClusterSpec> probe(const std::string &Text,
                                 const std::string &Stdlib) {
  llvm::SourceMgr SM;
  unsigned Id = SM.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(Text, "<calibrate base>"),
      llvm::SMLoc());
  DiagnosticEngine Diags(SM);
  Diags.setHandler([](const Diagnostic &) {});
  CompileOptions Opts;
  Opts.StdlibDir = Stdlib;
  Program P;
  if (!loadProgram(Id, Diags, Opts, P) || !checkProgram(Diags, P) ||
      Diags.hasErrors() || !P.IR)
    return std::nullopt;
  return *P.IR->mesh().Cluster;
}

/// The first error compiling \p Text, or nothing when it compiles.
std::optional<std::string> firstError(const std::string &Text,
                                      const std::string &Stdlib) {
  llvm::SourceMgr SM;
  unsigned Id = SM.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(Text, "<derived preset>"),
      llvm::SMLoc());
  DiagnosticEngine Diags(SM);
  std::optional<std::string> First;
  Diags.setHandler([&](const Diagnostic &D) {
    if (D.Sev == Severity::Error && !First)
      First = D.Message;
  });
  CompileOptions Opts;
  Opts.StdlibDir = Stdlib;
  Program P;
  if (!loadProgram(Id, Diags, Opts, P) || !checkProgram(Diags, P) ||
      Diags.hasErrors() || !P.IR)
    return First ? First : std::optional<std::string>("it does not compile");
  return std::nullopt;
}

/// The printed preset must be one shardc accepts: a measurement faster than
/// the base's peak (a sweep of another chip) gives an efficiency above 1,
/// and a time of 1e300 s a latency past the language's range.
bool checkPreset(const DerivedPreset &P, const std::string &Text,
                 const std::string &Stdlib) {
  std::string Probe = Text + "\n";
  if (P.Cluster)
    Probe +=
        "mesh CalibrateCheck = " + P.Cluster->Name + "[calibrate_probe: 1];\n";
  else
    Probe += "cluster CalibrateCheckCluster : DGX_A100_Node { chip = " +
             P.Chip->Name +
             "; }\nmesh CalibrateCheck = "
             "CalibrateCheckCluster[calibrate_probe: 1];\n";
  std::optional<std::string> Err = firstError(Probe, Stdlib);
  if (!Err)
    return true;
  llvm::WithColor::error(llvm::errs(), "shardc")
      << "calibrate: the derived preset is not one shardc accepts (" << *Err
      << "): is --base the chip or cluster that ran these benchmarks?\n";
  return false;
}

std::optional<Base> resolveBase(llvm::StringRef Name,
                                const std::string &Stdlib) {
  std::string Import = "import \"measured.shard\";\n";
  if (auto C = probe(Import + "mesh CalibrateProbe = " + Name.str() +
                         "[calibrate_probe: 1];\n",
                     Stdlib))
    return Base{true, *C};
  if (auto C = probe(Import +
                         "cluster CalibrateProbeCluster : DGX_A100_Node "
                         "{ chip = " +
                         Name.str() +
                         "; }\nmesh CalibrateProbe = "
                         "CalibrateProbeCluster[calibrate_probe: 1];\n",
                     Stdlib))
    return Base{false, *C};
  return std::nullopt;
}

/// The node level of \p B as the runs calibrate it; nothing after a usage
/// error.
std::optional<LevelTarget> nodeLevel(const CalibrateOptions &O, const Base &B) {
  if (!B.IsCluster) {
    usageError() << "calibrate: nccl-tests outputs calibrate a cluster's "
                    "node level: --base must name a cluster, and '"
                 << O.Base << "' is a chip\n";
    return std::nullopt;
  }
  if (B.Cluster.Levels.empty()) {
    usageError() << "calibrate: cluster '" << O.Base << "' has no levels\n";
    return std::nullopt;
  }
  const LevelSpec &L = B.Cluster.Levels.front();
  double W = O.LinkBw > 0 ? O.LinkBw : L.uplink();
  if (!std::isfinite(W)) {
    usageError() << "calibrate: level '" << L.Name << "' of '" << O.Base
                 << "' gives no bandwidth; give --link-bw\n";
    return std::nullopt;
  }
  return LevelTarget{O.Base,
                     L.Name,
                     L.Size,
                     W,
                     L.InNetworkReduction,
                     L.Calibration.twoProtocols()};
}

/// Reads every input into \p Diags's SourceMgr and parses it; false after
/// an I/O error (already reported). Input errors are in \p Diags.
/// What the inputs hold, by kind.
struct Inputs {
  std::vector<NcclRun> Runs;
  std::vector<GemmSweep> Gemms;
  std::vector<KernelSweep> Kernels;
};

bool readInputs(const CalibrateOptions &O, const Base &B,
                DiagnosticEngine &Diags, Inputs &In) {
  for (const std::string &Path : O.Inputs) {
    auto Buf = readSourceFile(Path, ParseLimits().MaxFileBytes);
    if (!Buf) {
      usageError() << "cannot read '" << Path
                   << "': " << Buf.getError().message() << "\n";
      return false;
    }
    unsigned Id =
        Diags.sourceMgr().AddNewSourceBuffer(std::move(*Buf), llvm::SMLoc());
    std::optional<InputKind> Kind = classifyInput(Id, Diags);
    if (!Kind)
      continue;
    switch (*Kind) {
    case InputKind::NcclTests:
      if (auto R = parseNcclTests(Id, Diags, O.Gpus))
        In.Runs.push_back(std::move(*R));
      break;
    case InputKind::GemmSweep:
      if (auto S = parseGemmSweep(Id, Diags))
        In.Gemms.push_back(std::move(*S));
      break;
    case InputKind::ElementwiseSweep:
    case InputKind::AttentionSweep:
      if (auto S = parseKernelSweep(Id, *Kind == InputKind::AttentionSweep,
                                    B.Cluster.Chip, Diags))
        In.Kernels.push_back(std::move(*S));
      break;
    }
  }
  return true;
}

/// The chip the GEMM sweeps derive, into \p P; an exit code.
/// The GEMM constants into \p Block; an exit code.
int deriveGemm(const CalibrateOptions &O, const ChipSpec &Chip,
               llvm::ArrayRef<GemmSweep> Gemms, DiagnosticEngine &Diags,
               PresetBlock &Block) {
  if (Chip.Sms <= 0) {
    usageError() << "calibrate: chip '" << Chip.Name
                 << "' gives no 'sms': the GEMM model counts waves of SMs\n";
    return 2;
  }
  // The dtype fitted: --dtype, else the first row's (a sweep of several
  // is an error in calibrateChip).
  std::string DType = O.Gemm.DType;
  for (const GemmSweep &G : Gemms)
    if (DType.empty() && !G.Rows.empty())
      DType = G.Rows.front().DType;
  if (!DType.empty() && Chip.matmulPeak(*parseDType(DType)) <= 0) {
    usageError() << "calibrate: chip '" << Chip.Name << "' gives no peak for "
                 << DType << "\n";
    return 2;
  }
  std::optional<PresetBlock> C = calibrateChip(Gemms, Chip, O.Gemm, Diags);
  if (!C)
    return 1;
  Block = std::move(*C);
  return 0;
}

int deriveChip(const CalibrateOptions &O, const Base &B, const Inputs &In,
               DiagnosticEngine &Diags, DerivedPreset &P) {
  const ChipSpec &Chip = B.Cluster.Chip;
  PresetBlock Block;
  Block.Base = Chip.Name;
  if (!In.Gemms.empty()) {
    int Code = deriveGemm(O, Chip, In.Gemms, Diags, Block);
    if (Code != 0)
      return Code;
  }
  if (!calibrateKernels(In.Kernels, Block, Diags))
    return 1;
  Block.Name = O.ChipName.empty() ? Chip.Name + "_calibrated" : O.ChipName;
  P.Chip = std::move(Block);
  return 0;
}

} // namespace

int shardc::runCalibrate(llvm::ArrayRef<const char *> Args,
                         const std::string &StdlibDir) {
  bool Help = false;
  std::optional<CalibrateOptions> O = parseArgs(Args, Help);
  if (Help) {
    llvm::outs() << Usage << acceptedFormats() << ".\n";
    return 0;
  }
  if (!O)
    return 2;
  std::optional<Base> B = resolveBase(O->Base, StdlibDir);
  if (!B) {
    usageError() << "calibrate: unknown preset '" << O->Base
                 << "': --base names a chip or cluster of nvidia.shard or "
                    "measured.shard\n";
    return 2;
  }
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  Diags.setShowColors(llvm::errs().has_colors());
  Inputs In;
  if (!readInputs(*O, *B, Diags, In))
    return 2;
  if (Diags.hasErrors())
    return 1;
  DerivedPreset P;
  if (!In.Gemms.empty() || !In.Kernels.empty()) {
    int Code = deriveChip(*O, *B, In, Diags, P);
    if (Code != 0)
      return Code;
  }
  const std::vector<NcclRun> &Runs = In.Runs;
  if (!Runs.empty()) {
    std::optional<LevelTarget> T = nodeLevel(*O, *B);
    if (!T)
      return 2;
    std::optional<PresetBlock> Level = calibrateLevel(Runs, *T, Diags);
    if (!Level)
      return 1;
    Level->Name =
        O->ClusterName.empty() ? O->Base + "_calibrated" : O->ClusterName;
    Level->Base = O->Base;
    P.Cluster = std::move(*Level);
  }
  // A derived chip on a cluster base: the cluster runs it.
  if (P.Chip && B->IsCluster) {
    if (!P.Cluster) {
      P.Cluster.emplace();
      P.Cluster->Name =
          O->ClusterName.empty() ? O->Base + "_calibrated" : O->ClusterName;
      P.Cluster->Base = O->Base;
    }
    P.Cluster->Chip = P.Chip->Name;
  }
  if (!O->For.empty())
    if (int Code = checkCoverage(O->For, StdlibDir, In.Runs, In.Gemms, Diags))
      return Code;
  std::string Text;
  llvm::raw_string_ostream TOS(Text);
  printPreset(P, TOS);
  if ((P.Chip || P.Cluster) && !checkPreset(P, Text, StdlibDir))
    return 1;
  llvm::outs() << Text;
  return Diags.hasErrors() ? 1 : 0;
}
