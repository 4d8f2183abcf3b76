//===- Placement.cpp - A mesh's collectives, priced and cached ------------===//
#include "passes/Placement.h"
#include "passes/SwitchedNetwork.h"
#include <cassert>

using namespace shardc;

Network::~Network() = default;

std::unique_ptr<Network> shardc::createNetwork(const MeshSpec &Mesh) {
  assert(Mesh.Cluster && "a mesh is always placed on a cluster");
  return std::make_unique<SwitchedNetwork>(Mesh);
}

uint64_t shardc::axisMask(const MeshSpec &Mesh, llvm::ArrayRef<unsigned> Axes) {
  uint64_t Mask = 0;
  for (unsigned A : Axes) {
    assert(A < Mesh.Axes.size() && A < 64 && "axis index out of range");
    Mask |= uint64_t(1) << A;
  }
  return Mask;
}

PlacementCache::PlacementCache(const MeshSpec &M)
    : Mesh(M), Net(createNetwork(Mesh)) {}

bool PlacementCache::isFor(const MeshSpec &Other) const {
  if (Other.Cluster != Mesh.Cluster || Other.Axes.size() != Mesh.Axes.size())
    return false;
  for (size_t I = 0; I != Mesh.Axes.size(); ++I)
    if (Other.Axes[I].Name != Mesh.Axes[I].Name ||
        Other.Axes[I].Size != Mesh.Axes[I].Size)
      return false;
  return true;
}

CollectivePlacement PlacementCache::placeSend(unsigned Axis, double Bytes) {
  auto It = Sends.find(Axis);
  if (It == Sends.end())
    It = Sends.try_emplace(Axis, Net->sendCoefficients(Axis)).first;
  return Net->price(It->second, Bytes);
}

PlacementCoefficients
PlacementCache::coefficients(CollectiveKind Kind,
                             llvm::ArrayRef<unsigned> Axes) {
  std::pair<unsigned, uint64_t> Key(trafficKey(collectiveTraits(Kind)),
                                    axisMask(Net->mesh(), Axes));
  auto It = Cache.find(Key);
  if (It == Cache.end())
    It = Cache.try_emplace(Key, Net->collectiveCoefficients(Kind, Axes)).first;
  return It->second;
}

CollectivePlacement PlacementCache::place(CollectiveKind Kind,
                                          llvm::ArrayRef<unsigned> Axes,
                                          double GroupBytes) {
  return Net->price(coefficients(Kind, Axes), GroupBytes);
}

CollectivePlacement PlacementCache::place(CollectiveKind Kind, AxisSet Axes,
                                          double GroupBytes) {
  llvm::SmallVector<unsigned, 8> List;
  for (AxisId A : Axes.list())
    List.push_back(A);
  return place(Kind, List, GroupBytes);
}

CollectivePlacement shardc::placeCollective(const MeshSpec &Mesh,
                                            CollectiveKind Kind,
                                            llvm::ArrayRef<unsigned> Axes,
                                            double GroupBytes) {
  return createNetwork(Mesh)->placeCollective(Kind, Axes, GroupBytes);
}
