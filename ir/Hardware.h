//===- Hardware.h - Resolved chips, clusters and meshes ---------*- C++ -*-===//
//
// The hardware a program runs on, after the frontend has evaluated every
// property to SI base units (bytes, seconds, FLOP). The IR and the passes see
// only these structs, never the AST.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_IR_HARDWARE_H
#define SHARDC_IR_HARDWARE_H

#include "ir/CollectiveKind.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace shardc {

enum class DType : uint8_t {
#define DTYPE(Name, Bytes) Name,
#include "ir/DTypes.def"
};
constexpr unsigned NumDTypes = 0
#define DTYPE(Name, Bytes) +1
#include "ir/DTypes.def"
    ;
llvm::StringRef dtypeName(DType T);
double dtypeBytes(DType T);
std::optional<DType> parseDType(llvm::StringRef Name);

/// One tile class of a chip's GEMM model (docs/cost-model.md §1): a CTA
/// computes a Tm x Tn block of the output, `ctas` of them are resident per
/// SM, and one runs at `efficiency` of its share of the SM's peak.
struct TileClass {
  std::string Name;
  int64_t M = 0, N = 0;
  int64_t Ctas = 1;
  double Efficiency = 1.0;
  /// `dtype`: the class prices only GEMMs in this dtype (fitted to them);
  /// a class without one prices every dtype that has no class of its own.
  std::optional<DType> Elt;
};

/// One chip type. Peaks of 0 mean "not given".
struct ChipSpec {
  std::string Name;
  double HbmBytes = 0;                         ///< capacity, bytes
  double HbmBw = 0;                            ///< bytes/s
  std::array<double, NumDTypes> Flops{};       ///< matmul peak, FLOP/s
  std::array<double, NumDTypes> VectorFlops{}; ///< non-matmul peak, FLOP/s
  double MatmulEfficiency = 1.0;
  /// `matmul_efficiency.<dtype>`: a dtype's own GEMM ceiling (fp8 GEMMs
  /// reach another share of their peak than bf16 ones); 0: MatmulEfficiency.
  std::array<double, NumDTypes> MatmulEfficiencyFor{};
  double HbmEfficiency = 1.0;
  int64_t Sms = 0; ///< streaming multiprocessors (0: not given)
  /// The GEMM model by shape: empty, every GEMM runs at the ceiling.
  llvm::SmallVector<TileClass, 4> Tiles;
  double WaveOverhead = 0; ///< seconds per wave
  /// `wave_overhead.<dtype>`: a dtype's own, for its own tile classes.
  std::array<std::optional<double>, NumDTypes> WaveOverheadFor{};
  /// The batched-GEMM epilogue's share of hbm_bw; 0: no epilogue term.
  double EpilogueEfficiency = 0;
  /// Measured kernel rates, each unset until a preset writes it (then it
  /// follows the figure it defaults to, also in a derived chip that changes
  /// that figure): memory-bound kernels' share of hbm_bw (default
  /// hbm_efficiency, a read kernel's), and fused attention's share of the
  /// matmul peak, forward and backward (default matmul_efficiency).
  std::optional<double> ElementwiseEfficiency;
  std::optional<double> AttentionEfficiency, AttentionBackwardEfficiency;
  /// A kernel's fixed time, on the memory side of its roofline: a decode
  /// step's small kernels run on a line, latency + bytes / bandwidth. Every
  /// kernel pays `kernel_latency` (0 unless written); ops made of matmuls
  /// pay `matmul_latency` instead (default kernel_latency) and stream their
  /// operands at `matmul_hbm_efficiency` of hbm_bw (default hbm_efficiency).
  double KernelLatency = 0;
  std::optional<double> MatmulLatency, MatmulHbmEfficiency;

  double elementwiseEfficiency() const {
    return ElementwiseEfficiency.value_or(HbmEfficiency);
  }
  double matmulHbmEfficiency() const {
    return MatmulHbmEfficiency.value_or(HbmEfficiency);
  }
  double matmulLatency() const { return MatmulLatency.value_or(KernelLatency); }
  double attentionEfficiency(bool Backward) const {
    const std::optional<double> &E =
        Backward ? AttentionBackwardEfficiency : AttentionEfficiency;
    return E.value_or(MatmulEfficiency);
  }

  /// True when the chip runs at the peaks it states (every efficiency 1):
  /// its times are a datasheet's, not a measurement's, and the report says
  /// so beside the MFU. A new calibration figure of the chip (a GEMM model)
  /// joins this test.
  bool atDatasheetPeaks() const {
    return MatmulEfficiency == 1 && HbmEfficiency == 1 &&
           elementwiseEfficiency() == 1 && attentionEfficiency(false) == 1 &&
           attentionEfficiency(true) == 1 && matmulHbmEfficiency() == 1 &&
           KernelLatency == 0 && matmulLatency() == 0 && Tiles.empty();
  }

  /// Whether tile class \p Tc prices a GEMM in \p T: its own dtype's
  /// classes where the chip has any, else the classes without a dtype.
  bool tilePrices(const TileClass &Tc, DType T) const {
    bool Own = false;
    for (const TileClass &O : Tiles)
      Own |= O.Elt == T;
    return Own ? Tc.Elt == T : !Tc.Elt;
  }
  double waveOverhead(DType T) const {
    return WaveOverheadFor[unsigned(T)].value_or(WaveOverhead);
  }

  /// Matmul peak for \p T; 0 when the chip gives none.
  double matmulPeak(DType T) const { return Flops[unsigned(T)]; }
  /// The best share of the matmul peak a GEMM in \p T reaches: its own
  /// `matmul_efficiency.<dtype>`, else matmul_efficiency.
  double matmulCeiling(DType T) const {
    double E = MatmulEfficiencyFor[unsigned(T)];
    return E > 0 ? E : MatmulEfficiency;
  }
  /// True when the chip gives vector_flops for \p T.
  bool hasVectorPeak(DType T) const { return VectorFlops[unsigned(T)] > 0; }
  /// Elementwise peak: vector_flops, falling back to flops (COST-MODEL §1).
  double vectorPeak(DType T) const {
    return hasVectorPeak(T) ? VectorFlops[unsigned(T)] : Flops[unsigned(T)];
  }
};

/// How a level of switches performs against its rated bandwidth and how
/// long a hop takes. Calibration, not hardware: measured (NCCL's tests,
/// vendors' benchmarks) and fitted, so it is held apart from the level's
/// sizes and bandwidths, and read only by the network that prices the level
/// (passes/SwitchedNetwork.cpp) and the report that prints it.
struct LevelCalibration {
  double Latency = 0; ///< seconds per hop
  double Efficiency = 1.0;
  /// The efficiency of an AllReduce this level reduces in its switches
  /// (in-network reduction runs a different kernel, e.g. NVLS); 0: the
  /// level's Efficiency.
  double ReductionEfficiency = 0;
  /// NCCL's two protocols (docs/cost-model.md §3): with both given, a
  /// collective also runs as latency x hops at W x small_efficiency (the
  /// small-message protocol) and as bulk_latency x hops at W x efficiency
  /// (the bandwidth protocol), and takes the faster. 0 and nullopt: one
  /// protocol, latency at W x efficiency.
  double SmallEfficiency = 0;
  std::optional<double> BulkLatency;
  /// The share of the chip's SMs a collective over this level occupies
  /// (NCCL runs collectives as kernels, one CTA per channel): compute it
  /// overlaps runs at 1 - CommSmShare of its rate. 0: free overlap.
  double CommSmShare = 0;

  bool twoProtocols() const { return SmallEfficiency > 0 && BulkLatency; }
  /// The share of the bandwidth a collective gets: efficiency; with
  /// \p InNetwork, reduction_efficiency when given; with \p Small,
  /// small_efficiency instead (a level with two protocols).
  double efficiency(bool InNetwork = false, bool Small = false) const {
    if (Small && twoProtocols())
      return SmallEfficiency;
    return InNetwork && ReductionEfficiency > 0 ? ReductionEfficiency
                                                : Efficiency;
  }
  /// Seconds per hop: bulk_latency for the bandwidth protocol of a level
  /// with two, else latency.
  double hopLatency(bool Small = false) const {
    return twoProtocols() && !Small ? *BulkLatency : Latency;
  }
};

/// One level of the network hierarchy, innermost (node) first.
struct LevelSpec {
  std::string Name;
  int64_t Size = 0; ///< children per unit of this level
  double UplinkBw =
      0;         ///< one child's link into this level, bytes/s (0: not given)
  double Bw = 0; ///< aggregate switching bandwidth of one unit (0: not given)
  bool InNetworkReduction = false;
  LevelCalibration Calibration;

  /// min(uplink_bw, bw / size) (COST-MODEL §3), before calibration;
  /// infinite when neither is given.
  double uplink() const;
};

struct ClusterSpec {
  std::string Name;
  ChipSpec Chip;
  llvm::SmallVector<LevelSpec, 4> Levels;
  /// Chips in the whole cluster: the product of the level sizes.
  int64_t numChips() const;
};

struct MeshAxis {
  std::string Name;
  int64_t Size = 1;
};

/// Mesh axes are numbered by their position in the mesh, and sets of them
/// are 64-bit masks: a mesh has at most this many axes.
constexpr unsigned MaxMeshAxes = 64;

/// A mesh of chips with named axes, major to minor, laid out row-major on the
/// cluster's chips 0..P-1 (the last axis varies fastest). It shares its
/// cluster, so a module keeps its mesh without pointing into the frontend's
/// tables, and a re-cost can swap either.
struct MeshSpec {
  std::string Name;
  llvm::SmallVector<MeshAxis, 4> Axes;
  std::shared_ptr<const ClusterSpec> Cluster;

  int64_t numChips() const;
  std::optional<unsigned> axisIndex(llvm::StringRef Name) const;
};

} // namespace shardc

#endif // SHARDC_IR_HARDWARE_H
