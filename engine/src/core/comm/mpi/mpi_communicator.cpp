#include "core/comm/mpi/mpi_communicator.h"

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "core/comm/mpi/mpi_algorithms.h"
#include "core/comm/mpi/mpi_check.h"
#include "core/comm/mpi/mpi_progress.h"

namespace mt {
namespace {

// bf16 is the top half of an fp32: widen, add, round to nearest even, narrow.
float bf16_to_float(uint16_t v) {
  const uint32_t bits = static_cast<uint32_t>(v) << 16;
  float out;
  std::memcpy(&out, &bits, sizeof(out));
  return out;
}

uint16_t float_to_bf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x40u);  // NaN
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

void bf16_sum(void* in, void* inout, int* len, MPI_Datatype*) {
  const auto* a = static_cast<const uint16_t*>(in);
  auto* b = static_cast<uint16_t*>(inout);
  for (int i = 0; i < *len; ++i) b[i] = float_to_bf16(bf16_to_float(a[i]) + bf16_to_float(b[i]));
}

MPI_Op bf16_sum_op() {
  static MPI_Op op = [] {
    MPI_Op created;
    MT_MPI_CHECK(MPI_Op_create(&bf16_sum, /*commute=*/1, &created));
    return created;
  }();
  return op;
}

MPI_Datatype datatype(ElementType type) {
  switch (type) {
    case ElementType::f32: return MPI_FLOAT;
    case ElementType::bf16: return MPI_UINT16_T;
    case ElementType::i32: return MPI_INT32_T;
    case ElementType::u8: return MPI_UINT8_T;
  }
  return MPI_BYTE;
}

MPI_Op sum_op(ElementType type) {
  if (type == ElementType::bf16) return bf16_sum_op();
  if (type == ElementType::u8) throw std::invalid_argument("sum of u8 elements is not supported");
  return MPI_SUM;
}

// MPI counts are int: larger buffers are split (all-reduce) or refused (the others).
constexpr std::size_t kMaxPiece = static_cast<std::size_t>(INT_MAX);

int int_count(std::size_t count, const char* what) {
  if (count > kMaxPiece) throw std::runtime_error(fmt::format("{}: count {} exceeds INT_MAX", what, count));
  return static_cast<int>(count);
}

// MPI's count and displacement arrays of an all-to-all-v, written into `ints` (4 per rank), which
// the communicator keeps from call to call: a small collective costs no allocation.
class VArrays {
 public:
  VArrays(const std::vector<std::size_t>& send_counts, const std::vector<std::size_t>& recv_counts,
          std::vector<int>& ints)
      : n_(send_counts.size()), ints_(ints) {
    ints_.resize(4 * n_);
    fill(send_counts, ints_.data(), ints_.data() + n_);
    fill(recv_counts, ints_.data() + 2 * n_, ints_.data() + 3 * n_);
  }
  const int* send_counts() const { return ints_.data(); }
  const int* send_displacements() const { return ints_.data() + n_; }
  const int* recv_counts() const { return ints_.data() + 2 * n_; }
  const int* recv_displacements() const { return ints_.data() + 3 * n_; }

 private:
  static void fill(const std::vector<std::size_t>& counts, int* out, int* displacements) {
    std::size_t offset = 0;
    for (std::size_t c : counts) {
      *out++ = int_count(c, "all_to_all_v");
      *displacements++ = int_count(offset, "all_to_all_v");
      offset += c;
    }
  }
  std::size_t n_;
  std::vector<int>& ints_;
};

// All-gather and all-to-all take the same arguments: each rank's n elements of t to or from every
// rank. The collective as its non-blocking and blocking calls.
using ExchangeStart = int (*)(const void*, int, MPI_Datatype, void*, int, MPI_Datatype, MPI_Comm, MPI_Request*);
using ExchangeRun = int (*)(const void*, int, MPI_Datatype, void*, int, MPI_Datatype, MPI_Comm);

// The tag of the engine's own all-gather messages, on a communicator that carries nothing else.
constexpr int kGatherTag = 1;
constexpr const char* kGatherAlgorithm = "point-to-point exchange, own block copied while the peers read";

MPI_Comm duplicate(MPI_Comm comm) {
  MPI_Comm copy;
  MT_MPI_CHECK(MPI_Comm_dup(comm, &copy));
  MT_MPI_CHECK(MPI_Comm_set_errhandler(copy, MPI_ERRORS_RETURN));
  return copy;
}

}  // namespace

struct MpiCommunicator::State {
  explicit State(double timeout_s) : progress(timeout_s) {}
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm gather_comm = MPI_COMM_NULL;  // the point-to-point messages of gather_by_exchange
  MpiProgress progress;
  int rank = 0;
  // The work of the last collective that ran blocking, taken again by the next one once its caller
  // has let go of it; and the arrays of the last all-to-all-v. A small collective costs no
  // allocation: at 1 KiB the call itself takes half a µs.
  std::shared_ptr<MpiWork> blocking_work;
  std::vector<int> v_arrays;

  // The work of a collective of `kind` with `bytes` in this rank's send buffer (see submit).
  std::shared_ptr<MpiWork> work(long sequence, CollectiveKind kind, std::size_t count, ElementType type,
                                std::string label, std::size_t bytes) {
    MpiWorkDescription description{kind, sequence, count, type, std::move(label), rank};
    if (!MpiProgress::runs_blocking(kind, bytes)) return std::make_shared<MpiWork>(progress, std::move(description));
    if (blocking_work && blocking_work.use_count() == 1) blocking_work->reuse(std::move(description));
    else blocking_work = std::make_shared<MpiWork>(progress, std::move(description));
    return blocking_work;
  }

  // Runs the collective blocking on this thread where it is small (`bytes` in this rank's send
  // buffer), else starts it and hands its requests to the progress thread. `start` returns the
  // requests; both callables are used before this returns.
  template <typename Start, typename RunBlocking>
  WorkHandle submit(std::shared_ptr<MpiWork> work, std::size_t bytes, Start&& start, RunBlocking&& run_blocking) {
    if (MpiProgress::runs_blocking(work->kind(), bytes)) progress.run_blocking(*work, run_blocking);
    else progress.hand_over(work, start());
    return work;
  }

  WorkHandle exchange(std::shared_ptr<MpiWork> work, std::size_t bytes, ExchangeStart start, ExchangeRun run,
                      const void* send, void* recv, int n, MPI_Datatype t) {
    return submit(
        std::move(work), bytes,
        [&] {
          MPI_Request request;
          MT_MPI_CHECK(start(send, n, t, recv, n, t, comm, &request));
          return std::vector<MPI_Request>{request};
        },
        [&] { MT_MPI_CHECK(run(send, n, t, recv, n, t, comm)); });
  }

  // An out-of-place all-gather too large to run blocking, as point-to-point messages: every peer's
  // block received where it belongs and this rank's sent from its send buffer, its own block copied
  // into place while the peers read. Open MPI's non-blocking all-gather copies the own block first
  // and sends that copy, so a peer reads lines this core has just written. 2 ranks of a 2-vCPU EPYC
  // Zen 5, buffers 64-byte aligned on huge pages, busbw GB/s of C loops, 5 interleaved rounds: at
  // 4-8 MiB MPI_Iallgather 17-19, these messages 26-30 (the blocking MPI_Allgather 26-31; sending
  // the fresh copy instead 6.5); at 16-64 MiB 0.88-1.06x MPI_Iallgather's (medians of two such runs),
  // and in mtengine comm's 30-repeat campaigns alike at 32 and 64 MiB.
  WorkHandle gather_by_exchange(std::shared_ptr<MpiWork> work, const void* send, void* recv, int n, MPI_Datatype t,
                                std::size_t block_bytes, int me, int world) {
    auto* blocks = static_cast<char*>(recv);
    std::vector<MPI_Request> requests(2 * static_cast<std::size_t>(world - 1));
    for (int k = 1; k < world; ++k) {  // k-th neighbour on either side: every pair's traffic at once
      const int from = (me - k + world) % world, to = (me + k) % world;
      MT_MPI_CHECK(MPI_Irecv(blocks + static_cast<std::size_t>(from) * block_bytes, n, t, from, kGatherTag, gather_comm,
                             &requests[2 * (k - 1)]));
      MT_MPI_CHECK(MPI_Isend(send, n, t, to, kGatherTag, gather_comm, &requests[2 * (k - 1) + 1]));
    }
    std::memcpy(blocks + static_cast<std::size_t>(me) * block_bytes, send, block_bytes);
    work->set_own_algorithm(kGatherAlgorithm);
    progress.hand_over(work, std::move(requests));
    return work;
  }
};

MpiCommunicator::MpiCommunicator(double timeout_s) : state_(std::make_unique<State>(timeout_s)) {
  state_->comm = duplicate(MPI_COMM_WORLD);
  state_->gather_comm = duplicate(state_->comm);
  MT_MPI_CHECK(MPI_Comm_rank(state_->comm, &rank_));
  MT_MPI_CHECK(MPI_Comm_size(state_->comm, &world_size_));
  state_->rank = rank_;
}

MpiCommunicator::MpiCommunicator(std::unique_ptr<State> state) : state_(std::move(state)) {
  MT_MPI_CHECK(MPI_Comm_set_errhandler(state_->comm, MPI_ERRORS_RETURN));
  MT_MPI_CHECK(MPI_Comm_rank(state_->comm, &rank_));
  MT_MPI_CHECK(MPI_Comm_size(state_->comm, &world_size_));
}

std::unique_ptr<Communicator> MpiCommunicator::split(int color, int key) {
  auto state = std::make_unique<State>(state_->progress.timeout_s());
  MT_MPI_CHECK(MPI_Comm_split(state_->comm, color, key, &state->comm));
  state->gather_comm = duplicate(state->comm);
  state->rank = state_->rank;  // named by its world rank in messages
  return std::unique_ptr<Communicator>(new MpiCommunicator(std::move(state)));
}

MpiCommunicator::~MpiCommunicator() {
  MPI_Comm comm = state_->comm, gather_comm = state_->gather_comm;
  state_.reset();  // stops the progress thread first
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  if (gather_comm != MPI_COMM_NULL) MPI_Comm_free(&gather_comm);
}

std::optional<RequestedAlgorithm> MpiCommunicator::requested_algorithm(std::string_view collective) const {
  return requested_mpi_algorithm(collective);
}

WorkHandle MpiCommunicator::all_reduce(const void* send, void* recv, std::size_t count, ElementType type, StreamRef) {
  auto work = state_->work(issue(CollectiveKind::all_reduce), CollectiveKind::all_reduce, count, type, take_label(),
                           count * element_bytes(type));
  const void* in = send == recv ? MPI_IN_PLACE : send;
  MPI_Comm comm = state_->comm;
  const MPI_Datatype t = datatype(type);
  const MPI_Op op = sum_op(type);
  // MPI counts are int: larger buffers go as several all-reduces of at most INT_MAX elements.
  auto for_each_piece = [&](auto&& call) {
    const std::size_t bytes = element_bytes(type);
    for (std::size_t offset = 0; offset < count; offset += kMaxPiece) {
      const int piece = static_cast<int>(std::min(count - offset, kMaxPiece));
      const void* from = in == MPI_IN_PLACE ? MPI_IN_PLACE : static_cast<const char*>(in) + offset * bytes;
      call(from, static_cast<char*>(recv) + offset * bytes, piece);
    }
  };
  return state_->submit(
      std::move(work), count * element_bytes(type),
      [&] {
        std::vector<MPI_Request> requests;
        for_each_piece([&](const void* from, void* to, int piece) {
          MPI_Request request;
          MT_MPI_CHECK(MPI_Iallreduce(from, to, piece, t, op, comm, &request));
          requests.push_back(request);
        });
        return requests;
      },
      [&] {
        for_each_piece(
            [&](const void* from, void* to, int piece) { MT_MPI_CHECK(MPI_Allreduce(from, to, piece, t, op, comm)); });
      });
}

WorkHandle MpiCommunicator::all_gather(const void* send, void* recv, std::size_t count, ElementType type, StreamRef) {
  const std::size_t block_bytes = count * element_bytes(type);
  auto work = state_->work(issue(CollectiveKind::all_gather), CollectiveKind::all_gather, count, type, take_label(),
                           block_bytes);
  const int n = int_count(count, "all_gather");
  // A send buffer that is this rank's own block of recv means "in place" in MPI's terms.
  if (send == static_cast<char*>(recv) + static_cast<std::size_t>(rank_) * block_bytes) send = MPI_IN_PLACE;
  if (send != MPI_IN_PLACE && !MpiProgress::runs_blocking(CollectiveKind::all_gather, block_bytes))
    return state_->gather_by_exchange(std::move(work), send, recv, n, datatype(type), block_bytes, rank_, world_size_);
  return state_->exchange(std::move(work), block_bytes, MPI_Iallgather, MPI_Allgather, send, recv, n, datatype(type));
}

WorkHandle MpiCommunicator::reduce_scatter(const void* send, void* recv, std::size_t count, ElementType type,
                                           StreamRef) {
  const std::size_t send_bytes = count * static_cast<std::size_t>(world_size_) * element_bytes(type);
  auto work = state_->work(issue(CollectiveKind::reduce_scatter), CollectiveKind::reduce_scatter, count, type,
                           take_label(), send_bytes);
  const int n = int_count(count, "reduce_scatter");
  MPI_Comm comm = state_->comm;
  const MPI_Datatype t = datatype(type);
  const MPI_Op op = sum_op(type);
  return state_->submit(
      std::move(work), send_bytes,
      [&] {
        MPI_Request request;
        MT_MPI_CHECK(MPI_Ireduce_scatter_block(send, recv, n, t, op, comm, &request));
        return std::vector<MPI_Request>{request};
      },
      [&] { MT_MPI_CHECK(MPI_Reduce_scatter_block(send, recv, n, t, op, comm)); });
}

WorkHandle MpiCommunicator::broadcast(void* data, std::size_t count, ElementType type, int root, StreamRef) {
  auto work = state_->work(issue(CollectiveKind::broadcast), CollectiveKind::broadcast, count, type, take_label(),
                           count * element_bytes(type));
  const int n = int_count(count, "broadcast");
  MPI_Comm comm = state_->comm;
  const MPI_Datatype t = datatype(type);
  return state_->submit(
      std::move(work), count * element_bytes(type),
      [&] {
        MPI_Request request;
        MT_MPI_CHECK(MPI_Ibcast(data, n, t, root, comm, &request));
        return std::vector<MPI_Request>{request};
      },
      [&] { MT_MPI_CHECK(MPI_Bcast(data, n, t, root, comm)); });
}

WorkHandle MpiCommunicator::all_to_all(const void* send, void* recv, std::size_t count, ElementType type, StreamRef) {
  const std::size_t send_bytes = count * static_cast<std::size_t>(world_size_) * element_bytes(type);
  auto work = state_->work(issue(CollectiveKind::all_to_all), CollectiveKind::all_to_all, count, type, take_label(),
                           send_bytes);
  const int n = int_count(count, "all_to_all");
  return state_->exchange(std::move(work), send_bytes, MPI_Ialltoall, MPI_Alltoall, send, recv, n, datatype(type));
}

WorkHandle MpiCommunicator::all_to_all_v(const void* send, const std::vector<std::size_t>& send_counts, void* recv,
                                         const std::vector<std::size_t>& recv_counts, ElementType type, StreamRef) {
  if (send_counts.size() != static_cast<std::size_t>(world_size_) ||
      recv_counts.size() != static_cast<std::size_t>(world_size_))
    throw std::invalid_argument("all_to_all_v: one count per rank expected");
  std::size_t total = 0;
  for (std::size_t c : send_counts) total += c;
  const std::size_t bytes = total * element_bytes(type);
  auto work =
      state_->work(issue(CollectiveKind::all_to_all), CollectiveKind::all_to_all, total, type, take_label(), bytes);
  MPI_Comm comm = state_->comm;
  const MPI_Datatype t = datatype(type);
  VArrays arrays(send_counts, recv_counts, state_->v_arrays);
  MpiWork& handle = *work;
  return state_->submit(
      std::move(work), bytes,
      [&] {
        // MPI reads the arrays until the operation completes: the work keeps arrays of its own.
        auto ints = std::make_shared<std::vector<int>>();
        handle.keep_alive(ints);
        VArrays kept(send_counts, recv_counts, *ints);
        MPI_Request request;
        MT_MPI_CHECK(MPI_Ialltoallv(send, kept.send_counts(), kept.send_displacements(), t, recv, kept.recv_counts(),
                                    kept.recv_displacements(), t, comm, &request));
        return std::vector<MPI_Request>{request};
      },
      [&] {
        MT_MPI_CHECK(MPI_Alltoallv(send, arrays.send_counts(), arrays.send_displacements(), t, recv,
                                   arrays.recv_counts(), arrays.recv_displacements(), t, comm));
      });
}

}  // namespace mt
