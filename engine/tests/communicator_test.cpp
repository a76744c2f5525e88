// Every collective of the MPI communicator against its analytic result, on however many ranks
// mpirun starts: inputs are chosen so each output element is predictable from (rank, index).
// Also: handles complete without the caller polling, in-place all-gather, bf16 sums, variable
// all-to-all with the uneven rule "rank r sends e + (r + p) mod n elements to peer p" and with ranks
// that send very different amounts, and small collectives, which run blocking as they are issued:
// beside a large one in flight, with the ranks waiting in different orders.
//   mpirun -np N communicator_test            # the checks; exit 1 on any wrong element
//   mpirun -np 2 communicator_test --hang     # rank 1 never joins: rank 0 must abort on timeout
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "core/comm/mpi/mpi_communicator.h"
#include "core/comm/mpi/mpi_control_channel.h"
#include "core/comm/mpi/mpi_session.h"

namespace {

int failures = 0;

void expect(bool ok, const std::string& what, int rank) {
  if (ok) return;
  std::fprintf(stderr, "rank %d: FAIL %s\n", rank, what.c_str());
  ++failures;
}

float value(int rank, std::size_t i) { return static_cast<float>(rank * 1000 + static_cast<int>(i % 997)); }

void check_all_reduce(mt::Communicator& comm, int n, int rank) {
  std::vector<float> data(4097);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = value(rank, i);
  auto work = comm.all_reduce(data.data(), data.size(), mt::ElementType::f32);
  // Completes without the caller entering MPI: the progress thread drives it.
  for (int spins = 0; !work->test() && spins < 20000; ++spins)
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  expect(work->test(), "all_reduce completes without polling", rank);
  work->wait();
  int wrong = 0;
  for (std::size_t i = 0; i < data.size(); ++i) {
    float expected = 0;
    for (int r = 0; r < n; ++r) expected += value(r, i);
    wrong += data[i] != expected;
  }
  expect(wrong == 0, "all_reduce: " + std::to_string(wrong) + " wrong elements", rank);
}

void check_all_gather(mt::Communicator& comm, int n, int rank) {
  const std::size_t count = 513;
  std::vector<float> send(count), recv(count * n), in_place(count * n);
  for (std::size_t i = 0; i < count; ++i) send[i] = in_place[rank * count + i] = value(rank, i);
  comm.all_gather(send.data(), recv.data(), count, mt::ElementType::f32)->wait();
  comm.all_gather(in_place.data() + rank * count, in_place.data(), count, mt::ElementType::f32)->wait();
  int wrong = 0;
  for (int r = 0; r < n; ++r)
    for (std::size_t i = 0; i < count; ++i)
      wrong += (recv[r * count + i] != value(r, i)) + (in_place[r * count + i] != value(r, i));
  expect(wrong == 0, "all_gather: " + std::to_string(wrong) + " wrong elements", rank);
}

// Above the blocking limit (2 MiB a rank) an out-of-place all-gather runs as the engine's own
// point-to-point exchange, this rank's block copied into place while the peers read: the gathered
// blocks, its own included, must all arrive. Two such gathers in flight at once, waited for in
// reverse order, must each get their own blocks (their messages share a communicator and a tag).
void check_all_gather_non_blocking(mt::Communicator& comm, int n, int rank) {
  const std::size_t count = (std::size_t{3} << 20) / sizeof(float);
  auto value_of = [](int gather, int r, std::size_t i) { return value(r, i) + 1000.0f * static_cast<float>(gather); };
  std::vector<std::vector<float>> send(2, std::vector<float>(count)), recv(2, std::vector<float>(count * n, -1.0f));
  for (int g = 0; g < 2; ++g)
    for (std::size_t i = 0; i < count; ++i) send[g][i] = value_of(g, rank, i);
  const auto sent = send;
  auto first = comm.all_gather(send[0].data(), recv[0].data(), count, mt::ElementType::f32);
  auto second = comm.all_gather(send[1].data(), recv[1].data(), count, mt::ElementType::f32);
  second->wait();
  first->wait();
  for (int g = 0; g < 2; ++g) {
    std::size_t wrong = 0;
    for (int r = 0; r < n; ++r)
      for (std::size_t i = 0; i < count; ++i) wrong += recv[g][r * count + i] != value_of(g, r, i);
    expect(wrong == 0,
           "non-blocking all_gather " + std::to_string(g) + ": " + std::to_string(wrong) + " wrong elements", rank);
  }
  expect(send == sent, "non-blocking all_gather changed its send buffer", rank);
  expect(!first->ran_blocking() && first->own_algorithm() != nullptr,
         "a 3 MiB out-of-place all_gather ran as the engine's own exchange", rank);
}

void check_reduce_scatter(mt::Communicator& comm, int n, int rank) {
  const std::size_t count = 300;
  std::vector<float> send(count * n), recv(count);
  for (std::size_t i = 0; i < send.size(); ++i) send[i] = value(rank, i);
  comm.reduce_scatter(send.data(), recv.data(), count, mt::ElementType::f32)->wait();
  int wrong = 0;
  for (std::size_t i = 0; i < count; ++i) {
    float expected = 0;
    for (int r = 0; r < n; ++r) expected += value(r, rank * count + i);
    wrong += recv[i] != expected;
  }
  expect(wrong == 0, "reduce_scatter: " + std::to_string(wrong) + " wrong elements", rank);
}

void check_broadcast(mt::Communicator& comm, int n, int rank) {
  const int root = n - 1;
  std::vector<float> data(1000);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = value(rank, i);
  comm.broadcast(data.data(), data.size(), mt::ElementType::f32, root)->wait();
  int wrong = 0;
  for (std::size_t i = 0; i < data.size(); ++i) wrong += data[i] != value(root, i);
  expect(wrong == 0, "broadcast: " + std::to_string(wrong) + " wrong elements", rank);
}

void check_all_to_all(mt::Communicator& comm, int n, int rank) {
  const std::size_t count = 64;
  std::vector<int32_t> send(count * n), recv(count * n);
  for (int p = 0; p < n; ++p)  // element i of the block for peer p encodes (sender, peer, i)
    for (std::size_t i = 0; i < count; ++i) send[p * count + i] = rank * 1000000 + p * 1000 + int(i);
  comm.all_to_all(send.data(), recv.data(), count, mt::ElementType::i32)->wait();
  int wrong = 0;
  for (int p = 0; p < n; ++p)
    for (std::size_t i = 0; i < count; ++i) wrong += recv[p * count + i] != p * 1000000 + rank * 1000 + int(i);
  expect(wrong == 0, "all_to_all: " + std::to_string(wrong) + " wrong elements", rank);
}

void check_all_to_all_uneven(mt::Communicator& comm, int n, int rank) {
  const std::size_t e = 5;
  auto sent = [&](int from, int to) { return e + static_cast<std::size_t>((from + to) % n); };
  std::vector<std::size_t> send_counts, recv_counts;
  std::vector<int32_t> send;
  for (int p = 0; p < n; ++p) {
    send_counts.push_back(sent(rank, p));
    recv_counts.push_back(sent(p, rank));
    for (std::size_t i = 0; i < sent(rank, p); ++i) send.push_back(rank * 1000000 + p * 1000 + int(i));
  }
  std::size_t total = 0;
  for (auto c : recv_counts) total += c;
  std::vector<int32_t> recv(total, -1);
  comm.all_to_all_v(send.data(), send_counts, recv.data(), recv_counts, mt::ElementType::i32)->wait();
  int wrong = 0;
  std::size_t at = 0;
  for (int p = 0; p < n; ++p)
    for (std::size_t i = 0; i < recv_counts[p]; ++i) wrong += recv[at++] != p * 1000000 + rank * 1000 + int(i);
  expect(wrong == 0, "all_to_all_v (uneven): " + std::to_string(wrong) + " wrong elements", rank);
}

// Rank 0 sends a few elements to each peer, every other rank half a million (2 MiB of i32 in all):
// the ranks' own send totals lie on both sides of any size rule, yet they must all choose the same
// form of the call (MPI never matches a blocking collective with a non-blocking one).
void check_all_to_all_v_lopsided(mt::Communicator& comm, int n, int rank) {
  auto sent = [](int from) { return from == 0 ? std::size_t{3} : std::size_t{1} << 19; };
  std::vector<std::size_t> send_counts(n, sent(rank)), recv_counts;
  std::vector<int32_t> send;
  for (int p = 0; p < n; ++p)
    for (std::size_t i = 0; i < sent(rank); ++i) send.push_back(rank * 1000000 + p * 1000 + int(i % 1000));
  std::size_t total = 0;
  for (int p = 0; p < n; ++p) {
    recv_counts.push_back(sent(p));
    total += sent(p);
  }
  std::vector<int32_t> recv(total, -1);
  comm.all_to_all_v(send.data(), send_counts, recv.data(), recv_counts, mt::ElementType::i32)->wait();
  int wrong = 0;
  std::size_t at = 0;
  for (int p = 0; p < n; ++p)
    for (std::size_t i = 0; i < recv_counts[p]; ++i) wrong += recv[at++] != p * 1000000 + rank * 1000 + int(i % 1000);
  expect(wrong == 0, "all_to_all_v (lopsided): " + std::to_string(wrong) + " wrong elements", rank);
}

void check_bf16_sum(mt::Communicator& comm, int n, int rank) {
  // Small integers are exact in bf16: 1 + 2 + ... stays exact for a few ranks.
  std::vector<uint16_t> data(257);
  auto to_bf16 = [](float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    return static_cast<uint16_t>(bits >> 16);
  };
  auto from_bf16 = [](uint16_t v) {
    uint32_t bits = static_cast<uint32_t>(v) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  };
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = to_bf16(static_cast<float>(rank + 1 + i % 3));
  comm.all_reduce(data.data(), data.size(), mt::ElementType::bf16)->wait();
  int wrong = 0;
  for (std::size_t i = 0; i < data.size(); ++i) {
    float expected = 0;
    for (int r = 0; r < n; ++r) expected += static_cast<float>(r + 1 + i % 3);
    wrong += from_bf16(data[i]) != expected;
  }
  expect(wrong == 0, "bf16 all_reduce: " + std::to_string(wrong) + " wrong elements", rank);
}

// Sums of `count` floats: every element must be n * (n - 1) / 2 + n * tag.
int wrong_sums(const std::vector<float>& data, int n, float tag) {
  const float expected = static_cast<float>(n * (n - 1) / 2) + static_cast<float>(n) * tag;
  int wrong = 0;
  for (float v : data) wrong += v != expected;
  return wrong;
}

mt::WorkHandle start_sum(mt::Communicator& comm, std::vector<float>& data, int rank, float tag) {
  for (auto& v : data) v = static_cast<float>(rank) + tag;
  return comm.all_reduce(data.data(), data.size(), mt::ElementType::f32);
}

void check_small_collectives(mt::Communicator& comm, mt::ControlChannel& control, int n, int rank) {
  std::vector<float> small(64), other(64), large(1 << 16);
  // A small one runs blocking as it is issued; a large one does not.
  auto work = start_sum(comm, small, rank, 1);
  expect(work->test() && work->ran_blocking() && wrong_sums(small, n, 1) == 0, "small all_reduce runs blocking", rank);
  work = start_sum(comm, large, rank, 2);
  work->wait();
  expect(!work->ran_blocking() && wrong_sums(large, n, 2) == 0, "large all_reduce runs non-blocking", rank);
  // Rank 0 waits on the control channel before its collective, the others the other way round.
  work = start_sum(comm, small, rank, 3);
  if (rank == 0) control.barrier();
  work->wait();
  if (rank != 0) control.barrier();
  expect(wrong_sums(small, n, 3) == 0, "small all_reduce around a control-channel barrier", rank);
  // A small one while a large one is in flight, waited for in reverse order.
  auto first = start_sum(comm, large, rank, 4);
  auto second = start_sum(comm, small, rank, 5);
  second->wait();
  first->wait();
  expect(wrong_sums(large, n, 4) == 0 && wrong_sums(small, n, 5) == 0, "a small all_reduce beside a large one", rank);
  // A caller that only polls still sees it complete.
  work = start_sum(comm, small, rank, 6);
  for (int spins = 0; !work->test() && spins < 20000; ++spins)
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  expect(work->test() && wrong_sums(small, n, 6) == 0, "small all_reduce completes by polling", rank);
  // The work of a small collective is taken again once its caller has let go of it, as if new; one
  // still held is not.
  const mt::Work* let_go = work.get();
  work.reset();
  work = start_sum(comm, small, rank, 7);
  const std::string described = work->describe();
  expect(work.get() == let_go && work->test() && work->ran_blocking() && wrong_sums(small, n, 7) == 0,
         "a small collective takes the work its caller let go of", rank);
  auto held = start_sum(comm, other, rank, 8);
  expect(held.get() != work.get() && work->describe() == described && wrong_sums(other, n, 8) == 0,
         "a work still held is not taken, nor changed", rank);
  expect(described.find("all_reduce #") == 0 && described != held->describe(),
         "a taken work describes its new collective", rank);
}

}  // namespace

int main(int argc, char** argv) {
  const bool hang = argc > 1 && std::string(argv[1]) == "--hang";
  mt::MpiSession session;
  mt::MpiControlChannel control;
  mt::MpiCommunicator mpi(/*timeout_s=*/hang ? 1.0 : 60.0);
  mt::Communicator& comm = mpi;  // the interface strategies use (its defaults for the stream)
  const int n = comm.world_size(), rank = comm.rank();

  if (hang) {  // rank 1 never issues the all-reduce: rank 0 must give up and name the operation
    std::vector<float> data(4, 1.0f);
    if (rank == 0) comm.all_reduce(data.data(), data.size(), mt::ElementType::f32)->wait();
    std::this_thread::sleep_for(std::chrono::seconds(30));
    return 0;
  }

  check_all_reduce(comm, n, rank);
  check_all_gather(comm, n, rank);
  check_all_gather_non_blocking(comm, n, rank);
  check_reduce_scatter(comm, n, rank);
  check_broadcast(comm, n, rank);
  check_all_to_all(comm, n, rank);
  check_all_to_all_uneven(comm, n, rank);
  check_all_to_all_v_lopsided(comm, n, rank);
  check_bf16_sum(comm, n, rank);
  check_small_collectives(comm, control, n, rank);
  const auto& c = comm.counts();
  expect(c.all_reduce == 10 && c.all_gather == 4 && c.reduce_scatter == 1 && c.broadcast == 1 && c.all_to_all == 3,
         "collective counts", rank);
  const double total_failures = control.sum(static_cast<double>(failures));
  if (rank == 0) std::printf("communicator checks on %d ranks: %s\n", n, total_failures == 0 ? "ok" : "FAILED");
  return total_failures == 0 ? 0 : 1;
}
