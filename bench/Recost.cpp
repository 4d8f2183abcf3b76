//===- Recost.cpp - Re-costs per second of one checked program ------------===//
//
// shardc-bench-recost FILE STDLIB_DIR [ROUNDS]: checks FILE once, then
// re-costs its checked module (compileForMesh: bind-mesh, check-mesh, plan
// and lower, place, estimate; with a train block the whole step) on every
// mesh of a sweep and prints the rate, counting the meshes refused (a
// pipeline they do not split, a step over HBM) as a search would. The sweep
// is every shape of the file's mesh axes whose sizes are powers of two that
// the program divides evenly and that fit the cluster, each on the file's
// cluster and on variants of it whose above-node uplinks are 100 to 900
// GB/s, so a search over shapes and networks is what is timed. Run by hand
// (bench/recost.sh), never by CI.
//
//===----------------------------------------------------------------------===//
#include "diag/Diagnostic.h"
#include "frontend/Compiler.h"
#include "passes/Pipeline.h"
#include "llvm/Support/raw_ostream.h"
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>

using namespace shardc;

namespace {

/// Every mesh of the sweep: shapes x cluster variants.
std::vector<MeshSpec> sweep(const Module &M) {
  const MeshSpec &Base = M.mesh();
  std::vector<std::shared_ptr<const ClusterSpec>> Clusters = {Base.Cluster};
  for (double GBs = 100; GBs <= 900; GBs += 50) {
    auto C = std::make_shared<ClusterSpec>(*Base.Cluster);
    for (size_t L = 1; L < C->Levels.size(); ++L)
      C->Levels[L].UplinkBw = GBs * 1e9;
    Clusters.push_back(C);
  }
  std::vector<MeshSpec> Out;
  MeshSpec Shape = Base;
  std::function<void(size_t)> Axis = [&](size_t I) {
    if (I == Shape.Axes.size()) {
      if (Shape.numChips() > Base.Cluster->numChips())
        return;
      for (const auto &C : Clusters) {
        Shape.Cluster = C;
        Out.push_back(Shape);
      }
      return;
    }
    for (int64_t S = 1; S <= Base.Cluster->numChips(); S *= 2) {
      Shape.Axes[I].Size = S;
      Axis(I + 1);
    }
  };
  Axis(0);
  return Out;
}

/// The meshes \p M's program divides evenly on (allow_padding aside).
std::vector<MeshSpec> fitting(const Module &M, std::vector<MeshSpec> All) {
  std::vector<MeshSpec> Out;
  for (MeshSpec &Mesh : All) {
    bool Even = true;
    walk(M.body(), [&](const Op &O) {
      if (O.result() && !O.result()->type().isEven(Mesh))
        Even = false;
    });
    if (Even || M.config().AllowPadding)
      Out.push_back(std::move(Mesh));
  }
  return Out;
}

} // namespace

int main(int Argc, char **Argv) {
  if (Argc < 3) {
    std::fprintf(stderr, "usage: %s FILE STDLIB_DIR [ROUNDS]\n", Argv[0]);
    return 2;
  }
  unsigned Rounds = Argc > 3 ? unsigned(std::atoi(Argv[3])) : 10;
  llvm::SourceMgr SM;
  auto Buffer = readSourceFile(Argv[1], 16 << 20);
  if (!Buffer) {
    std::fprintf(stderr, "cannot read %s\n", Argv[1]);
    return 2;
  }
  unsigned Id = SM.AddNewSourceBuffer(std::move(*Buffer), llvm::SMLoc());
  DiagnosticEngine Diags(SM);
  CompileOptions Opts;
  Opts.StdlibDir = Argv[2];
  Program P;
  if (!loadProgram(Id, Diags, Opts, P) || !checkProgram(Diags, P) || !P.IR)
    return 1;
  std::vector<MeshSpec> Meshes = fitting(*P.IR, sweep(*P.IR));
  double Sum = 0; // keeps the work observable
  size_t Refused = 0;
  auto Start = std::chrono::steady_clock::now();
  for (unsigned R = 0; R < Rounds; ++R)
    for (const MeshSpec &M : Meshes) {
      // A mesh the program does not fit (a pipeline it does not split, a
      // step over HBM) is a refused candidate, as a search counts it.
      DiagnosticEngine Quiet(SM);
      Quiet.setHandler([](const Diagnostic &) {});
      auto C = compileForMesh(*P.IR, M, Quiet);
      if (!C) {
        llvm::consumeError(C.takeError());
        ++Refused;
        continue;
      }
      if (Quiet.hasErrors())
        ++Refused;
      Sum += (*C)->Tables.Totals->Time;
    }
  double Secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  double N = double(Rounds) * double(Meshes.size());
  std::printf("%zu meshes x %u rounds: %.0f re-costs in %.3f s = %.0f "
              "re-costs/s (%.1f us each; %zu refused; checksum %.6g)\n",
              Meshes.size(), Rounds, N, Secs, N / Secs, 1e6 * Secs / N, Refused,
              Sum);
  return 0;
}
