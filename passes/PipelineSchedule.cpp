//===- PipelineSchedule.cpp - Simulating a pipeline's schedule ------------===//
//
// COST-MODEL.md §6.3: the schedule is simulated, not looked up. Each stage
// has its order of slices (GPipe: all forwards, then all backwards; 1F1B:
// min(m, p - s) warm-up forwards, then a backward and a forward in turn,
// then the cool-down backwards; interleaved: Megatron-LM's order over the
// chunks). A worklist schedules each slice once, when its stage is free and
// its input is there, so the run is linear in the number of slices.
//
//===----------------------------------------------------------------------===//
#include "passes/Schedule.h"
#include <deque>

using namespace shardc;

namespace {
struct Work {
  unsigned Chunk;
  int64_t Mb;
  bool Backward;
};

/// The k-th forward (or backward) of a stage under the interleaved
/// schedule: microbatches in groups of p, each group through every chunk
/// (backwards: the chunks in reverse).
std::vector<Work> interleavedList(unsigned P, unsigned V, int64_t M,
                                  bool Backward) {
  std::vector<Work> L;
  L.reserve(size_t(M * V));
  int64_t Group = int64_t(P) * V;
  for (int64_t K = 0; int64_t(L.size()) < M * V; ++K) {
    unsigned C = unsigned((K % Group) / P);
    int64_t Mb = (K / Group) * P + K % P;
    if (Mb < M)
      L.push_back({Backward ? V - 1 - C : C, Mb, Backward});
  }
  return L;
}

/// The interleaved lists every stage's order reads (the same for each
/// stage: built once per simulation, not once per stage).
struct Lists {
  std::vector<Work> F, B;
};

std::vector<Work> stageOrder(PipelineSchedule S, unsigned P, unsigned V,
                             int64_t M, unsigned Stage, const Lists &FB) {
  std::vector<Work> Order;
  Order.reserve(size_t(2 * M * V));
  switch (S) {
  case PipelineSchedule::GPipe:
    for (unsigned C = 0; C < V; ++C)
      for (int64_t Mb = 0; Mb < M; ++Mb)
        Order.push_back({C, Mb, false});
    for (unsigned C = V; C-- > 0;)
      for (int64_t Mb = 0; Mb < M; ++Mb)
        Order.push_back({C, Mb, true});
    return Order;
  case PipelineSchedule::OneFOneB:
    if (V == 1) {
      int64_t Warm = std::min<int64_t>(M, P - Stage);
      for (int64_t Mb = 0; Mb < Warm; ++Mb)
        Order.push_back({0, Mb, false});
      for (int64_t I = 0; I < M; ++I) {
        Order.push_back({0, I, true});
        if (Warm + I < M)
          Order.push_back({0, Warm + I, false});
      }
      return Order;
    }
    [[fallthrough]];
  case PipelineSchedule::Interleaved: {
    // Megatron-LM's warm-up: (p - s - 1) x 2 + (v - 1) x p forwards, then
    // one forward and one backward in turn, then the rest of the backwards.
    const std::vector<Work> &F = FB.F, &B = FB.B;
    int64_t Total = int64_t(F.size());
    int64_t Warm = std::min<int64_t>(Total, int64_t(P - Stage - 1) * 2 +
                                                int64_t(V - 1) * P);
    for (int64_t K = 0; K < Warm; ++K)
      Order.push_back(F[K]);
    for (int64_t I = 0; I < Total; ++I) {
      if (Warm + I < Total)
        Order.push_back(F[Warm + I]);
      Order.push_back(B[I]);
    }
    return Order;
  }
  }
  return Order;
}
} // namespace

PipelineRun shardc::simulatePipeline(PipelineSchedule S, int64_t M,
                                     const PipelineTimes &T) {
  unsigned P = unsigned(T.Fwd.size());
  unsigned V = P ? unsigned(T.Fwd.front().size()) : 0;
  PipelineRun R;
  if (P == 0 || V == 0 || M <= 0)
    return R;
  int64_t Q = int64_t(P) * V; // virtual stages: chunk c of stage s is c·p + s
  std::vector<std::vector<Work>> Orders(P);
  Lists FB;
  if (S == PipelineSchedule::Interleaved ||
      (S == PipelineSchedule::OneFOneB && V > 1)) {
    FB.F = interleavedList(P, V, M, false);
    FB.B = interleavedList(P, V, M, true);
  }
  for (unsigned St = 0; St < P; ++St)
    Orders[St] = stageOrder(S, P, V, M, St, FB);
  // End times per (virtual stage, microbatch); negative: not yet run.
  std::vector<double> EndF(Q * M, -1), EndB(Q * M, -1);
  std::vector<size_t> Next(P, 0);
  std::vector<double> Free(P, 0);
  R.Busy.assign(P, 0);
  R.LastBackwardEnd.assign(P, 0);
  R.Slices.reserve(size_t(2 * Q * M)); // a forward and a backward each
  std::deque<unsigned> Ready;
  for (unsigned St = 0; St < P; ++St)
    Ready.push_back(St);
  while (!Ready.empty()) {
    unsigned St = Ready.front();
    Ready.pop_front();
    while (Next[St] < Orders[St].size()) {
      const Work &W = Orders[St][Next[St]];
      int64_t Vq = int64_t(W.Chunk) * P + St;
      // The input: the previous virtual stage's forward, the next one's
      // backward; the last virtual stage's backward follows its forward.
      double Dep = 0, Delay = 0;
      if (!W.Backward && Vq > 0) {
        Dep = EndF[(Vq - 1) * M + W.Mb];
        Delay = T.FwdDelay;
      } else if (W.Backward && Vq + 1 < Q) {
        Dep = EndB[(Vq + 1) * M + W.Mb];
        Delay = T.BwdDelay;
      } else if (W.Backward) {
        Dep = EndF[Vq * M + W.Mb];
      }
      if (Dep < 0)
        break; // waits for a neighbour
      Dep += Delay;
      double Dur = !W.Backward ? T.Fwd[St][W.Chunk]
                   : W.Mb == 0 ? T.BwdFirst[St][W.Chunk]
                               : T.Bwd[St][W.Chunk];
      double Start = std::max(Free[St], Dep);
      double End = Start + Dur;
      (W.Backward ? EndB : EndF)[Vq * M + W.Mb] = End;
      R.Slices.push_back({St, W.Chunk, W.Mb, W.Backward, Start, End});
      Free[St] = End;
      R.Busy[St] += Dur;
      if (W.Backward)
        R.LastBackwardEnd[St] = End;
      R.Makespan = std::max(R.Makespan, End);
      ++Next[St];
      // The neighbours whose next slice may have waited for this one.
      if (Vq + 1 < Q)
        Ready.push_back(unsigned((Vq + 1) % P));
      if (Vq > 0)
        Ready.push_back(unsigned((Vq - 1) % P));
    }
  }
  for (unsigned St = 0; St < P; ++St)
    R.Complete &= Next[St] == Orders[St].size();
  return R;
}
