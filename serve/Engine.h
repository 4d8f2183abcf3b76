//===- Engine.h - The serve engine, private to serve/ ---------*- C++ -*-===//
//
// The class the serve library's files share: the instances (Instances.cpp),
// memory, the largest batch and the constants (Memory.cpp), the engine
// arithmetic that joins them (Serve.cpp) and the book's warnings
// (Warnings.cpp). Included by serve/ only.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_SERVE_ENGINE_H
#define SHARDC_SERVE_ENGINE_H

#include "serve/Serve.h"
#include <map>

namespace shardc {

class ServeEngine {
public:
  ServeEngine(const Module &Checked, const ServeSpec &S, const MeshSpec &Mesh,
              DiagnosticEngine &Diags)
      : Checked(Checked), S(S), Mesh(Mesh), Diags(Diags),
        Chip(Mesh.Cluster->Chip) {}

  llvm::Expected<std::optional<ServeResult>> run();

private:
  /// The program at batch \p B, \p New new tokens, \p Ctx context; null
  /// after reporting a problem of the program at those sizes.
  llvm::Expected<std::unique_ptr<MeshCompile>>
  compileAt(int64_t B, int64_t New, int64_t Ctx, const MeshSpec *On = nullptr);
  /// The instance from \p Full, its head rows from \p Head when given.
  ServeInstance instance(llvm::StringRef Phase, int64_t B, int64_t New,
                         double Ctx, const MeshCompile &Full,
                         const MeshCompile *Head) const;
  /// Decode at batch \p B (the mean context: two compiles when it is
  /// fractional); \p Keep receives the compile at the lower context.
  llvm::Expected<std::optional<ServeInstance>>
  decode(int64_t B, std::unique_ptr<MeshCompile> *Keep = nullptr,
         int64_t New = 1);
  /// `context = exact`: decode averaged over its steps (compiles at the
  /// first and last step's contexts); \p Keep receives the compile at the
  /// mean context, the report's op table.
  llvm::Expected<std::optional<ServeInstance>>
  decodeExact(const char *Phase, int64_t B, std::unique_ptr<MeshCompile> *Keep,
              int64_t New);
  llvm::Expected<std::optional<ServeInstance>>
  decodeAtMean(const char *Phase, int64_t B, std::unique_ptr<MeshCompile> *Keep,
               int64_t New);
  /// `context = exact`: \p A and \p B, the program at two contexts,
  /// averaged over the decode steps, each priced at its own context.
  ServeInstance average(const ServeInstance &A, const ServeInstance &B) const;
  llvm::Expected<std::optional<ServeInstance>>
  prefill(int64_t B, std::unique_ptr<MeshCompile> *Keep = nullptr);
  bool isResident(const Value *V) const;
  bool hasPhaseDim(const ShardType &T) const;
  bool isWeight(const Value *V) const;
  std::vector<std::pair<double, double>>
  statementBytes(const MeshCompile &C) const;
  /// The mixed step of continuous batching: \p Dec plus \p W of \p Pre.
  ServeInstance mixedStep(const ServeInstance &Dec, const ServeInstance &Pre,
                          double W) const;
  /// Bytes per chip of every cache at batch \p B and the capacity.
  double kvBytes(int64_t B) const { return kvBytes(B, S.capacity(), Mesh); }
  /// Bytes per chip of every cache at batch \p B and context \p Ctx on
  /// \p On.
  double kvBytes(int64_t B, int64_t Ctx, const MeshSpec &On) const;
  /// Disaggregated: the time one prompt's cache takes across the link.
  double kvTransfer() const;
  double weightBytes() const { return weightBytes(Mesh); }
  double weightBytes(const MeshSpec &On) const;
  /// Disaggregated: whether one prompt's prefill fits its pool's chips
  /// (reported at `prefill` when not).
  bool prefillPoolFits() const;
  /// The bytes chip \p On has for \p M's terms: hbm x hbm_usable, or with
  /// kv_fraction the weights, the workspace and that share of the rest.
  double usable(const ChipSpec &On, const ServeMemory &M) const;
  ServeMemory memory(int64_t B, const ServeInstance &Dec,
                     const ServeInstance &Pre) const;
  /// The least common multiple of the axes that shard phase dim \p K
  /// (0 batch, 2 context) in any type of the program.
  int64_t dimQuantum(unsigned K) const;
  int64_t batchQuantum() const { return dimQuantum(0); }
  void constants(ServeResult &R, const ServeInstance &DecQ,
                 const ServeInstance &Dec2Q, int64_t Q) const;
  /// Everything at one batch: its instances, memory and the mode's times.
  struct AtBatch {
    ServeInstance Dec, Pre, Step;
    std::optional<ServeInstance> Verify; ///< speculating
    ServeMemory Mem;
    double Tpot, Ttft, Rps;
    double Pass = 0;  ///< speculating: g drafts and a verify
    double Chips = 1; ///< the chips one replica's tokens count over
  };
  /// Everything at batch \p B, computed once; null after reporting.
  llvm::Expected<const AtBatch *> at(int64_t B);
  /// The largest batch (a multiple of the quantum) whose memory fits, from
  /// the memory at Q (\p M1) and 2Q (\p M2).
  llvm::Expected<std::optional<int64_t>> maxBatch(const ServeMemory &M1,
                                                  const ServeMemory &M2);
  // The engine's steps (Serve.cpp), in order; each false after reporting.
  void findHead();
  llvm::Expected<bool> setUp();
  llvm::Expected<bool> setUpStep(ServeResult &) { return setUp(); }
  llvm::Expected<bool> largestBatch(ServeResult &R);
  llvm::Expected<bool> servingBatch(ServeResult &R);
  llvm::Expected<bool> curve(ServeResult &R);
  llvm::Expected<bool> finish(ServeResult &R);
  /// The book's warnings that the serving batch's numbers and the
  /// program's shardings raise (Warnings.cpp).
  void warnings(const ServeResult &R) const;
  void warnCommsOverWeights(const ServeResult &R) const;
  void warnNoLatency(const MeshCompile &Decode) const;
  void warnGatheredParams(const MeshCompile &Decode) const;
  void warnDataParallel() const;
  void warnKvReplicated() const;
  bool overChunk(int64_t B) const { return M.Continuous && B > M.ChunkLimit; }
  /// What the steps share: the batch quantum and the mode's constants.
  struct ModeState {
    int64_t Q = 1, ChunkLimit = 0;
    bool Static = false, Continuous = false, Disagg = false;
    double G1 = 1, P = 1, Chunk = 1, Tau = 1, TKv = 0;
    std::optional<ServeInstance> Pre1;
    std::vector<int64_t> Written, Named;
  } M;
  std::map<int64_t, AtBatch> Cache;
  void reportNoFit(int64_t B, const ServeMemory &M, bool Nothing) const;

  const Module &Checked;
  const ServeSpec &S;
  const MeshSpec &Mesh;
  DiagnosticEngine &Diags;
  const ChipSpec &Chip;
  std::vector<bool> HeadStmt;
};

} // namespace shardc

#endif // SHARDC_SERVE_ENGINE_H
